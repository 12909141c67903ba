// SPDX-License-Identifier: BSD-3-Clause
// Stage-test harness and the test binary's main(): EAL first (tests need
// it before any fixture runs), then the four ring ports, then GoogleTest.
#include "tests/dataplane/stages/stage_harness.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "dataplane/config/config.h"
#include "dataplane/pause/pfc_frame.h"
#include "dataplane/stages/ecn_stage.h"
#include "dataplane/stages/egress.h"
#include "dataplane/stages/ingress.h"
#include "dataplane/stages/pfc_stage.h"
#include "dataplane/stages/worker.h"
#include "tests/dataplane/net/frame_builder.h"

namespace pfc::stagetest {
namespace {

WirePort g_wire[kPorts];

// Ring size of the harness's wire: larger than any test's traffic, so the
// switch never sees a full device unless a test wants it to.
constexpr unsigned kWireRing = 4096;

std::string Mac(const std::array<uint8_t, 6>& m) {
  char b[18];
  std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return b;
}

bool CreateWire() {
  std::string err;
  for (int i = 0; i < kPorts; i++) {
    if (!harness::MakeRingWire("s" + std::to_string(i), kWireRing, &g_wire[i], &err)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return false;
    }
  }
  return true;
}

// Writes `text` to a new temp file named like `tmpl` (ending in ".yaml");
// returns its path, "" when no file could be made.
std::string WriteTemp(std::string tmpl, const std::string& text) {
  const int fd = mkstemps(tmpl.data(), 5);
  if (fd < 0) return "";
  close(fd);
  std::ofstream(tmpl) << text;
  return tmpl;
}

}  // namespace

const WirePort& Wire(int i) { return g_wire[i]; }

std::array<uint8_t, 6> SwitchMac(int port) {
  return {0x02, 0, 0, 0, 0, static_cast<uint8_t>(0x10 + port)};
}
std::array<uint8_t, 6> HostMac(int port) {
  return {0x02, 0, 0, 0, static_cast<uint8_t>(port), 0x02};
}
uint32_t Ip(int a, int b, int c, int d) {
  return static_cast<uint32_t>(a) << 24 | static_cast<uint32_t>(b) << 16 |
         static_cast<uint32_t>(c) << 8 | static_cast<uint32_t>(d);
}

// Topology: host 10.0.<i>.2 on port i (neighbour known, static); 10.9/16 is
// behind 10.0.1.2 (p1); 10.8/16 is behind 10.0.2.99 whose MAC is unknown.
// Tags: 24 -> prio 3 and 26 -> prio 4 (both lossless), 10 -> prio 1, 46 ->
// prio 5 (lossy, and no rewrite rule: falls to the lossy tag), everything
// else unmapped (lossy fallback). Tagger rule: tag 24 from p0 to p1 becomes
// 26; 24, 26 and 10 otherwise keep their tag.
std::string BaseYaml(const std::string& buffer, const std::string& extra) {
  std::string y =
      "switch: { mode: l3, workers: 1, idle_sleep_us: 0, burst: 32 }\n"
      "ports:\n";
  for (int i = 0; i < kPorts; i++)
    y += "  - { name: p" + std::to_string(i) + ", device: net_ring_s" + std::to_string(i) +
         ", mac: \"" + Mac(SwitchMac(i)) + "\", ipv4: 10.0." + std::to_string(i) +
         ".1/24, speed: 10G }\n";
  y += "routes:\n"
       "  - { prefix: 10.9.0.0/16, port: p1, via: 10.0.1.2 }\n"
       "  - { prefix: 10.8.0.0/16, port: p2, via: 10.0.2.99 }\n"
       "neighbors:\n";
  for (int i = 0; i < kPorts; i++)
    y += "  - { ip: 10.0." + std::to_string(i) + ".2, mac: \"" + Mac(HostMac(i)) + "\", port: p" +
         std::to_string(i) + " }\n";
  y += "qos:\n"
       "  tag_map: { 24: 3, 26: 4, 10: 1, 46: 5 }\n"
       "  lossless: [3, 4]\n"
       "  lossy_priority: 0\n"
       "  lossy_tag: 0\n"
       "buffer:\n";
  y += buffer.empty()
           ? "  total_bytes: 256K\n"
             "  lossy: { reserved: 0, limit: 64K }\n"
             "  lossless: { reserved: 0, xoff: 32K, headroom: 16K, xon_hysteresis: 4K }\n"
           : buffer;
  y += "rewrite:\n"
       "  unmatched: lossy\n"
       "  rules:\n"
       "    - { tag: 24, in: [p0], out: [p1], new_tag: 26, priority: 10 }\n"
       "    - { tag: 24, in: \"*\", out: \"*\", new_tag: 24 }\n"
       "    - { tag: 26, in: \"*\", out: \"*\", new_tag: 26 }\n"
       "    - { tag: 10, in: \"*\", out: \"*\", new_tag: 10 }\n";
  return y + extra;
}

std::vector<uint8_t> PfcFrame(int from_port, uint8_t class_enable, uint16_t quanta) {
  pause::PauseRequest r;
  r.class_enable = class_enable;
  for (int q = 0; q < kNumPrio; q++)
    if ((class_enable >> q) & 1) r.quanta[q] = quanta;
  std::vector<uint8_t> f(pause::kPfcFrameLen);
  EXPECT_EQ(pause::BuildPfcFrame(HostMac(from_port), r, f.data(), f.size()), pause::kPfcFrameLen);
  return f;
}

std::vector<uint8_t> Frame(const Pkt& p) {
  test::FrameSpec e;
  const auto dst = SwitchMac(p.in_port), src = HostMac(p.in_port);
  std::memcpy(e.dst, dst.data(), 6);
  std::memcpy(e.src, src.data(), 6);
  test::Ipv4Spec ip;
  ip.dscp = p.dscp;
  ip.ecn = p.ecn;
  ip.ttl = p.ttl;
  ip.src = Ip(10, 0, p.in_port, 2);
  ip.dst = p.dst_ip;
  size_t l3;
  std::vector<uint8_t> f = test::Ipv4Frame(e, ip, &l3);
  // UDP header: the sequence number as source port, so packets can be told apart.
  test::Put16(f, l3 + 20, p.seq);
  test::Put16(f, l3 + 22, 9);
  return f;
}

uint16_t SeqOf(const std::vector<uint8_t>& f) {
  return static_cast<uint16_t>(f.at(34) << 8 | f.at(35));
}
uint8_t DscpOf(const std::vector<uint8_t>& f) { return f.at(15) >> 2; }
uint16_t EtherTypeOf(const std::vector<uint8_t>& f) {
  return static_cast<uint16_t>(f.at(12) << 8 | f.at(13));
}

Counters Snapshot(const sw::Switch& sw) {
  // Names come from stats.h's counter lists, as the exported JSON's do, so a
  // new counter is expected to stay 0 unless a test says otherwise.
  Counters c;
  for (const auto& ws : sw.stats) {
    const sw::WorkerStats& s = *ws;
    sw::ForEachWorkerCounter(s,
                             [&](const char* name, const sw::Counter& v) { c[name] += v.Get(); });
    for (size_t p = 0; p < sw.ports.size(); p++) {
      const std::string pn = "p" + std::to_string(p) + ".";
      sw::ForEachCounter(s.port[p],
                         [&](const char* name, const sw::Counter& v) { c[pn + name] += v.Get(); });
      for (int q = 0; q < kNumPrio; q++) {
        const std::string qn = pn + "q" + std::to_string(q) + ".";
        const sw::PrioCounters& qc = s.prio[p][q];
        sw::ForEachCounter(
            qc, [&](const char* name, const sw::Counter& v) { c[qn + name] += v.Get(); });
        for (int r = 0; r < kNumDropReasons; r++)
          c[qn + "drop." + std::string(DropReasonName(static_cast<DropReason>(r)))] +=
              qc.drops[r].Get();
      }
    }
  }
  return c;
}

void StageTest::Start(const std::string& yaml) {
  yaml_path_ = WriteTemp("/tmp/pfc_stage_XXXXXX.yaml", yaml);
  ASSERT_FALSE(yaml_path_.empty()) << "cannot create a temp file";
  config::SwitchConfig cfg;
  std::string err;
  ASSERT_TRUE(config::LoadConfig(yaml_path_, &cfg, &err)) << err << "\n--- config ---\n" << yaml;
  ASSERT_TRUE(sw::CreateStandalone(cfg, &dp_, &sw_, &err)) << err;
  running_ = cfg;
  pool_ = dp_->pool;
  w_ = stages::MakeWorkerCtx(*sw_, 0);
  others_.clear();
  for (unsigned i = 1; i < dp_->workers; i++) others_.push_back(stages::MakeWorkerCtx(*sw_, i));
  ASSERT_EQ(rte_mempool_avail_count(pool_), pool_->size);
}

bool StageTest::Reload(const std::string& update, std::string* err) {
  const std::string path = WriteTemp("/tmp/pfc_stage_reload_XXXXXX.yaml", update);
  if (path.empty()) {
    *err = "cannot create a temp file";
    return false;
  }
  config::SwitchConfig next;
  const bool ok = config::LoadUpdate(path, running_, &next, err) && sw_->ApplyConfig(next, err);
  std::remove(path.c_str());
  if (ok) running_ = std::move(next);
  return ok;
}

void StageTest::TearDown() {
  if (!yaml_path_.empty()) std::remove(yaml_path_.c_str());
  if (!sw_) return;
  // The test must have seen every packet to its end: nothing left on the
  // wire, in a queue or in a tx stash, no buffer bytes still charged, and
  // every mbuf back in the pool.
  for (PortId p = 0; p < sw_->ports.size(); p++) {
    EXPECT_EQ(rte_ring_count(Wire(p).tx), 0u)
        << "p" << p << ": frames on the wire the test did not check";
    EXPECT_EQ(rte_ring_count(Wire(p).rx), 0u) << "p" << p << ": frames the switch never received";
    EXPECT_EQ(rte_ring_count(sw_->ports[p].control), 0u) << "p" << p;
    for (int q = 0; q < kNumPrio; q++)
      EXPECT_EQ(sw_->ports[p].owner_state->data_stash[q].n, 0) << "p" << p << " q" << q;
    EXPECT_EQ(sw_->ports[p].owner_state->ctrl_stash.n, 0) << "p" << p;
    for (int q = 0; q < kNumPrio; q++) {
      EXPECT_EQ(QueueDepth(p, q), 0u) << "p" << p << " q" << q;
      EXPECT_EQ(Occ(p, q), 0u) << "buffer p" << p << " q" << q;
      if (sw_->ecn && sw_->CurrentTables()->ecn[p][q].enabled()) {
        EXPECT_EQ(stages::EcnDepth(*sw_, p, q), 0) << "ECN depth p" << p << " q" << q;
      }
    }
  }
  // What the worker held back of the pool it publishes on its next idle
  // round (stages/worker.cc); the harness calls the stages, not the round.
  w_.pool_slack.Publish(sw_->buffer);
  for (stages::WorkerCtx& o : others_) o.pool_slack.Publish(sw_->buffer);
  EXPECT_EQ(sw_->buffer.shared_used(), 0u);
  EXPECT_EQ(sw_->buffer.release_underflows(), 0u);
  EXPECT_EQ(rte_mempool_avail_count(pool_), pool_->size) << "mbufs leaked";
  for (int p = 0; p < kPorts; p++) {
    harness::DrainRing(Wire(p).tx);
    harness::DrainRing(Wire(p).rx);
  }
  // The switch stops the ports, then the pool goes, so the next test can
  // create "pfc_pool" again.
  sw_.reset();
  dp_.reset();
  pool_ = nullptr;
}

rte_mbuf* StageTest::Mbuf(const std::vector<uint8_t>& frame) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  if (!m) return nullptr;
  char* d = rte_pktmbuf_append(m, static_cast<uint16_t>(frame.size()));
  if (!d) {
    rte_pktmbuf_free(m);
    return nullptr;
  }
  std::memcpy(d, frame.data(), frame.size());
  return m;
}

void StageTest::Ingress(PortId in, const std::vector<std::vector<uint8_t>>& frames,
                        uint64_t now_ns) {
  ASSERT_LE(frames.size(), static_cast<size_t>(kMaxBurst));
  rte_mbuf* pkts[kMaxBurst];
  for (size_t i = 0; i < frames.size(); i++) {
    pkts[i] = Mbuf(frames[i]);
    ASSERT_NE(pkts[i], nullptr);
  }
  stages::WorkerCtx& w = Owner(in);
  w.now_ns = now_ns;
  w.t = sw_->CurrentTables();
  stages::IngressBurst(w, in, pkts, static_cast<uint16_t>(frames.size()));
}

uint16_t StageTest::Egress(PortId port, uint64_t now_ns) {
  stages::WorkerCtx& w = Owner(port);
  w.now_ns = now_ns;
  w.t = sw_->CurrentTables();
  Deadline ready = kNever;
  return stages::EgressRound(w, port, &ready);
}

stages::WorkerCtx& StageTest::Owner(PortId port) {
  const unsigned o = sw_->ports[port].owner;
  return o == 0 ? w_ : others_.at(o - 1);
}

void StageTest::Receive(PortId port, const std::vector<std::vector<uint8_t>>& frames) {
  for (const auto& f : frames) {
    rte_mbuf* m = Mbuf(f);
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(rte_ring_enqueue(Wire(port).rx, m), 0);
  }
}

std::vector<std::vector<uint8_t>> StageTest::TakeTx(PortId port) {
  std::vector<std::vector<uint8_t>> out;
  void* p;
  while (rte_ring_dequeue(Wire(port).tx, &p) == 0) {
    rte_mbuf* m = static_cast<rte_mbuf*>(p);
    EXPECT_EQ(m->nb_segs, 1);
    const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
    out.emplace_back(d, d + rte_pktmbuf_data_len(m));
    rte_pktmbuf_free(m);
  }
  return out;
}

void StageTest::ExpectCounters(const Counters& expected, const std::set<std::string>& skip) const {
  const Counters got = Snapshot(*sw_);
  for (const auto& [name, v] : expected)
    EXPECT_TRUE(got.count(name)) << "no counter named " << name;
  for (const auto& [name, v] : got) {
    if (skip.count(name)) continue;
    const auto it = expected.find(name);
    EXPECT_EQ(v, it == expected.end() ? 0 : it->second) << "counter " << name;
  }
}

}  // namespace pfc::stagetest

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Private file prefix: meson runs test binaries in parallel.
  const std::string prefix = "--file-prefix=pfcstage" + std::to_string(getpid());
  std::vector<std::string> args = {
      "stage_test", "--no-huge", "--no-pci",       "--no-shconf",           "-m",  "256",
      "-l",         "0",         "--no-telemetry", "--log-level=*:warning", prefix};
  std::vector<char*> eal;
  for (auto& a : args) eal.push_back(a.data());
  if (rte_eal_init(static_cast<int>(eal.size()), eal.data()) < 0) {
    std::fprintf(stderr, "stage tests: EAL init failed: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  if (!pfc::stagetest::CreateWire()) {
    std::fprintf(stderr, "stage tests: cannot create the ring ports: %s\n",
                 rte_strerror(rte_errno));
    return 1;
  }
  const int rc = RUN_ALL_TESTS();
  rte_eal_cleanup();
  return rc;
}
