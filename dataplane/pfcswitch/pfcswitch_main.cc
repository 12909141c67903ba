// SPDX-License-Identifier: BSD-3-Clause
// pfcswitch: EAL arguments first, then `--`, then the switch's own options.
//   pfcswitch -l 0,1 --no-pci --vdev net_af_packet0,iface=veth0 ... -- --config sw.yaml
//   pfcswitch --check-config sw.yaml         (validate only; no EAL needed)
// --check-config also prints the EAL memory and the --vdev devices the config
// needs (config/eal_needs.h), and fails when a given memory is too small.
// The main thread loads and validates the config before EAL starts, builds
// the dataplane and its one switch, launches one worker per worker lcore, then waits for SIGINT or
// SIGTERM and prints the final counters.
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_pdump.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/config/eal_needs.h"
#include "dataplane/pfcswitch/capture.h"
#include "dataplane/pfcswitch/instance_lock.h"
#include "dataplane/pfcswitch/stats_report.h"
#include "dataplane/pfcswitch/telemetry.h"
#include "dataplane/stages/worker.h"
#include "dataplane/switch/dataplane.h"
#include "dataplane/switch/link_watch.h"
#include "dataplane/switch/log.h"
#include "dataplane/switch/switch.h"
#include "pfc_version.h"

namespace {

// The exit's one line: what a user checks first (traffic, loss, pause);
// every counter goes to --stats-json (a 15 KB line on every exit is noise).
std::string ExitSummary(const nlohmann::json& st) {
  uint64_t rx = 0, tx = 0, pfc_rx = 0, pfc_tx = 0, lossless_drops = 0;
  for (const auto& p : st["ports"]) {
    rx += p["rx_packets"].get<uint64_t>();
    tx += p["tx_packets"].get<uint64_t>();
    pfc_rx += p["pfc_frames_rx"].get<uint64_t>();
    pfc_tx += p["pfc_frames_tx"].get<uint64_t>();
    for (const auto& q : p["prio"]) {
      const auto& l = q["lossless"];
      if (l.is_boolean() ? l.get<bool>() : l.get<uint64_t>() != 0)
        lossless_drops += q["drops_total"].get<uint64_t>();
    }
  }
  char b[256];
  std::snprintf(b, sizeof b,
                "rx %llu tx %llu packets, dropped %llu (lossless %llu), PFC frames sent %llu "
                "(XOFF, refresh or XON) received %llu",
                (unsigned long long)rx, (unsigned long long)tx,
                (unsigned long long)st["drops_total"].get<uint64_t>(),
                (unsigned long long)lossless_drops, (unsigned long long)pfc_tx,
                (unsigned long long)pfc_rx);
  return b;
}

std::atomic<bool> g_signalled{false};
void OnSignal(int) { g_signalled.store(true); }

// DPDK's EAL options come first and end at `--`; without it every argument
// reaches our parser, which does not know -l or --vdev.
constexpr const char* kUsage =
    "Usage:\n"
    "  pfcswitch [EAL options] -- --config FILE [--stats-json PATH]\n"
    "  pfcswitch [EAL options --] --check-config FILE [--memory-mb MB]\n"
    "EAL options (DPDK's own, all before --): -l CORES (switch.workers + 1 lcores),\n"
    "  --vdev DEVICE,ARGS for each virtual port, -m MB, --no-huge, --no-pci,\n"
    "  --file-prefix NAME (names the telemetry socket), --no-shconf (no shared runtime\n"
    "  config: no secondary process such as dpdk-dumpcap attaches), --log-level ...\n"
    "Capture with dpdk-dumpcap --file-prefix=NAME -i DEVICE needs hugepages and the\n"
    "  shared config: no --no-huge, --no-shconf or --in-memory (dataplane/pfcswitch/capture.h).\n"
    "Example:\n"
    "  pfcswitch -l 0,1 --no-huge -m 256 --no-pci --file-prefix sw1 \\\n"
    "      --vdev net_af_packet0,iface=veth0 --vdev net_af_packet1,iface=veth1 \\\n"
    "      -- --config sw.yaml\n"
    "  pfcswitch --no-huge -m 256 -- --check-config sw.yaml   (no EAL started)\n";

// Which memory a check or a start can count on: --memory-mb, else the EAL
// -m / --socket-mem, else --no-huge's default of 64 MB. 0 = unknown
// (hugepages without -m grow on demand).
uint64_t MemoryLimit(const pfc::config::EalMemoryArgs& ea, int64_t memory_mb, std::string* source) {
  if (memory_mb >= 0) {
    *source = "--memory-mb";
    return static_cast<uint64_t>(memory_mb);
  }
  if (ea.mem_mb >= 0) {
    *source = "EAL -m";
    return static_cast<uint64_t>(ea.mem_mb);
  }
  if (ea.no_huge) {
    *source = "--no-huge without -m (DPDK's default)";
    return 64;
  }
  return 0;
}

std::string Summary(const pfc::config::SwitchConfig& c) {
  std::string lossless;
  for (int p = 0; p < pfc::kNumPrio; p++)
    if (c.tag_map.IsLossless(p))
      lossless += std::string(lossless.empty() ? "" : ",") + std::to_string(p);
  return std::to_string(c.ports.size()) + " ports, " + std::to_string(c.routes.size()) +
         " routes, " + std::to_string(c.rewrite.rules.size()) +
         " rewrite rules, lossless priorities [" + lossless + "], buffer " +
         std::to_string(c.buffer.total_bytes) + " bytes";
}

}  // namespace

int main(int argc, char** argv) {
  // Split EAL arguments from ours at the first "--".
  int split = -1;
  for (int i = 1; i < argc; i++)
    if (std::string(argv[i]) == "--") {
      split = i;
      break;
    }
  std::vector<char*> eal_argv(argv, argv + (split < 0 ? 1 : split));
  std::vector<std::string> app_args;
  for (int i = (split < 0 ? 1 : split + 1); i < argc; i++) app_args.emplace_back(argv[i]);

  std::vector<std::string> eal_args(eal_argv.begin() + 1, eal_argv.end());

  CLI::App app{"pfcswitch: a DPDK switch for lossless Ethernet (PFC, Tagger)",
               "pfcswitch [EAL options] --"};
  app.footer(kUsage);
  std::string config_path, check_path, stats_json;
  int64_t memory_mb = -1;
  app.add_option("-c,--config", config_path, "switch config (YAML)")->check(CLI::ExistingFile);
  app.add_option("--check-config", check_path,
                 "validate a config, print what it needs from EAL, and exit");
  app.add_option("--memory-mb", memory_mb,
                 "with --check-config: fail unless the config fits in this EAL memory")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--stats-json", stats_json,
                 "write every counter to this file at exit (- : to stdout, as the line "
                 "'pfcswitch: stats {...}'); the exit's one-line summary is printed either way");
  app.set_version_flag("--version", std::string("pfcswitch ") + PFC_VERSION);
  std::reverse(app_args.begin(), app_args.end());
  try {
    app.parse(app_args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 lists extra arguments from the reversed vector; name them in order.
    std::string what = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
      what = "arguments not expected here:";
      for (const auto& a : app.remaining()) what += " " + a;
    }
    std::fprintf(stderr, "pfcswitch: %s\n", what.c_str());
    if (split < 0) std::fprintf(stderr, "pfcswitch: EAL options go before a `--` that ends them\n");
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }

  pfc::config::SwitchConfig cfg;
  std::string err;
  const pfc::config::EalMemoryArgs ea = pfc::config::ParseEalMemoryArgs(eal_args);
  if (!ea.ok) {
    std::fprintf(stderr,
                 "pfcswitch: EAL %s: expected megabytes, such as -m 256 or --socket-mem 128,128\n",
                 ea.bad.c_str());
    return 2;
  }
  std::string mem_source;
  const uint64_t mem_limit = MemoryLimit(ea, memory_mb, &mem_source);
  if (!check_path.empty()) {
    if (!pfc::config::LoadConfig(check_path, &cfg, &err)) {
      std::fprintf(stderr, "pfcswitch: config error: %s\n", err.c_str());
      return 2;
    }
    // Without EAL options the check assumes --no-huge, the costlier case.
    pfc::config::EalNeedsInput need;
    need.hugepages = !eal_args.empty() && !ea.no_huge;
    const pfc::config::MemoryPlan plan = pfc::config::PlanMemory(cfg, need);
    if (mem_limit) {
      err = pfc::config::CheckMemory(plan, mem_limit, mem_source);
      if (!err.empty()) {
        std::fprintf(stderr, "pfcswitch: config error: %s: %s\n", check_path.c_str(), err.c_str());
        return 2;
      }
    }
    std::printf("pfcswitch: config OK: %s: %s\n", check_path.c_str(), Summary(cfg).c_str());
    std::printf("pfcswitch: memory: %s\n", plan.Describe().c_str());
    std::string vdevs;
    for (const auto& d : pfc::config::ExpectedVdevs(cfg)) vdevs += (vdevs.empty() ? "" : ", ") + d;
    if (!vdevs.empty()) std::printf("pfcswitch: expects EAL --vdev for: %s\n", vdevs.c_str());
    return 0;
  }
  if (config_path.empty()) {
    std::fprintf(stderr, "pfcswitch: --config FILE is required (after EAL options and --)\n%s",
                 kUsage);
    return 2;
  }
  if (memory_mb >= 0) {
    std::fprintf(
        stderr,
        "pfcswitch: --memory-mb goes with --check-config; give EAL -m to a running switch\n");
    return 2;
  }
  if (!pfc::config::LoadConfig(config_path, &cfg, &err)) {
    std::fprintf(stderr, "pfcswitch: config error: %s\n", err.c_str());
    return 2;
  }
  // Refuse before EAL takes the memory: a bare mempool failure later says
  // less. The pool creation itself gives the same message if this passes.
  if (mem_limit) {
    pfc::config::EalNeedsInput need;
    need.hugepages = !ea.no_huge;
    err = pfc::config::CheckMemory(pfc::config::PlanMemory(cfg, need), mem_limit, mem_source);
    if (!err.empty()) {
      std::fprintf(stderr, "pfcswitch: config error: %s: %s\n", config_path.c_str(), err.c_str());
      return 2;
    }
  }

  // Before EAL: refuse a file prefix, telemetry socket or interface another
  // instance uses (instance_lock.h); held until exit.
  auto instance_locks = pfc::pfcswitch::LockInstance(eal_argv, cfg, &err);
  if (!instance_locks) {
    std::fprintf(stderr, "pfcswitch: %s\n", err.c_str());
    return 1;
  }

  // Telemetry's "No legacy callbacks, legacy socket not created" on every
  // start is noise: its level goes to error first, so that a --log-level of
  // the caller's, parsed after it, still wins.
  char log_opt[] = "--log-level", log_telemetry[] = "lib.telemetry:error";
  eal_argv.insert(eal_argv.begin() + 1, {log_opt, log_telemetry});
  int eal_argc = static_cast<int>(eal_argv.size());
  if (rte_eal_init(eal_argc, eal_argv.data()) < 0) {
    std::fprintf(stderr, "pfcswitch: EAL init failed: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  if (rte_lcore_count() < cfg.workers + 1) {
    std::fprintf(stderr,
                 "pfcswitch: switch.workers=%u needs %u lcores (EAL -l 0-%u), EAL gave %u\n",
                 cfg.workers, cfg.workers + 1, cfg.workers, rte_lcore_count());
    rte_eal_cleanup();
    return 2;
  }
  std::unique_ptr<pfc::sw::Dataplane> dp;
  std::unique_ptr<pfc::sw::Switch> sw;
  if (!pfc::sw::CreateStandalone(cfg, &dp, &sw, &err)) {
    std::fprintf(stderr, "pfcswitch: %s: %s\n", config_path.c_str(), err.c_str());
    rte_eal_cleanup();
    return 1;
  }
  pfc::pfcswitch::RegisterTelemetry({sw.get()});
  // rte_pdump answers dpdk-dumpcap / dpdk-pdump; it only copies packets
  // while one of them has asked for a port.
  std::string no_capture = pfc::pfcswitch::CaptureUnavailableReason(eal_args);
  if (no_capture.empty() && rte_pdump_init() < 0)
    no_capture = std::string("rte_pdump_init failed: ") + rte_strerror(rte_errno);
  if (no_capture.empty())
    std::printf("pfcswitch: capture ready: dpdk-dumpcap --file-prefix=%s -i DEVICE\n",
                pfc::pfcswitch::EalFilePrefix(eal_args).c_str());
  else
    std::printf("pfcswitch: no capture by dpdk-dumpcap: %s\n", no_capture.c_str());
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);

  std::vector<pfc::stages::Worker> workers(cfg.workers);
  for (unsigned w = 0; w < cfg.workers; w++) {
    workers[w].dp = dp.get();
    workers[w].id = w;
    workers[w].slots.push_back(pfc::stages::MakeWorkerCtx(*sw, w));
  }
  unsigned w = 0;
  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) {
    if (w == cfg.workers) break;
    rte_eal_remote_launch(pfc::stages::WorkerMain, &workers[w++], lcore);
  }
  std::printf("pfcswitch: forwarding on %zu ports with %u worker(s): %s\n", sw->ports.size(),
              cfg.workers, Summary(cfg).c_str());
  std::fflush(stdout);

  // The control thread prints the workers' events (switch/log.h) and
  // watches the device ports' links (switch/link_watch.h).
  pfc::sw::EventPrinter events;
  pfc::sw::LinkWatch links(*sw);
  while (!g_signalled.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    events.Print(*sw);
    for (const std::string& line : links.Poll()) std::printf("pfcswitch: %s\n", line.c_str());
    std::fflush(stdout);
  }
  dp->stop.store(true);
  rte_eal_mp_wait_lcore();
  events.Print(*sw);

  const nlohmann::json stats = pfc::pfcswitch::StatsJson(*sw);
  std::printf("pfcswitch: exit: %s\n", ExitSummary(stats).c_str());
  if (stats_json == "-") {
    std::printf("pfcswitch: stats %s\n", stats.dump().c_str());
  } else if (!stats_json.empty()) {
    std::ofstream f(stats_json);
    f << stats.dump() << "\n";
    f.close();
    if (f)
      std::printf("pfcswitch: every counter in %s\n", stats_json.c_str());
    else
      std::fprintf(stderr, "pfcswitch: --stats-json %s: cannot write the file\n",
                   stats_json.c_str());
  }
  std::fflush(stdout);
  // Every mbuf home and every device closed (pcap frees its cached mbufs on
  // close) before the pool goes.
  if (no_capture.empty()) rte_pdump_uninit();
  sw.reset();
  uint16_t pid;
  RTE_ETH_FOREACH_DEV(pid) rte_eth_dev_close(pid);
  // Whatever is still out now is held by a device that keeps mbufs past its
  // close (net_ring leaves them in its rings) or was lost; one a driver
  // freed later would go into a freed pool (tests/system/test_pcap_exit.py
  // checks that pcap's cached mbufs came home).
  if (const unsigned out = rte_mempool_in_use_count(dp->pool))
    std::fprintf(stderr,
                 "pfcswitch: %u mbufs not back in the pool at exit (held by a device or lost)\n",
                 out);
  dp.reset();
  rte_eal_cleanup();
  return 0;
}
