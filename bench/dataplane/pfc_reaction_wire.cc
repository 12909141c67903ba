// SPDX-License-Identifier: BSD-3-Clause
// The reaction benchmark's test bench: ports, runtime, emulated far ends.
// See pfc_reaction_wire.h.
#include "bench/dataplane/pfc_reaction_wire.h"

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "dataplane/config/config.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/pause/pfc_frame.h"
#include "dataplane/stages/worker.h"
#include "tests/harness/ring_wire.h"

namespace pfc::reaction {

Bench g;

namespace {

constexpr uint8_t kTagLossless = 24, kTagLossy = 10;
constexpr unsigned kWireRing = 4096;  // deeper than any trial's traffic
const std::array<uint8_t, 6> kSwitchMac0 = {2, 0, 0, 0, 0, 0x10};
const std::array<uint8_t, 6> kHostMac0 = {2, 0, 0, 0, 0, 2};
const std::array<uint8_t, 6> kHostMac1 = {2, 0, 0, 0, 1, 2};

// Busy-polling worker. xoff 64K = 42 MTU frames; the headroom holds the 40
// frames the XOFF experiment keeps sending after the crossing (its sender
// ignores PFC: it measures, it does not obey).
const char* kConfig = R"(switch: { mode: l3, workers: 1, idle_sleep_us: 0, burst: 32 }
ports:
  - { name: p0, device: net_ring_rb0, mac: "02:00:00:00:00:10", ipv4: 10.0.0.1/24, speed: 10G }
  - { name: p1, device: net_ring_rb1, mac: "02:00:00:00:00:11", ipv4: 10.0.1.1/24, speed: 10G,
      shaper: 10G@BURST@ }
neighbors:
  - { ip: 10.0.0.2, mac: "02:00:00:00:00:02", port: p0 }
  - { ip: 10.0.1.2, mac: "02:00:00:00:01:02", port: p1 }
qos:
  tag_map: { 24: 3, 10: 1 }
  lossless: [3]
  lossy_priority: 0
  lossy_tag: 0
buffer:
  total_bytes: 2M
  cell_bytes: 256
  lossy: { reserved: 0, limit: 256K }
  lossless: { reserved: 0, xoff: 64K, headroom: 64K, xon_hysteresis: 16K }
)";

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

// Ethernet + IPv4 + UDP header of a frame_len-byte frame from p0's host to
// p1's. Only the headers are written: the switch never reads the payload.
rte_mbuf* DataMbuf(uint8_t dscp, uint16_t frame_len, uint16_t seq) {
  rte_mbuf* m = rte_pktmbuf_alloc(g.dp->pool);
  if (!m) return nullptr;
  auto* d = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, frame_len));
  if (!d) {
    rte_pktmbuf_free(m);
    return nullptr;
  }
  std::memset(d, 0, 42);
  std::memcpy(d, kSwitchMac0.data(), 6);
  std::memcpy(d + 6, kHostMac0.data(), 6);
  d[12] = 0x08;
  uint8_t* ip = d + 14;
  ip[0] = 0x45;
  ip[1] = static_cast<uint8_t>(dscp << 2);
  Put16(ip + 2, frame_len - 14);
  Put16(ip + 6, 0x4000);  // DF
  ip[8] = 64;
  ip[9] = 17;
  const uint8_t src[4] = {10, 0, 0, 2}, dst[4] = {10, 0, 1, 2};
  std::memcpy(ip + 12, src, 4);
  std::memcpy(ip + 16, dst, 4);
  const uint16_t c = net::Ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &c, 2);
  Put16(ip + 20, seq);
  Put16(ip + 22, 9);
  Put16(ip + 24, frame_len - 34);
  return m;
}

int PrioOf(const rte_mbuf* m) {
  const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
  if (rte_pktmbuf_data_len(m) < 34 || d[12] != 0x08 || d[13] != 0x00) return -1;
  const uint8_t dscp = d[15] >> 2;
  return dscp == kTagLossless ? kLossless : dscp == kTagLossy ? kLossy : -1;
}

// ---- the far ends, called from inside the switch's rx/tx bursts ----

uint16_t RxP0(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, uint16_t max, void*) {
  Sender& s = g.sender;
  if (s.mode == Sender::Mode::kOff) return n;
  const uint64_t now = rte_rdtsc();
  if (s.mode == Sender::Mode::kSequence) {
    uint16_t cap = max;
    if (s.first_burst && s.next == 0) cap = std::min<uint16_t>(max, n + s.first_burst);
    while (n < cap && s.next < s.count && s.t0 + s.next * s.gap <= now) {
      rte_mbuf* m = DataMbuf(kTagLossless, s.frame_len, static_cast<uint16_t>(s.next));
      if (!m) break;
      s.rx_tsc[s.next++] = now;
      pkts[n++] = m;
    }
    return n;
  }
  for (const auto& [prio, tag] :
       {std::pair{kLossless, kTagLossless}, std::pair{kLossy, kTagLossy}}) {
    unsigned have = rte_ring_count(g.rt->ports[1].egress[prio]);
    for (; have < s.depth && n < max; have++) {
      rte_mbuf* m = DataMbuf(tag, kMtuFrame, 0);
      if (!m) break;
      pkts[n++] = m;
    }
  }
  return n;
}

uint16_t RxP1(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, uint16_t max, void*) {
  Injector& j = g.inj;
  if (!j.frame && !j.keep_paused) return n;
  const uint64_t now = rte_rdtsc();
  if (j.frame && n < max && now >= j.at) {
    pkts[n++] = j.frame;
    j.frame = nullptr;
    j.seen = now;
  }
  if (j.keep_paused && n < max && now >= j.next_refresh) {
    if (rte_mbuf* m = PfcMbuf(kBit, 0xffff)) {
      pkts[n++] = m;
      j.next_refresh = now + Ticks(1e6);
    }
  }
  return n;
}

uint16_t TxP0(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, void*) {
  const uint64_t now = rte_rdtsc();
  for (uint16_t i = 0; i < n; i++) {
    pause::PauseRequest r;
    const auto* d = rte_pktmbuf_mtod(pkts[i], const uint8_t*);
    if (pause::ParseMacControl(d, rte_pktmbuf_data_len(pkts[i]), &r) != pause::MacCtlKind::kPfc ||
        !(r.class_enable & kBit))
      continue;
    if (r.quanta[kLossless] == 0) {
      g.xon_seen++;
    } else if (g.xoff_tsc == 0) {
      g.xoff_tsc = now;
      g.occ_at_xoff = g.rt->buffer.occupancy(0, kLossless);
    }
  }
  return n;
}

uint16_t TxP1(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, void*) {
  const uint64_t now = rte_rdtsc();
  for (uint16_t i = 0; i < n; i++) {
    const int prio = PrioOf(pkts[i]);
    if (prio == kLossless) g.p1_lossless_tx++;
    if (!g.logging) continue;
    if (g.log.size() == g.log.capacity()) {
      g.log_overflow = true;
      continue;
    }
    g.log.push_back({now, rte_pktmbuf_pkt_len(pkts[i]), prio});
  }
  return n;
}

}  // namespace

rte_mbuf* PfcMbuf(uint8_t class_enable, uint16_t quanta) {
  rte_mbuf* m = rte_pktmbuf_alloc(g.dp->pool);
  if (!m) return nullptr;
  pause::PauseRequest r;
  r.class_enable = class_enable;
  for (int q = 0; q < kNumPrio; q++)
    if ((class_enable >> q) & 1) r.quanta[q] = quanta;
  auto* d = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, pause::kPfcFrameLen));
  pause::BuildPfcFrame(kHostMac1, r, d, pause::kPfcFrameLen);
  return m;
}

bool Put(int port, rte_mbuf* m) { return m && rte_ring_enqueue(g.rx[port], m) == 0; }

void Round() {
  Deadline ready = kNever;
  g.round_tsc = rte_rdtsc();
  stages::WorkerRound(g.w, &ready);
  for (rte_ring* r : g.tx) {
    void* b[64];
    unsigned k;
    while ((k = rte_ring_dequeue_burst(r, b, 64, nullptr)) != 0)
      rte_pktmbuf_free_bulk(reinterpret_cast<rte_mbuf**>(b), k);
  }
}

void RunFor(double us) {
  const uint64_t end = rte_rdtsc() + Ticks(us * 1000);
  RunUntil([&] { return rte_rdtsc() >= end; }, us + 1e6);
}

bool P1Paused() { return g.rt->ports[1].owner_state->pause.PausedMask(g.dp->NowNs()) & kBit; }

uint64_t Drops(std::string* which) {
  uint64_t total = 0;
  for (const auto& ws : g.rt->stats)
    for (size_t p = 0; p < g.rt->ports.size(); p++)
      for (int q = 0; q < kNumPrio; q++)
        for (int r = 0; r < kNumDropReasons; r++) {
          const uint64_t v = ws->prio[p][q].drops[r].Get();
          if (v && which)
            *which += " p" + std::to_string(p) + ".q" + std::to_string(q) + "." +
                      std::string(DropReasonName(static_cast<DropReason>(r))) + "=" +
                      std::to_string(v);
          total += v;
        }
  return total - g.drops_before;
}

bool Recover() {
  g.sender.mode = Sender::Mode::kOff;
  g.logging = false;
  if (g.inj.frame) rte_pktmbuf_free(g.inj.frame);
  g.inj = {};
  Put(1, PfcMbuf(kBit, 0));
  return RunUntil(
      [] {
        for (int q = 0; q < kNumPrio; q++)
          if (!rte_ring_empty(g.rt->ports[1].egress[q]) || g.rt->buffer.occupancy(0, q))
            return false;
        return true;
      },
      1'000'000);
}

bool Setup(const std::string& shaper_burst) {
  std::string werr;
  for (int i = 0; i < 2; i++) {
    harness::RingWire w;
    if (!harness::MakeRingWire("rb" + std::to_string(i), kWireRing, &w, &werr)) {
      std::fprintf(stderr, "%s\n", werr.c_str());
      return false;
    }
    g.rx[i] = w.rx;
    g.tx[i] = w.tx;
  }
  char path[] = "/tmp/pfc_reaction_XXXXXX.yaml";
  const int fd = mkstemps(path, 5);
  if (fd < 0) {
    std::perror("mkstemps");
    return false;
  }
  close(fd);
  std::string yaml = kConfig;
  yaml.replace(yaml.find("@BURST@"), 7,
               shaper_burst.empty() ? "" : ", shaper_burst: " + shaper_burst);
  std::ofstream(path) << yaml;
  config::SwitchConfig cfg;
  std::string err;
  const bool loaded = config::LoadConfig(path, &cfg, &err);
  std::remove(path);
  if (!loaded || !sw::CreateStandalone(cfg, &g.dp, &g.rt, &err)) {
    std::fprintf(stderr, "%s: %s\n", loaded ? "runtime" : "config", err.c_str());
    return false;
  }
  g.w = stages::MakeWorkerCtx(*g.rt, 0);
  g.w.ports = {0, 1};
  g.ns_per_tick = 1e9 / static_cast<double>(rte_get_tsc_hz());
  g.log.reserve(1 << 16);
  const uint16_t p0 = g.rt->ports[0].io.dpdk_port, p1 = g.rt->ports[1].io.dpdk_port;
  if (!rte_eth_add_rx_callback(p0, 0, RxP0, nullptr) ||
      !rte_eth_add_rx_callback(p1, 0, RxP1, nullptr) ||
      !rte_eth_add_tx_callback(p0, 0, TxP0, nullptr) ||
      !rte_eth_add_tx_callback(p1, 0, TxP1, nullptr)) {
    std::fprintf(stderr, "cannot add ethdev callbacks: %s\n", rte_strerror(rte_errno));
    return false;
  }
  return true;
}

void Teardown() {
  if (!g.rt) return;
  g.rt.reset();  // stops the ports
  g.dp.reset();  // frees the pool
}

}  // namespace pfc::reaction
