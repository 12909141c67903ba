// SPDX-License-Identifier: BSD-3-Clause
// pfcswitch: EAL arguments first, then `--`, then the switch's own options.
//   pfcswitch -l 0,1 --no-pci --vdev net_af_packet0,iface=veth0 ... -- --config sw.yaml
//   pfcswitch --check-config sw.yaml         (validate only; no EAL needed)
// The main thread loads and validates the config before EAL starts, builds
// the runtime, launches one worker per worker lcore, then waits for SIGINT or
// SIGTERM and prints the final counters.
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "dataplane/app/instance_lock.h"
#include "dataplane/app/runtime.h"
#include "dataplane/app/stats_report.h"
#include "dataplane/app/telemetry.h"
#include "dataplane/config/config.h"
#include "dataplane/stages/worker.h"

namespace {

std::atomic<bool> g_signalled{false};
void OnSignal(int) { g_signalled.store(true); }

std::string Summary(const pfc::SwitchConfig& c) {
  std::string lossless;
  for (int p = 0; p < pfc::kNumPrio; p++)
    if (c.tag_map.IsLossless(p)) lossless += std::string(lossless.empty() ? "" : ",") + std::to_string(p);
  return std::to_string(c.ports.size()) + " ports, " + std::to_string(c.routes.size()) + " routes, " +
         std::to_string(c.rewrite.rules.size()) + " rewrite rules, lossless priorities [" + lossless +
         "], buffer " + std::to_string(c.buffer.total_bytes) + " bytes";
}

}  // namespace

int main(int argc, char** argv) {
  // Split EAL arguments from ours at the first "--".
  int split = -1;
  for (int i = 1; i < argc; i++)
    if (std::string(argv[i]) == "--") { split = i; break; }
  std::vector<char*> eal_argv(argv, argv + (split < 0 ? 1 : split));
  std::vector<std::string> app_args;
  for (int i = (split < 0 ? 1 : split + 1); i < argc; i++) app_args.emplace_back(argv[i]);

  CLI::App app{"pfcswitch: a DPDK switch for lossless Ethernet (PFC, Tagger)"};
  std::string config_path, check_path, stats_json;
  app.add_option("-c,--config", config_path, "switch config (YAML)")->check(CLI::ExistingFile);
  app.add_option("--check-config", check_path, "validate a config and exit");
  app.add_option("--stats-json", stats_json, "write the final counters to this file at exit");
  std::reverse(app_args.begin(), app_args.end());
  try {
    app.parse(app_args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  pfc::SwitchConfig cfg;
  std::string err;
  if (!check_path.empty()) {
    if (!pfc::LoadConfig(check_path, &cfg, &err)) {
      std::fprintf(stderr, "pfcswitch: config error: %s\n", err.c_str());
      return 2;
    }
    std::printf("pfcswitch: config OK: %s: %s\n", check_path.c_str(), Summary(cfg).c_str());
    return 0;
  }
  if (config_path.empty()) {
    std::fprintf(stderr, "pfcswitch: --config FILE is required (after EAL arguments and --)\n%s",
                 app.help().c_str());
    return 2;
  }
  if (!pfc::LoadConfig(config_path, &cfg, &err)) {
    std::fprintf(stderr, "pfcswitch: config error: %s\n", err.c_str());
    return 2;
  }

  // Before EAL: refuse a file prefix, telemetry socket or interface another
  // instance uses (instance_lock.h); held until exit.
  auto instance_locks = pfc::LockInstance(eal_argv, cfg, &err);
  if (!instance_locks) {
    std::fprintf(stderr, "pfcswitch: %s\n", err.c_str());
    return 1;
  }

  int eal_argc = static_cast<int>(eal_argv.size());
  if (rte_eal_init(eal_argc, eal_argv.data()) < 0) {
    std::fprintf(stderr, "pfcswitch: EAL init failed: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  if (rte_lcore_count() < cfg.workers + 1) {
    std::fprintf(stderr, "pfcswitch: switch.workers=%u needs %u lcores (EAL -l 0-%u), EAL gave %u\n",
                 cfg.workers, cfg.workers + 1, cfg.workers, rte_lcore_count());
    rte_eal_cleanup();
    return 2;
  }
  auto rt = pfc::CreateRuntime(cfg, &err);
  if (!rt) {
    std::fprintf(stderr, "pfcswitch: %s: %s\n", config_path.c_str(), err.c_str());
    rte_eal_cleanup();
    return 1;
  }
  pfc::RegisterTelemetry(rt.get());
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);

  std::vector<pfc::WorkerCtx> workers(cfg.workers);
  for (unsigned w = 0; w < cfg.workers; w++) {
    workers[w].rt = rt.get();
    workers[w].id = w;
    workers[w].st = rt->stats[w].get();
    for (pfc::PortId p = 0; p < rt->ports.size(); p++)
      if (rt->ports[p].owner == w) workers[w].ports.push_back(p);
  }
  unsigned w = 0;
  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) {
    if (w == cfg.workers) break;
    rte_eal_remote_launch(pfc::WorkerMain, &workers[w++], lcore);
  }
  std::printf("pfcswitch: forwarding on %zu ports with %u worker(s): %s\n", rt->ports.size(), cfg.workers,
              Summary(cfg).c_str());
  std::fflush(stdout);

  while (!g_signalled.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  rt->stop.store(true);
  rte_eal_mp_wait_lcore();

  const std::string report = pfc::StatsJson(*rt).dump();
  std::printf("pfcswitch: stats %s\n", report.c_str());
  if (!stats_json.empty()) std::ofstream(stats_json) << report << "\n";
  std::fflush(stdout);
  rt.reset();
  rte_eal_cleanup();
  return 0;
}
