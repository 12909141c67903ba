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
#include <optional>
#include <thread>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/config/eal_needs.h"
#include "dataplane/pfcswitch/capture.h"
#include "dataplane/pfcswitch/instance_lock.h"
#include "dataplane/pfcswitch/pfcswitch_exit.h"
#include "dataplane/pfcswitch/telemetry.h"
#include "dataplane/stages/worker.h"
#include "dataplane/switch/dataplane.h"
#include "dataplane/switch/link_watch.h"
#include "dataplane/switch/log.h"
#include "dataplane/switch/switch.h"
#include "pfc_version.h"

namespace {

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

// The command line: EAL's arguments, before the first `--`, and ours.
struct Options {
  std::vector<char*> eal_argv;        // argv[0] and EAL's arguments, for rte_eal_init
  std::vector<std::string> eal_args;  // EAL's arguments alone
  std::string config_path, check_path, stats_json;
  int64_t memory_mb = -1;
};

// The memory a check or a start counts on (MemoryLimit).
struct Memory {
  pfc::config::EalMemoryArgs ea;
  uint64_t limit = 0;
  std::string source;
};

// The running switch, its parts in the order they are built: what Cleanup
// leaves goes in reverse at exit, the instance locks last.
struct Instance {
  pfc::config::SwitchConfig cfg;
  std::unique_ptr<pfc::pfcswitch::InstanceLocks> locks;
  std::unique_ptr<pfc::sw::Dataplane> dp;
  std::unique_ptr<pfc::sw::Switch> sw;
  std::string no_capture;  // why dpdk-dumpcap cannot attach; empty when rte_pdump runs
  std::vector<pfc::stages::Worker> workers;
};

// The steps below return nothing to go on, else main's exit status (each
// said why first).

std::optional<int> ParseCommandLine(int argc, char** argv, Options* opt) {
  // Split EAL arguments from ours at the first "--".
  int split = -1;
  for (int i = 1; i < argc; i++)
    if (std::string(argv[i]) == "--") {
      split = i;
      break;
    }
  opt->eal_argv.assign(argv, argv + (split < 0 ? 1 : split));
  std::vector<std::string> app_args;
  for (int i = (split < 0 ? 1 : split + 1); i < argc; i++) app_args.emplace_back(argv[i]);

  opt->eal_args.assign(opt->eal_argv.begin() + 1, opt->eal_argv.end());

  CLI::App app{"pfcswitch: a DPDK switch for lossless Ethernet (PFC, Tagger)",
               "pfcswitch [EAL options] --"};
  app.footer(kUsage);
  app.add_option("-c,--config", opt->config_path, "switch config (YAML)")->check(CLI::ExistingFile);
  app.add_option("--check-config", opt->check_path,
                 "validate a config, print what it needs from EAL, and exit");
  app.add_option("--memory-mb", opt->memory_mb,
                 "with --check-config: fail unless the config fits in this EAL memory")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--stats-json", opt->stats_json,
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
  return std::nullopt;
}

std::optional<int> CountMemory(const Options& opt, Memory* mem) {
  mem->ea = pfc::config::ParseEalMemoryArgs(opt.eal_args);
  if (!mem->ea.ok) {
    std::fprintf(stderr,
                 "pfcswitch: EAL %s: expected megabytes, such as -m 256 or --socket-mem 128,128\n",
                 mem->ea.bad.c_str());
    return 2;
  }
  mem->limit = MemoryLimit(mem->ea, opt.memory_mb, &mem->source);
  return std::nullopt;
}

// --check-config: returns the exit status.
int CheckConfig(const Options& opt, const Memory& mem) {
  pfc::config::SwitchConfig cfg;
  std::string err;
  if (!pfc::config::LoadConfig(opt.check_path, &cfg, &err)) {
    std::fprintf(stderr, "pfcswitch: config error: %s\n", err.c_str());
    return 2;
  }
  // Without EAL options the check assumes --no-huge, the costlier case.
  pfc::config::EalNeedsInput need;
  need.hugepages = !opt.eal_args.empty() && !mem.ea.no_huge;
  const pfc::config::MemoryPlan plan = pfc::config::PlanMemory(cfg, need);
  if (mem.limit) {
    err = pfc::config::CheckMemory(plan, mem.limit, mem.source);
    if (!err.empty()) {
      std::fprintf(stderr, "pfcswitch: config error: %s: %s\n", opt.check_path.c_str(),
                   err.c_str());
      return 2;
    }
  }
  std::printf("pfcswitch: config OK: %s: %s\n", opt.check_path.c_str(), Summary(cfg).c_str());
  std::printf("pfcswitch: memory: %s\n", plan.Describe().c_str());
  std::string vdevs;
  for (const auto& d : pfc::config::ExpectedVdevs(cfg)) vdevs += (vdevs.empty() ? "" : ", ") + d;
  if (!vdevs.empty()) std::printf("pfcswitch: expects EAL --vdev for: %s\n", vdevs.c_str());
  return 0;
}

std::optional<int> LoadAndValidateConfig(const Options& opt, const Memory& mem,
                                         pfc::config::SwitchConfig* cfg) {
  if (opt.config_path.empty()) {
    std::fprintf(stderr, "pfcswitch: --config FILE is required (after EAL options and --)\n%s",
                 kUsage);
    return 2;
  }
  if (opt.memory_mb >= 0) {
    std::fprintf(
        stderr,
        "pfcswitch: --memory-mb goes with --check-config; give EAL -m to a running switch\n");
    return 2;
  }
  std::string err;
  if (!pfc::config::LoadConfig(opt.config_path, cfg, &err)) {
    std::fprintf(stderr, "pfcswitch: config error: %s\n", err.c_str());
    return 2;
  }
  // Refuse before EAL takes the memory: a bare mempool failure later says
  // less. The pool creation itself gives the same message if this passes.
  if (mem.limit) {
    pfc::config::EalNeedsInput need;
    need.hugepages = !mem.ea.no_huge;
    err = pfc::config::CheckMemory(pfc::config::PlanMemory(*cfg, need), mem.limit, mem.source);
    if (!err.empty()) {
      std::fprintf(stderr, "pfcswitch: config error: %s: %s\n", opt.config_path.c_str(),
                   err.c_str());
      return 2;
    }
  }
  return std::nullopt;
}

// Before EAL: refuse a file prefix, telemetry socket or interface another
// instance uses (instance_lock.h); held until exit.
std::optional<int> TakeInstanceLocks(const Options& opt, Instance* in) {
  std::string err;
  in->locks = pfc::pfcswitch::LockInstance(opt.eal_argv, in->cfg, &err);
  if (!in->locks) {
    std::fprintf(stderr, "pfcswitch: %s\n", err.c_str());
    return 1;
  }
  return std::nullopt;
}

std::optional<int> InitEal(std::vector<char*>* eal_argv, const pfc::config::SwitchConfig& cfg) {
  // Telemetry's "No legacy callbacks, legacy socket not created" on every
  // start is noise: its level goes to error first, so that a --log-level of
  // the caller's, parsed after it, still wins. Static: EAL's argv, kept
  // until exit, points to them.
  static char log_opt[] = "--log-level", log_telemetry[] = "lib.telemetry:error";
  eal_argv->insert(eal_argv->begin() + 1, {log_opt, log_telemetry});
  int eal_argc = static_cast<int>(eal_argv->size());
  if (rte_eal_init(eal_argc, eal_argv->data()) < 0) {
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
  return std::nullopt;
}

// The dataplane and its one switch, answering telemetry.
std::optional<int> CreateSwitch(const Options& opt, Instance* in) {
  std::string err;
  if (!pfc::sw::CreateStandalone(in->cfg, &in->dp, &in->sw, &err)) {
    std::fprintf(stderr, "pfcswitch: %s: %s\n", opt.config_path.c_str(), err.c_str());
    rte_eal_cleanup();
    return 1;
  }
  pfc::pfcswitch::RegisterTelemetry({in->sw.get()});
  return std::nullopt;
}

// rte_pdump answers dpdk-dumpcap / dpdk-pdump; it only copies packets
// while one of them has asked for a port.
void StartCapture(const Options& opt, Instance* in) {
  in->no_capture = pfc::pfcswitch::CaptureUnavailableReason(opt.eal_args);
  if (in->no_capture.empty() && rte_pdump_init() < 0)
    in->no_capture = std::string("rte_pdump_init failed: ") + rte_strerror(rte_errno);
  if (in->no_capture.empty())
    std::printf("pfcswitch: capture ready: dpdk-dumpcap --file-prefix=%s -i DEVICE\n",
                pfc::pfcswitch::EalFilePrefix(opt.eal_args).c_str());
  else
    std::printf("pfcswitch: no capture by dpdk-dumpcap: %s\n", in->no_capture.c_str());
}

void CatchStopSignals() {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
}

// One worker per worker lcore, each running the switch.
void StartWorkers(Instance* in) {
  const pfc::config::SwitchConfig& cfg = in->cfg;
  in->workers.resize(cfg.workers);
  for (unsigned w = 0; w < cfg.workers; w++) {
    in->workers[w].dp = in->dp.get();
    in->workers[w].id = w;
    in->workers[w].slots.push_back(pfc::stages::MakeWorkerCtx(*in->sw, w));
  }
  unsigned w = 0;
  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) {
    if (w == cfg.workers) break;
    rte_eal_remote_launch(pfc::stages::WorkerMain, &in->workers[w++], lcore);
  }
  std::printf("pfcswitch: forwarding on %zu ports with %u worker(s): %s\n", in->sw->ports.size(),
              cfg.workers, Summary(cfg).c_str());
  std::fflush(stdout);
}

// Until SIGINT or SIGTERM; then the workers stop, and their last events
// are printed.
void RunUntilStopped(const Instance& in) {
  pfc::sw::Switch& sw = *in.sw;
  // The control thread prints the workers' events (switch/log.h) and
  // watches the device ports' links (switch/link_watch.h).
  pfc::sw::EventPrinter events;
  pfc::sw::LinkWatch links(sw);
  while (!g_signalled.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    events.Print(sw);
    for (const std::string& line : links.Poll()) std::printf("pfcswitch: %s\n", line.c_str());
    std::fflush(stdout);
  }
  in.dp->stop.store(true);
  rte_eal_mp_wait_lcore();
  events.Print(sw);
}

// After the workers have stopped.
void Cleanup(Instance* in) {
  // Every mbuf home and every device closed (pcap frees its cached mbufs on
  // close) before the pool goes.
  if (in->no_capture.empty()) rte_pdump_uninit();
  in->sw.reset();
  uint16_t pid;
  RTE_ETH_FOREACH_DEV(pid) rte_eth_dev_close(pid);
  // Whatever is still out now is held by a device that keeps mbufs past its
  // close (net_ring leaves them in its rings) or was lost; one a driver
  // freed later would go into a freed pool (tests/system/test_pcap_exit.py
  // checks that pcap's cached mbufs came home).
  if (const unsigned out = rte_mempool_in_use_count(in->dp->pool))
    std::fprintf(stderr,
                 "pfcswitch: %u mbufs not back in the pool at exit (held by a device or lost)\n",
                 out);
  in->dp.reset();
  rte_eal_cleanup();
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (const auto rc = ParseCommandLine(argc, argv, &opt)) return *rc;
  Memory mem;
  if (const auto rc = CountMemory(opt, &mem)) return *rc;
  if (!opt.check_path.empty()) return CheckConfig(opt, mem);
  Instance in;
  if (const auto rc = LoadAndValidateConfig(opt, mem, &in.cfg)) return *rc;
  if (const auto rc = TakeInstanceLocks(opt, &in)) return *rc;
  if (const auto rc = InitEal(&opt.eal_argv, in.cfg)) return *rc;
  if (const auto rc = CreateSwitch(opt, &in)) return *rc;
  StartCapture(opt, &in);
  CatchStopSignals();
  StartWorkers(&in);
  RunUntilStopped(in);
  pfc::pfcswitch::ReportAtExit(*in.sw, opt.stats_json);
  Cleanup(&in);
  return 0;
}
