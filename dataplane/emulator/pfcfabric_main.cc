// SPDX-License-Identifier: BSD-3-Clause
// pfcfabric: a lossless fabric of pfcswitch switches in one process.
//   pfcfabric --fabric fab.yaml                  (EAL options chosen for you)
//   pfcfabric [EAL options] -- --fabric fab.yaml [--out DIR] [--here S1,..] [--check]
//                                                [--threads N] [--plot FILE.png]
//   mpirun -np N pfcfabric ... --fabric fab.yaml  (virtual clock over N processes)
// Real devices written with their vdev arguments in the fabric file
// ("net_af_packet0,iface=h1") are given to EAL as --vdev when pfcfabric
// chooses the EAL options; with explicit EAL options they are the caller's.
// The last lines are the run's verdict (deadlocks, frames lost, flows
// below their rate); --expect makes it the exit status (3 when not met).
// The fabric file is validated completely, each switch's config generated
// and loaded by the switch's own loader, before EAL starts. On the virtual
// clock the run takes one lcore, on the real clock switches run on the
// worker lcores; the run ends at fabric.duration or on SIGINT/SIGTERM (a
// second one kills). A run a signal ended before its duration writes its
// results to then, says so (results.json "interrupted") and exits 128 +
// the signal. Results go to fabric.out (results.json, flows.csv,
// ports.csv, drops.csv, switches/*.yaml); tools/fabric_plot.py draws them,
// and --plot runs it on the results at the end of the run.
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>

#include "dataplane/common/cli_parse.h"
#include "dataplane/common/memory_use.h"
#include "dataplane/config/eal_needs.h"
#include "dataplane/emulator/pfcfabric_plot.h"
#include "dataplane/emulator/runtime/clock.h"
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/runtime/fabric_builder.h"
#include "dataplane/emulator/runtime/huge_pages.h"
#include "dataplane/emulator/runtime/rank_results.h"
#include "dataplane/emulator/runtime/ranks.h"
#include "dataplane/emulator/runtime/results.h"
#include "dataplane/emulator/runtime/run_facts.h"
#include "dataplane/emulator/runtime/verdict.h"
#include "dataplane/emulator/spec/class_check.h"
#include "dataplane/emulator/spec/cpu_plan.h"
#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/fabric_spec.h"
#include "dataplane/emulator/spec/partition.h"
#include "pfc_version.h"

namespace {

std::atomic<int> g_stop{0};  // the signal that asked the run to end (0: none)
// The first SIGINT/SIGTERM ends the run at the clock's next step, with its
// results; the default action is back for the next one (a run that does not
// end soon enough is killed by a second Ctrl-C).
void OnSignal(int sig) {
  g_stop.store(sig);
  std::signal(sig, SIG_DFL);
}

// rte_eal_cleanup, then the runtime directory of the file prefix this
// process chose itself (pfcfabric-<pid>; left alone when the user gave EAL
// options), which DPDK leaves behind.
void EalCleanup(bool own_prefix) {
  const std::string dir = rte_eal_get_runtime_dir();
  rte_eal_cleanup();
  // Its telemetry socket is unlinked only at exit: the directory goes whole.
  const std::string mine = "/pfcfabric-" + std::to_string(getpid());
  std::error_code ec;
  if (own_prefix && dir.size() > mine.size() && dir.ends_with(mine))
    std::filesystem::remove_all(dir, ec);
}

// The command line: the caller's EAL options, before a `--`, and ours.
struct Options {
  std::string argv0;
  bool eal_given = false;  // a `--`: the EAL options are the caller's
  std::vector<std::string> eal;
  std::string fabric_path, out_dir, rules_dir, plot_png;
  bool check = false;
  std::vector<std::string> here, expect;
  unsigned threads = 1;
  uint64_t memory_limit_mb = 0;
};

// The fabric as planned before EAL starts, then EAL as started.
struct Run {
  pfc::emulator::FabricSpec spec;
  pfc::emulator::FabricPlan plan;
  std::vector<pfc::config::SwitchConfig> configs;
  bool virt = false;
  // rte_eal_init's arguments, kept until exit as argv is.
  std::vector<std::string> eal;
  std::vector<char*> eal_argv;
  bool own_prefix = false;
  unsigned workers = 0;
};

// The steps below return nothing to go on, else main's exit status (each
// said why first), as pfc::CliParse does.

std::optional<int> ParseCommandLine(int argc, char** argv, Options* opt) {
  int split = -1;
  for (int i = 1; i < argc; i++) {
    if (std::string(argv[i]) == "--") {
      split = i;
      break;
    }
  }
  opt->argv0 = argv[0];
  opt->eal_given = split >= 0;
  for (int i = 1; i < split; i++) opt->eal.emplace_back(argv[i]);
  std::vector<std::string> app_args;
  for (int i = (split < 0 ? 1 : split + 1); i < argc; i++) app_args.emplace_back(argv[i]);
  CLI::App app{
      "pfcfabric: an emulated lossless fabric of pfcswitch switches, links and RDMA-like hosts\n"
      "usage: pfcfabric [EAL options --] --fabric FILE [--out DIR] [--here SW,...] [--check]\n"
      "  without EAL options: -l 0 (virtual clock) or -l 0-1/0-2 (real), --no-huge, --no-pci,\n"
      "  --no-shconf, -m sized for the fabric, --file-prefix pfcfabric-<pid>",
      "pfcfabric"};
  app.add_option("-f,--fabric", opt->fabric_path, "fabric file (YAML)")->required();
  app.add_option("-o,--out", opt->out_dir, "results directory (default: fabric.out)");
  app.add_option(
         "--rules", opt->rules_dir,
         "pfc-tagger rules directory (<dir>/<switch>.yaml), instead of the file's switch.rules")
      ->check(CLI::ExistingDirectory);
  app.add_option("--here", opt->here,
                 "the switches this process runs, for a fabric split over servers (each runs the "
                 "same file with its own switches; the links between them on devices)")
      ->delimiter(',');
  app.add_option("--threads", opt->threads,
                 "virtual clock: threads to split the fabric over (conservative windows, the "
                 "lookahead being the shortest delay of a link between parts); results are "
                 "byte-identical for any number")
      ->check(CLI::Range(1, 64));
  app.add_option("--memory-limit", opt->memory_limit_mb,
                 "MB the fabric may use (default: the machine's MemAvailable): a fabric whose "
                 "switches would not fit stops before it runs, and the frames' pool grows no "
                 "further than what is left")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  app.add_option("--expect", opt->expect,
                 "exit 3 unless the verdict is so: no-deadlock, lossless (no frame lost on a "
                 "lossless priority), no-loss (none lost at all), rates (every rate-limited flow "
                 "within 90% of its rate), complete (every sized flow done)")
      ->delimiter(',')
      ->check(CLI::IsMember({"no-deadlock", "lossless", "no-loss", "rates", "complete"}));
  auto* check_flag = app.add_flag(
      "--check", opt->check,
      "validate the fabric, write the switch configs and topology.json (for pfc-tagger), "
      "then exit");
  app.add_option("--plot", opt->plot_png,
                 "after the run, draw its results into this PNG (tools/fabric_plot.py with "
                 "python3-matplotlib: flow rates, pauses, buffers, frames lost, events); exit 1 "
                 "when it cannot, the results kept")
      ->excludes(check_flag);
  app.set_version_flag("--version", std::string("pfcfabric ") + PFC_VERSION);
  std::reverse(app_args.begin(), app_args.end());
  return pfc::CliParse(app, app_args);
}

// The fabric file, validated completely, with the command line's choices.
std::optional<int> LoadFabricFile(const Options& opt, Run* run) {
  pfc::emulator::FabricSpec& spec = run->spec;
  std::string err;
  if (!pfc::emulator::LoadFabric(opt.fabric_path, &spec, &err)) {
    std::fprintf(stderr, "pfcfabric: fabric error: %s\n", err.c_str());
    return 2;
  }
  for (const std::string& w : spec.warnings)
    std::fprintf(stderr, "pfcfabric: warning: %s\n", w.c_str());
  if (opt.threads > 1 && spec.clock != pfc::emulator::ClockKind::kVirtual) {
    std::fprintf(
        stderr,
        "pfcfabric: --threads %u: expected the virtual clock (%s: fabric.clock is real; its "
        "switches run on the EAL worker lcores)\n",
        opt.threads, spec.path.c_str());
    return 2;
  }
  spec.threads = opt.threads;
  spec.memory_limit = opt.memory_limit_mb << 20;
  if (!opt.out_dir.empty()) spec.out_dir = std::filesystem::absolute(opt.out_dir).string();
  if (!opt.rules_dir.empty()) {
    spec.rules_dir = std::filesystem::absolute(opt.rules_dir).string();
    for (uint32_t sw : spec.topo.Switches()) {
      const auto f = std::filesystem::path(spec.rules_dir) / (spec.topo.node(sw).name + ".yaml");
      if (!std::filesystem::is_regular_file(f)) {
        std::fprintf(stderr,
                     "pfcfabric: --rules: expected a rules file for every switch (missing %s)\n",
                     f.c_str());
        return 2;
      }
    }
  }
  const pfc::emulator::Ranks& ranks = pfc::emulator::Ranks::Get();
  if (ranks.distributed() && !opt.here.empty()) {
    std::fprintf(stderr,
                 "pfcfabric: placement error: mpirun -np %u: expected no --here (the ranks place "
                 "the switches themselves)\n",
                 ranks.size());
    return 2;
  }
  if (!opt.here.empty() && !pfc::emulator::PlaceHere(opt.here, &spec, &err)) {
    std::fprintf(stderr, "pfcfabric: placement error: %s\n", err.c_str());
    return 2;
  }
  // Over MPI ranks: this rank's partitions of the fabric, its share of the
  // machine's memory, and a directory of its own for what it writes before
  // rank 0 gathers the results (its switch configs, its printed lines).
  if (ranks.distributed()) {
    if (!pfc::emulator::PlaceRanks(ranks.size(), ranks.rank(), &spec, &err)) {
      std::fprintf(stderr, "pfcfabric: placement error: %s\n", err.c_str());
      return 2;
    }
    if (spec.memory_limit == 0) spec.memory_limit = pfc::MemAvailableBytes() / ranks.local_size();
    if (ranks.rank() != 0) {
      spec.out_dir += "/ranks/" + std::to_string(ranks.rank());
      std::error_code ec;
      std::filesystem::create_directories(spec.out_dir, ec);
      if (std::freopen((spec.out_dir + "/stdout.txt").c_str(), "w", stdout) == nullptr) {
        std::fprintf(stderr, "pfcfabric: cannot write %s/stdout.txt\n", spec.out_dir.c_str());
        return 1;
      }
    }
  }
  return std::nullopt;
}

// Every switch's config generated and loaded by the switch's own loader,
// written with the topology and the hosts; then only this process's part.
std::optional<int> PlanFabric(Run* run) {
  const pfc::emulator::FabricSpec& spec = run->spec;
  pfc::emulator::FabricPlan& plan = run->plan;
  std::string err;
  plan = pfc::emulator::MakePlan(spec);
  if (!pfc::emulator::WriteSwitchConfigs(spec, &plan, &run->configs, &err)) {
    std::fprintf(stderr, "pfcfabric: config error: %s\n", err.c_str());
    return 2;
  }
  for (const std::string& w : pfc::emulator::ClassWarnings(spec, plan, run->configs))
    std::fprintf(stderr, "pfcfabric: warning: %s\n", w.c_str());
  // monitor.qlen reads the depths a switch keeps: every queue's with INT on.
  if (spec.qlen_mon.interval_ns != 0) {
    size_t partial = 0;
    for (const pfc::config::SwitchConfig& c : run->configs) partial += !c.telemetry.any();
    if (partial != 0)
      std::fprintf(stderr,
                   "pfcfabric: warning: %s: monitor.qlen: %zu switches have no int section: only "
                   "their queues with an ECN profile are counted (the others as empty)\n",
                   spec.path.c_str(), partial);
  }
  // The topology as pfc-tagger reads it, so rules can be made for this very
  // port numbering.
  if (!pfc::tagger::SaveTopology(spec.topo, spec.out_dir + "/topology.json", &err) ||
      !pfc::emulator::WriteHostsJson(spec, plan, &err)) {
    std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
    return 1;
  }
  run->virt = spec.clock == pfc::emulator::ClockKind::kVirtual;
  std::printf(
      "pfcfabric: %zu switches, %zu hosts, %u links, %zu flows, %zu events, %s clock; configs in "
      "%s/switches\n",
      plan.switches.size(), plan.hosts.size(), spec.topo.num_links(), spec.flows.size(),
      spec.events.size(), run->virt ? "virtual" : "real", spec.out_dir.c_str());
  // A real host is configured by hand (or by a script reading hosts.json).
  for (const pfc::emulator::HostPlan& h : plan.hosts) {
    if (h.device.empty() || !spec.Local(h.node)) continue;
    std::printf("pfcfabric: real host %s on %s: ip %s/%u gateway %s (%s port %s)\n", h.name.c_str(),
                h.device.c_str(), pfc::emulator::Ipv4String(h.ip).c_str(), h.prefix_len,
                pfc::emulator::Ipv4String(h.gw_ip).c_str(), plan.sw(h.sw_node)->name.c_str(),
                plan.sw(h.sw_node)->ports[h.sw_port].name.c_str());
  }
  // Every switch checked (each MPI rank refuses alike), then only ours kept.
  std::vector<std::string> names;
  for (const pfc::emulator::SwitchPlan& sp : plan.switches) names.push_back(sp.name);
  if (!pfc::emulator::CheckThreads(spec, names, run->configs, &err)) {
    std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
    return 2;
  }
  pfc::emulator::KeepLocal(spec, &plan, &run->configs);
  return std::nullopt;
}

// EAL with the options chosen for the fabric, or the caller's.
std::optional<int> InitEal(const Options& opt, Run* run) {
  std::vector<std::string>& eal = run->eal;
  eal = {opt.argv0};
  // Before EAL pins this thread: the threads of --threads run on these.
  run->spec.cpus = pfc::emulator::AllowedCpus();
  if (!opt.eal_given) {
    // Real clock: the main lcore runs hosts and events, the others switches.
    // Frames live in emulated links only unless a device carries some
    // (BuildFabric chooses the pool the same way).
    const bool emulated_only = pfc::emulator::VdevArgs(run->spec).empty() && opt.here.empty();
    // The CPUs the process was given (spec/cpu_plan.h): the virtual clock
    // runs on one of them (an MPI rank on one machine on its own), the real
    // clock's main lcore and its 1-2 workers on the first ones.
    const std::vector<unsigned>& cpus = run->spec.cpus;
    const unsigned cores = std::max<unsigned>(2, std::min<size_t>(3, cpus.size()));
    eal.insert(eal.end(), {"--lcores",
                           run->virt ? pfc::emulator::LcoreMap(
                                           cpus, 1, pfc::emulator::Ranks::Get().local_rank())
                                     : pfc::emulator::LcoreMap(cpus, cores, 0),
                           "--no-huge", "--no-pci", "--no-shconf", "-m",
                           std::to_string(pfc::config::FabricEalMb(run->configs, emulated_only)),
                           "--file-prefix", "pfcfabric-" + std::to_string(getpid()), "--log-level",
                           "lib.eal:error", "--log-level", "lib.telemetry:error"});
    for (const std::string& v : pfc::emulator::VdevArgs(run->spec))
      eal.insert(eal.end(), {"--vdev", v});
  } else {
    // Quiet by default with the caller's EAL options too (EAL's notes and
    // telemetry's "No legacy callbacks" line on every run); their own
    // --log-level, parsed after these, still wins.
    eal.insert(eal.end(), {"--log-level", "lib.eal:error", "--log-level", "lib.telemetry:error"});
    eal.insert(eal.end(), opt.eal.begin(), opt.eal.end());
  }
  if (std::getenv("PFCFABRIC_SHOW_EAL") != nullptr) {
    for (const std::string& a : eal) std::printf("%s ", a.c_str());
    std::printf("\n");
  }
  std::vector<char*>& eal_argv = run->eal_argv;
  for (std::string& s : eal) eal_argv.push_back(s.data());
  run->own_prefix = !opt.eal_given;
  if (rte_eal_init(static_cast<int>(eal_argv.size()), eal_argv.data()) < 0) {
    std::fprintf(stderr, "pfcfabric: EAL init failed: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  run->workers = run->virt ? 0 : rte_lcore_count() - 1;
  if (!run->virt && run->workers == 0) {
    std::fprintf(stderr, "pfcfabric: the real clock needs worker lcores (EAL -l 0-1 or more)\n");
    EalCleanup(run->own_prefix);
    return 2;
  }
  return std::nullopt;
}

// The fabric built, and the clock its file asks for set up over it.
struct Emulation {
  std::unique_ptr<pfc::emulator::Fabric> fabric;
  std::unique_ptr<pfc::emulator::Clock> clock;
};

std::optional<Emulation> CreateFabric(const Run& run) {
  std::string err;
  Emulation e;
  e.fabric = pfc::emulator::BuildFabric(run.spec, run.plan, run.configs, run.workers, &err);
  if (!e.fabric) {
    std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
    return std::nullopt;
  }
  e.clock = pfc::emulator::MakeClock(*e.fabric);
  return e;
}

// The signal that ended the run before its duration (0: none did; a run
// without a duration, on the real clock, ends by a signal as it should).
int Interrupted(const pfc::emulator::Clock& clock, const Run& run) {
  const int sig = clock.stopped_by();
  return sig != 0 && run.spec.duration_ns > 0 && clock.now_ns() < run.spec.duration_ns ? sig : 0;
}

using Timing = pfc::emulator::RunTiming;

// CPU time of every thread of the process so far (timing.json's
// cpu_seconds is the run's difference).
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

// To the duration, or on the real clock to SIGINT/SIGTERM if sooner.
Timing RunFabric(pfc::emulator::Clock& clock, const Options& opt, const Run& run,
                 std::chrono::steady_clock::time_point started) {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  // Scripts wait for this line (stdout may be a file: flush it).
  if (clock.lookahead_ns() != pfc::kNever) {
    const unsigned n = run.spec.ranks;
    if (n > 1)
      std::printf("pfcfabric: %u ranks x %u threads, windows of %llu ns\n", n, opt.threads,
                  static_cast<unsigned long long>(clock.lookahead_ns()));
    else
      std::printf("pfcfabric: %u threads, windows of %llu ns\n", opt.threads,
                  static_cast<unsigned long long>(clock.lookahead_ns()));
  }
  std::printf("pfcfabric: running on the %s clock\n", run.virt ? "virtual" : "real");
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = ProcessCpuSeconds();
  // Progress on long runs, for a person watching: one line rewritten in
  // place on stderr when it is a terminal, twice a second at most.
  const bool progress = isatty(2) && run.spec.duration_ns > 0;
  if (progress) {
    auto last = t0 - std::chrono::seconds(1);  // the first bin prints
    clock.on_bin = [&spec = run.spec, t0, last](uint64_t now) mutable {
      const auto t = std::chrono::steady_clock::now();
      if (t - last < std::chrono::milliseconds(500)) return;
      last = t;
      std::fprintf(stderr, "\rpfcfabric: %.3f of %.3f ms (%.0f%%), %.0f s\033[K", now / 1e6,
                   spec.duration_ns / 1e6, 100.0 * now / spec.duration_ns,
                   std::chrono::duration<double>(t - t0).count());
    };
  }
  clock.Run(g_stop);
  if (progress) std::fprintf(stderr, "\r\033[K");
  Timing timing;
  timing.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  timing.cpu_seconds = ProcessCpuSeconds() - cpu0;
  timing.startup_seconds = std::chrono::duration<double>(t0 - started).count();
  return timing;
}

// The results written, the run and its verdict said; returns the exit
// status: 1 when the results could not be written, else 128 + the signal
// when one ended the run before its duration (not the run the file asked
// for: a script must not take it for one), else 3 when the verdict is not
// what --expect asked. Other MPI ranks return 0: rank 0 says it (mpirun
// would abort rank 0, still writing, for another's status).
int Report(const Emulation& emu, const Options& opt, const Run& run, Timing timing) {
  pfc::emulator::Fabric& fab = *emu.fabric;
  const pfc::emulator::Clock& clock = *emu.clock;
  int rc = 0;
  std::string err;
  // Over MPI ranks, rank 0 gathers what the others ran and writes it all.
  const pfc::emulator::Ranks& ranks = pfc::emulator::Ranks::Get();
  pfc::emulator::RunFacts facts = pfc::emulator::CollectFacts(fab, clock);
  if (ranks.rank() != 0) {
    pfc::emulator::SendResults(fab, facts, ranks);
    return 0;
  }
  pfc::emulator::GatherFacts(&facts, ranks);
  if (!pfc::emulator::GatherCaptures(fab, ranks, &err)) {
    std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
    rc = 1;
  }
  pfc::emulator::SettleFacts(&facts);
  const auto all = pfc::emulator::AllSwitches(fab.plan());
  const nlohmann::json verdict = pfc::emulator::Verdict(run.spec, fab.plan(), all, facts);
  const pfc::emulator::SwitchEntries sws =
      ranks.distributed() ? pfc::emulator::GatheredSwitchEntries(fab, facts, ranks)
                          : pfc::emulator::LocalSwitchEntries(fab);
  const uint64_t lossless_drops = pfc::emulator::LosslessDrops(facts);
  const int sig = Interrupted(clock, run);
  const std::string sig_name = sig == 0 ? "" : sig == SIGINT ? "SIGINT" : "SIGTERM";
  facts.interrupted = sig_name;
  if (!pfc::emulator::WriteResults(run.spec, all, std::move(facts), sws, timing, verdict, &err)) {
    std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
    rc = 1;
  }
  std::printf("pfcfabric: ran %.3f ms of %s time in %.2f s; lossless drops %llu; results in %s\n",
              clock.now_ns() / 1e6, run.virt ? "virtual" : "real", timing.wall_seconds,
              static_cast<unsigned long long>(lossless_drops), run.spec.out_dir.c_str());
  if (sig != 0)
    std::printf("pfcfabric: stopped by %s at %.3f of %.3f ms: the results are of the run to then\n",
                sig_name.c_str(), clock.now_ns() / 1e6, run.spec.duration_ns / 1e6);
  for (const std::string& line : pfc::emulator::VerdictLines(verdict, !run.virt))
    std::printf("pfcfabric: verdict: %s\n", line.c_str());
  if (rc == 0) {
    const std::string failed = pfc::emulator::FailedExpectations(verdict, opt.expect);
    if (!failed.empty()) {
      std::printf("pfcfabric: expected %s\n", failed.c_str());
      rc = 3;
    }
  }
  if (sig != 0 && (rc == 0 || rc == 3)) rc = 128 + sig;
  return rc;
}

// --plot, after EAL has gone; returns the exit status, 1 for a plot asked
// for and not drawn when the run itself succeeded.
int PlotResults(const Options& opt, const Run& run, int rc) {
  if (opt.plot_png.empty() || pfc::emulator::Ranks::Get().rank() != 0) return rc;
  if (pfc::pfcfabric::Plot(run.spec.out_dir, std::filesystem::absolute(opt.plot_png).string(),
                           std::filesystem::path(run.spec.path).stem().string())) {
    std::printf("pfcfabric: plot in %s\n", opt.plot_png.c_str());
  } else {
    std::fprintf(stderr, "pfcfabric: --plot: no plot; the results are in %s\n",
                 run.spec.out_dir.c_str());
    if (rc == 0) rc = 1;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::string err; !pfc::emulator::HugePagesSettingOk(&err) ||
                       !pfc::emulator::TimeOrderSettingOk(&err) ||
                       !pfc::emulator::EveryPortSettingOk(&err)) {
    std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
    return 2;
  }
  const bool huge_pages = pfc::emulator::RestartWithHugePages(argv);
  const auto started = std::chrono::steady_clock::now();
  {
    std::string err;
    if (!pfc::emulator::Ranks::Get().Init(&argc, &argv, &err)) {
      std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
      return 2;
    }
  }
  Options opt;
  if (const auto rc = ParseCommandLine(argc, argv, &opt)) return *rc;
  Run run;
  if (const auto rc = LoadFabricFile(opt, &run)) return *rc;
  if (const auto rc = PlanFabric(&run)) return *rc;
  if (opt.check) return 0;
  if (const auto rc = InitEal(opt, &run)) return *rc;
  std::optional<Emulation> emu = CreateFabric(run);
  if (!emu) {
    EalCleanup(run.own_prefix);
    // The other ranks would wait for this one at the first window.
    if (pfc::emulator::Ranks::Get().distributed()) pfc::emulator::Ranks::Get().Abort(1);
    return 1;
  }
  Timing timing = RunFabric(*emu->clock, opt, run, started);
  timing.malloc_huge_pages = huge_pages;
  timing.entity_window_ns = emu->clock->entity_window_ns();
  timing.threads = emu->clock->window_times();
  const int rc = Report(*emu, opt, run, timing);
  // The fabric's switches and pool live in EAL memory: they go first, the
  // clock that borrows them before them; the pool, the frames and the
  // rings go with the process (Dataplane::process_ending).
  emu->clock.reset();
  emu->fabric->dp().process_ending = true;
  emu->fabric.reset();
  EalCleanup(run.own_prefix);
  return PlotResults(opt, run, rc);
}
