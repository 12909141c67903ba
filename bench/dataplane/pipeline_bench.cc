// SPDX-License-Identifier: BSD-3-Clause
// Whole-pipeline throughput of one worker core: rx burst -> parse ->
// classify by tag -> LPM route + neighbour -> buffer admission -> Tagger
// rewrite -> egress queue by new tag -> scheduler -> tx burst -> buffer
// release, i.e. WorkerRound() exactly as pfcswitch runs it (plus the RCU
// quiescent report WorkerMain adds), over 4 ports and 64-byte packets.
//
// Ports are net_ring devices made with rte_eth_from_rings, with separate rx
// and tx rings owned by this harness. After each round the harness plays
// the four attached hosts: it takes what the switch transmitted, restores
// each packet's Ethernet/IPv4 header from a template (TTL, MACs, DSCP and
// checksum were rewritten by the switch) and puts it back on an rx ring, so
// no packet is allocated or freed in steady state. That refresh is included
// in items_per_second / Mpps (the whole loop); switch_Mpps excludes it,
// splitting the CPU time by TSC cycles spent in the switch vs the hosts.
// BM_HostsOnly runs the harness alone (rx ring -> tx ring -> refresh).
//
// Traffic: port i sends to hosts behind port i+1 (mod 4), 64 flows per port
// (distinct /24s for the LPM), tags cycling 24 (lossless prio 3; Tagger rule
// rewrites it to 26 on p0->p1 and p2->p3), 26 (lossless prio 4), 10 (lossy
// prio 1), 0 (unmapped: lossy fallback). Arg: packets in flight per port.
//
// BM_Scale/<ports>/<rules>/<routes>: the same traffic on the first 4 ports,
// with the tables grown around it: idle ports up to <ports> (RTE_MAX_ETHPORTS
// at most: 32 in Debian's DPDK build),
// <rules> more Tagger rules on tags the traffic does not carry (distinct
// (tag, in, out) triples over every port), <routes> more /24 routes in
// 32.0.0.0/4 (not hit). The per-packet cost should not depend on them
// (bench/cost/table_scale.sh prints the curve in instructions per packet).
//
// Usage: pipeline_bench [benchmark flags] [-- EAL args]
//   default EAL args: --no-huge --no-pci --no-shconf -m 512 -l 0 --no-telemetry
//   hugepages: pipeline_bench -- --in-memory --no-pci -l 0 --no-telemetry
#include <benchmark/benchmark.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/stages/worker.h"
#include "dataplane/switch/switch.h"
#include "tests/harness/ring_wire.h"

namespace pfc {
namespace {

constexpr int kPorts = 4;                    // ports with traffic
constexpr int kMaxPorts = RTE_MAX_ETHPORTS;  // with BM_Scale's idle ones (32 in Debian's DPDK)
constexpr int kFlows = 64;                   // templates per port
constexpr unsigned kWireRing = 4096;
constexpr size_t kFrameLen = 60;  // 64 on the wire with the FCS
constexpr size_t kHdrLen = 34;    // Ethernet + IPv4: what the switch may rewrite

std::array<harness::RingWire, kMaxPorts> g_wire;
int g_wired = 0;  // ring ports made so far

// Table sizes around the traffic (BM_Scale); the default is BM_Pipeline's.
struct Scale {
  int ports = kPorts;
  int rules = 0;   // extra rewrite rules
  int routes = 0;  // extra routes
  bool operator==(const Scale&) const = default;
};

std::array<uint8_t, 6> SwitchMac(int p) {
  return {0x02, 0, 0, 0, 0, static_cast<uint8_t>(0x10 + p)};
}
std::array<uint8_t, 6> HostMac(int p) { return {0x02, 0, 0, 0, static_cast<uint8_t>(p), 0x02}; }

std::string Yaml(bool l2, const Scale& sc) {
  auto mac = [](const std::array<uint8_t, 6>& m) {
    char b[18];
    std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
    return std::string(b);
  };
  std::string y = std::string("switch: { mode: ") + (l2 ? "l2" : "l3") +
                  ", workers: 1, idle_sleep_us: 0, burst: 32 }\nports:\n";
  for (int i = 0; i < sc.ports; i++)
    y += "  - { name: p" + std::to_string(i) + ", device: net_ring_b" + std::to_string(i) +
         ", mac: \"" + mac(SwitchMac(i)) + "\", ipv4: 10.0." + std::to_string(i) +
         ".1/24, speed: 100G }\n";
  if (l2) {
    y += "l2_table:\n";
    for (int i = 0; i < kPorts; i++)
      y += "  - { mac: \"" + mac(HostMac(i)) + "\", port: p" + std::to_string(i) + " }\n";
  } else {
    y += "routes:\n";
    for (int i = 0; i < kPorts; i++)
      y += "  - { prefix: 10." + std::to_string(10 + i) + ".0.0/16, port: p" + std::to_string(i) +
           ", via: 10.0." + std::to_string(i) + ".2 }\n";
    y += "neighbors:\n";
    for (int i = 0; i < kPorts; i++)
      y += "  - { ip: 10.0." + std::to_string(i) + ".2, mac: \"" + mac(HostMac(i)) + "\", port: p" +
           std::to_string(i) + " }\n";
  }
  y += "qos:\n  tag_map: { 24: 3, 26: 4, 10: 1 }\n  lossless: [3, 4]\n  lossy_priority: 0\n  "
       "lossy_tag: 0\n"
       "buffer:\n  total_bytes: " +
       // 2 MB of shared buffer plus each port's reserved space and headroom
       std::to_string((2 << 20) + sc.ports * 2 * (16 << 10) + sc.ports * 2 * (64 << 10)) +
       "\n"
       "  lossy: { reserved: 0, limit: dynamic, alpha: 1.0 }\n"
       "  lossless: { reserved: 16K, xoff: dynamic, alpha: 0.5, headroom: 64K, xon_hysteresis: 8K "
       "}\n"
       "rewrite:\n  unmatched: lossy\n  rules:\n"
       "    - { tag: 24, in: [p0], out: [p1], new_tag: 26, priority: 10 }\n"
       "    - { tag: 24, in: [p2], out: [p3], new_tag: 26, priority: 10 }\n"
       "    - { tag: 24, in: \"*\", out: \"*\", new_tag: 24 }\n"
       "    - { tag: 26, in: \"*\", out: \"*\", new_tag: 26 }\n"
       "    - { tag: 10, in: \"*\", out: \"*\", new_tag: 10 }\n";
  // Extra rules: tags 32-63 (never sent), one (in, out) pair after another.
  for (int i = 0; i < sc.rules; i++) {
    const int pair = i / 32, in = pair % sc.ports, out = pair / sc.ports % sc.ports;
    const std::string tag = std::to_string(32 + i % 32);
    y += "    - { tag: " + tag + ", in: [p" + std::to_string(in) + "], out: [p" +
         std::to_string(out) + "], new_tag: " + tag + " }\n";
  }
  // PFC_BENCH_DCFIT=1: with DCFIT's bookkeeping (bench/cost/table.sh compares).
  const char* dcfit = std::getenv("PFC_BENCH_DCFIT");
  if (dcfit != nullptr && std::string(dcfit) == "1") y += "dcfit: { enabled: true }\n";
  // PFC_BENCH_ECN=1: ECN marking on the lossless queues with a DCQCN-style
  // profile; the closed loop keeps each queue under a burst, below the min
  // threshold, so this is the bookkeeping every packet pays.
  const char* ecn = std::getenv("PFC_BENCH_ECN");
  if (ecn != nullptr && std::string(ecn) == "1")
    y += "ecn:\n  profiles: { LOSSLESS: { green_min_threshold: 50K, green_max_threshold: 200K, "
         "green_drop_probability: 5 } }\n  queues: [ { priorities: [3, 4], profile: LOSSLESS } ]\n";
  // PFC_BENCH_INT=1: an INT hop record on every packet (every priority the
  // traffic uses). The loop sends each packet round again, so after its
  // first pass it carries a trailer: what a transit switch pays a packet.
  const char* telemetry = std::getenv("PFC_BENCH_INT");
  if (telemetry != nullptr && std::string(telemetry) == "1")
    y += "int: { priorities: [0, 1, 3, 4] }\n";
  return y;
}

// What host `in` sends for flow k: to the next port's network (L3) or
// host (L2), with the tag cycle described above.
std::array<uint8_t, kFrameLen> Template(int in, int k, bool l2) {
  std::array<uint8_t, kFrameLen> f{};
  const int out = (in + 1) % kPorts;
  const auto dst = l2 ? HostMac(out) : SwitchMac(in), src = HostMac(in);
  std::memcpy(f.data(), dst.data(), 6);
  std::memcpy(f.data() + 6, src.data(), 6);
  f[12] = 0x08;
  uint8_t* ip = f.data() + 14;
  static constexpr uint8_t kTags[4] = {24, 26, 10, 0};
  ip[0] = 0x45;
  ip[1] = static_cast<uint8_t>(kTags[k % 4] << 2);
  ip[2] = 0, ip[3] = 46;
  ip[6] = 0x40;  // DF
  ip[8] = 64;
  ip[9] = 17;
  const uint8_t sip[4] = {10, 0, static_cast<uint8_t>(in), 2};
  const uint8_t dip[4] = {10, static_cast<uint8_t>(10 + out), static_cast<uint8_t>(k), 1};
  std::memcpy(ip + 12, sip, 4);
  std::memcpy(ip + 16, dip, 4);
  const uint16_t c = net::Ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &c, 2);
  uint8_t* udp = ip + 20;
  udp[0] = 0x10, udp[1] = static_cast<uint8_t>(k), udp[2] = 0x20, udp[4] = 0, udp[5] = 26;
  return f;
}

// One switch runtime on the four ring ports plus the hosts' state.
struct Env {
  bool l2 = false;
  Scale sc;
  std::unique_ptr<sw::Dataplane> dp;
  std::unique_ptr<sw::Switch> sw;
  stages::WorkerCtx w;
  std::array<std::array<std::array<uint8_t, kFrameLen>, kFlows>, kPorts> tmpl{};
  std::array<unsigned, kPorts> next_flow{};
  unsigned inflight_per_port = 0;

  ~Env() {
    for (int i = 0; i < g_wired; i++)
      for (rte_ring* r : {g_wire[i].rx, g_wire[i].tx}) {
        void* m;
        while (rte_ring_dequeue(r, &m) == 0) rte_pktmbuf_free(static_cast<rte_mbuf*>(m));
      }
    if (sw) {
      rte_rcu_qsbr_thread_offline(dp->qsbr, 0);
      rte_rcu_qsbr_thread_unregister(dp->qsbr, 0);
      sw.reset();
      dp.reset();  // frees "pfc_pool" too; the next Env recreates it
    }
  }

  // The hosts: refresh a transmitted packet as a new one from host `port`.
  inline void Refill(int port, rte_mbuf* m) {
    const unsigned k = next_flow[port]++ % kFlows;
    std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), tmpl[port][k].data(), kHdrLen);
  }

  // Tops up every rx ring to `n` packets in flight per port.
  bool Fill(unsigned n) {
    for (int p = 0; p < kPorts; p++) {
      for (unsigned i = inflight_per_port; i < n; i++) {
        rte_mbuf* m = rte_pktmbuf_alloc(dp->pool);
        if (!m || !rte_pktmbuf_append(m, kFrameLen)) return false;
        std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), tmpl[p][i % kFlows].data(), kFrameLen);
        if (rte_ring_enqueue(g_wire[p].rx, m) != 0) return false;
      }
    }
    inflight_per_port = std::max(inflight_per_port, n);
    return true;
  }
};

std::unique_ptr<Env> g_env;

// Ring ports net_ring_b0.. up to n (made once, kept for the process).
bool EnsureWire(int n, std::string* err) {
  for (; g_wired < n; g_wired++) {
    if (!harness::MakeRingWire("b" + std::to_string(g_wired), kWireRing, &g_wire[g_wired], err))
      return false;
  }
  return true;
}

Env* GetEnv(bool l2, std::string* err, const Scale& sc = {}) {
  if (g_env && g_env->l2 == l2 && g_env->sc == sc) return g_env.get();
  g_env.reset();
  if (sc.ports < kPorts || sc.ports > kMaxPorts || !EnsureWire(sc.ports, err)) {
    if (err->empty()) *err = "ports: expected 4 to " + std::to_string(kMaxPorts);
    return nullptr;
  }
  auto env = std::make_unique<Env>();
  env->l2 = l2;
  env->sc = sc;
  const std::string path = "/tmp/pfc_pipeline_bench_" + std::to_string(getpid()) + ".yaml";
  std::ofstream(path) << Yaml(l2, sc);
  config::SwitchConfig cfg;
  const bool ok = config::LoadConfig(path, &cfg, err);
  std::remove(path.c_str());
  if (!ok) return nullptr;
  // Extra routes, added to the loaded config (a million YAML entries would
  // only time the loader): /24s from 32.0.0.0 over the existing next hops.
  for (int i = 0; i < sc.routes && !l2; i++)
    cfg.routes.push_back({0x20000000u + (static_cast<uint32_t>(i) << 8), 24,
                          static_cast<uint16_t>(i % cfg.next_hops.size())});
  if (!sw::CreateStandalone(cfg, &env->dp, &env->sw, err)) return nullptr;
  env->w = stages::MakeWorkerCtx(*env->sw, 0);
  rte_rcu_qsbr_thread_register(env->dp->qsbr, 0);
  rte_rcu_qsbr_thread_online(env->dp->qsbr, 0);
  for (int p = 0; p < kPorts; p++)
    for (int k = 0; k < kFlows; k++) env->tmpl[p][k] = Template(p, k, l2);
  g_env = std::move(env);
  return g_env.get();
}

uint64_t Drops(const sw::Switch& rt) {
  uint64_t d = 0;
  for (const auto& s : rt.stats)
    for (int p = 0; p < kPorts; p++)
      for (int q = 0; q < kNumPrio; q++)
        for (int r = 0; r < kNumDropReasons; r++) d += s->prio[p][q].drops[r].Get();
  return d;
}

uint64_t TxPackets(const sw::Switch& rt) {
  uint64_t t = 0;
  for (const auto& s : rt.stats)
    for (int p = 0; p < kPorts; p++) t += s->port[p].tx_packets.Get();
  return t;
}

// The harness side of one round: everything transmitted goes back to the
// hosts' rx rings as fresh packets.
inline void HostsTurnAround(Env& env) {
  for (int p = 0; p < kPorts; p++) {
    rte_mbuf* pkts[64];
    const unsigned n =
        rte_ring_dequeue_burst(g_wire[p].tx, reinterpret_cast<void**>(pkts), 64, nullptr);
    for (unsigned i = 0; i < n; i++) env.Refill(p, pkts[i]);
    rte_ring_enqueue_burst(g_wire[p].rx, reinterpret_cast<void**>(pkts), n, nullptr);
  }
}

void RunPipeline(benchmark::State& state, bool l2, unsigned inflight, const Scale& sc = {}) {
  std::string err;
  Env* env = GetEnv(l2, &err, sc);
  if (!env || !env->Fill(inflight)) {
    state.SkipWithError(("setup failed: " + err).c_str());
    return;
  }
  sw::Switch& rt = *env->sw;
  const uint64_t drops0 = Drops(rt), tx0 = TxPackets(rt);
  // TSC split between the switch and the hosts: its ratio, applied to the
  // CPU time, gives the switch's own rate. A round takes a few microseconds;
  // one that took longer than kPreempted was interrupted (a shared machine)
  // and is left out of the split, since the interruption lands on one side.
  const uint64_t kPreempted = rte_get_tsc_hz() / 20000;  // 50 us
  uint64_t sw_cycles = 0, host_cycles = 0;
  for (auto _ : state) {
    Deadline ready = kNever;
    const uint64_t t0 = rte_rdtsc();
    benchmark::DoNotOptimize(stages::WorkerRound(env->w, &ready));
    rte_rcu_qsbr_quiescent(rt.dp.qsbr, 0);
    const uint64_t t1 = rte_rdtsc();
    HostsTurnAround(*env);
    const uint64_t t2 = rte_rdtsc();
    if (t2 - t0 < kPreempted) {
      host_cycles += t2 - t1;
      sw_cycles += t1 - t0;
    }
  }
  const uint64_t sent = TxPackets(rt) - tx0;
  const double share = static_cast<double>(sw_cycles) /
                       static_cast<double>(std::max<uint64_t>(sw_cycles + host_cycles, 1));
  state.SetItemsProcessed(static_cast<int64_t>(sent));
  // Rates are per CPU second (Google Benchmark's default for kIsRate).
  state.counters["Mpps"] =
      benchmark::Counter(static_cast<double>(sent) / 1e6, benchmark::Counter::kIsRate);
  state.counters["switch_Mpps"] =
      benchmark::Counter(static_cast<double>(sent) / 1e6 / share, benchmark::Counter::kIsRate);
  state.counters["switch_share"] = share;
  // Everything this switch has forwarded since it was built, over every run
  // Google Benchmark made: bench/cost/table.sh divides the instructions of
  // all WorkerRound calls by it.
  state.counters["tx_total"] = static_cast<double>(TxPackets(rt));
  state.counters["pkts_per_round"] =
      static_cast<double>(sent) /
      static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
  if (Drops(rt) != drops0)
    state.SkipWithError("the switch dropped packets: the benchmark only measures forwarding");
}

void BM_Pipeline(benchmark::State& state) {
  RunPipeline(state, false, static_cast<unsigned>(state.range(0)));
}
void BM_Scale(benchmark::State& state) {
  Scale sc;
  sc.ports = static_cast<int>(state.range(0));
  sc.rules = static_cast<int>(state.range(1));
  sc.routes = static_cast<int>(state.range(2));
  // 64 packets in flight per busy port, as BM_Pipeline/64.
  state.SetLabel("ports=" + std::to_string(sc.ports) + " rules=" + std::to_string(sc.rules) +
                 " routes=" + std::to_string(sc.routes));
  RunPipeline(state, false, 64, sc);
}
void BM_PipelineL2(benchmark::State& state) {
  RunPipeline(state, true, static_cast<unsigned>(state.range(0)));
}

// The hosts alone (ring moves + header refresh, no switch): the harness's
// share of BM_Pipeline. Packets go rx ring -> tx ring -> back.
void BM_HostsOnly(benchmark::State& state) {
  std::string err;
  Env* env = GetEnv(false, &err);
  if (!env || !env->Fill(static_cast<unsigned>(state.range(0)))) {
    state.SkipWithError(("setup failed: " + err).c_str());
    return;
  }
  uint64_t moved = 0;
  for (auto _ : state) {
    for (int p = 0; p < kPorts; p++) {
      rte_mbuf* pkts[32];
      const unsigned n =
          rte_ring_dequeue_burst(g_wire[p].rx, reinterpret_cast<void**>(pkts), 32, nullptr);
      rte_ring_enqueue_burst(g_wire[p].tx, reinterpret_cast<void**>(pkts), n, nullptr);
      moved += n;
    }
    HostsTurnAround(*env);
  }
  state.SetItemsProcessed(static_cast<int64_t>(moved));
  state.counters["Mpps"] =
      benchmark::Counter(static_cast<double>(moved) / 1e6, benchmark::Counter::kIsRate);
}

BENCHMARK(BM_Pipeline)->Arg(1)->Arg(64)->Arg(256)->MinTime(2.0)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_HostsOnly)->Arg(64)->MinTime(1.0);
BENCHMARK(BM_PipelineL2)->Arg(64)->MinTime(2.0);
// The curve points of bench/cost/table_scale.sh: each dimension alone.
BENCHMARK(BM_Scale)
    ->Args({4, 0, 0})
    ->Args({16, 0, 0})
    ->Args({32, 0, 0})
    ->Args({32, 10, 0})
    ->Args({32, 1000, 0})
    ->Args({32, 10000, 0})
    ->Args({4, 0, 10})
    ->Args({4, 0, 10000})
    ->Args({4, 0, 1000000})
    ->MinTime(1.0);

bool CreateWire() {
  std::string err;
  if (!EnsureWire(kPorts, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return false;
  }
  return true;
}

}  // namespace
}  // namespace pfc

int main(int argc, char** argv) {
  int split = argc;
  for (int i = 1; i < argc; i++)
    if (std::strcmp(argv[i], "--") == 0) {
      split = i;
      break;
    }
  std::vector<char*> bargv(argv, argv + split);
  int bargc = static_cast<int>(bargv.size());
  benchmark::Initialize(&bargc, bargv.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, bargv.data())) return 1;

  std::vector<std::string> eal = {argv[0]};
  if (split < argc) {
    for (int i = split + 1; i < argc; i++) eal.emplace_back(argv[i]);
  } else {
    eal.insert(eal.end(),
               {"--no-huge", "--no-pci", "--no-shconf", "-m", "512", "-l", "0", "--no-telemetry",
                "--log-level=*:warning", "--file-prefix=pfcbench" + std::to_string(getpid())});
  }
  std::vector<char*> eargv;
  for (auto& a : eal) eargv.push_back(a.data());
  if (rte_eal_init(static_cast<int>(eargv.size()), eargv.data()) < 0) {
    std::fprintf(stderr, "pipeline_bench: EAL init failed: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  if (!pfc::CreateWire()) {
    std::fprintf(stderr, "pipeline_bench: cannot create the ring ports: %s\n",
                 rte_strerror(rte_errno));
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  pfc::g_env.reset();
  rte_eal_cleanup();
  return 0;
}
