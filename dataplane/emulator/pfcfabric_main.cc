// SPDX-License-Identifier: BSD-3-Clause
// pfcfabric: a lossless fabric of pfcswitch switches in one process.
//   pfcfabric --fabric fab.yaml                  (EAL options chosen for you)
//   pfcfabric [EAL options] -- --fabric fab.yaml [--out DIR] [--here S1,..] [--check]
//                                                [--threads N] [--plot FILE.png]
// Real devices written with their vdev arguments in the fabric file
// ("net_af_packet0,iface=h1") are given to EAL as --vdev when pfcfabric
// chooses the EAL options; with explicit EAL options they are the caller's.
// The last lines are the run's verdict (deadlocks, frames lost, flows
// below their rate); --expect makes it the exit status (3 when not met).
// The fabric file is validated completely, each switch's config generated
// and loaded by the switch's own loader, before EAL starts. On the virtual
// clock the run takes one lcore and ends at fabric.duration; on the real
// clock switches run on the worker lcores and the run ends at the duration
// or on SIGINT/SIGTERM. Results go to fabric.out (results.json, flows.csv,
// ports.csv, drops.csv, switches/*.yaml); tools/fabric_plot.py draws them,
// and --plot runs it on the results at the end of the run.
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "dataplane/common/cli_parse.h"
#include "dataplane/config/eal_needs.h"
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/spec/class_check.h"
#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/fabric_spec.h"
#include "dataplane/emulator/spec/partition.h"
#include "dataplane/stages/worker.h"
#include "pfc_version.h"

namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

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

// --plot: the source tree's tools/fabric_plot.py draws the results
// directory into png. It is run as itself, so its first line chooses the
// interpreter (/usr/bin/python3, the one the project's scripts use, with
// python3-matplotlib). Returns whether it drew, having said why not; the
// results stay whatever happens.
bool Plot(const std::string& out_dir, const std::string& png, const std::string& title) {
  const char* script = PFC_FABRIC_PLOT;
  if (access(script, X_OK) != 0) {
    std::fprintf(stderr,
                 "pfcfabric: --plot: expected the plot script at %s (the source tree): %s\n",
                 script, std::strerror(errno));
    return false;
  }
  std::vector<std::string> args = {script, out_dir, "-o", png, "--title", title};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid;
  const int err = posix_spawn(&pid, script, nullptr, nullptr, argv.data(), environ);
  int status = 0;
  if (err != 0 || waitpid(pid, &status, 0) < 0) {
    std::fprintf(stderr,
                 "pfcfabric: --plot: cannot run %s: %s (it needs /usr/bin/python3 with "
                 "python3-matplotlib)\n",
                 script, std::strerror(err != 0 ? err : errno));
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "pfcfabric: --plot: %s failed (%s %d), no %s\n", script,
                 WIFEXITED(status) ? "exit" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), png.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  int split = -1;
  for (int i = 1; i < argc; i++) {
    if (std::string(argv[i]) == "--") {
      split = i;
      break;
    }
  }
  std::vector<std::string> app_args;
  for (int i = (split < 0 ? 1 : split + 1); i < argc; i++) app_args.emplace_back(argv[i]);
  CLI::App app{
      "pfcfabric: an emulated lossless fabric of pfcswitch switches, links and RDMA-like hosts\n"
      "usage: pfcfabric [EAL options --] --fabric FILE [--out DIR] [--here SW,...] [--check]\n"
      "  without EAL options: -l 0 (virtual clock) or -l 0-1/0-2 (real), --no-huge, --no-pci,\n"
      "  --no-shconf, -m sized for the fabric, --file-prefix pfcfabric-<pid>",
      "pfcfabric"};
  std::string fabric_path, out_dir, rules_dir;
  bool check = false;
  std::string plot_png;
  app.add_option("-f,--fabric", fabric_path, "fabric file (YAML)")->required();
  app.add_option("-o,--out", out_dir, "results directory (default: fabric.out)");
  app.add_option(
         "--rules", rules_dir,
         "pfc-tagger rules directory (<dir>/<switch>.yaml), instead of the file's switch.rules")
      ->check(CLI::ExistingDirectory);
  std::vector<std::string> here;
  app.add_option("--here", here,
                 "the switches this process runs, for a fabric split over servers (each runs the "
                 "same file with its own switches; the links between them on devices)")
      ->delimiter(',');
  unsigned threads = 1;
  app.add_option("--threads", threads,
                 "virtual clock: threads to split the fabric over (conservative windows, the "
                 "lookahead being the shortest delay of a link between parts); results are "
                 "byte-identical for any number")
      ->check(CLI::Range(1, 64));
  uint64_t memory_limit_mb = 0;
  app.add_option("--memory-limit", memory_limit_mb,
                 "MB the fabric may use (default: the machine's MemAvailable): a fabric whose "
                 "switches would not fit stops before it runs, and the frames' pool grows no "
                 "further than what is left")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  std::vector<std::string> expect;
  app.add_option("--expect", expect,
                 "exit 3 unless the verdict is so: no-deadlock, lossless (no frame lost on a "
                 "lossless priority), no-loss (none lost at all), rates (every rate-limited flow "
                 "within 90% of its rate), complete (every sized flow done)")
      ->delimiter(',')
      ->check(CLI::IsMember({"no-deadlock", "lossless", "no-loss", "rates", "complete"}));
  auto* check_flag = app.add_flag(
      "--check", check,
      "validate the fabric, write the switch configs and topology.json (for pfc-tagger), "
      "then exit");
  app.add_option("--plot", plot_png,
                 "after the run, draw its results into this PNG (tools/fabric_plot.py with "
                 "python3-matplotlib: flow rates, pauses, buffers, frames lost, events); exit 1 "
                 "when it cannot, the results kept")
      ->excludes(check_flag);
  app.set_version_flag("--version", std::string("pfcfabric ") + PFC_VERSION);
  std::reverse(app_args.begin(), app_args.end());
  if (const auto rc = pfc::CliParse(app, app_args)) return *rc;

  pfc::emulator::FabricSpec spec;
  std::string err;
  if (!pfc::emulator::LoadFabric(fabric_path, &spec, &err)) {
    std::fprintf(stderr, "pfcfabric: fabric error: %s\n", err.c_str());
    return 2;
  }
  for (const std::string& w : spec.warnings)
    std::fprintf(stderr, "pfcfabric: warning: %s\n", w.c_str());
  if (threads > 1 && spec.clock != pfc::emulator::ClockKind::kVirtual) {
    std::fprintf(
        stderr,
        "pfcfabric: --threads %u: expected the virtual clock (%s: fabric.clock is real; its "
        "switches run on the EAL worker lcores)\n",
        threads, spec.path.c_str());
    return 2;
  }
  spec.threads = threads;
  spec.memory_limit = memory_limit_mb << 20;
  if (!out_dir.empty()) spec.out_dir = std::filesystem::absolute(out_dir).string();
  if (!rules_dir.empty()) {
    spec.rules_dir = std::filesystem::absolute(rules_dir).string();
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
  if (!here.empty() && !pfc::emulator::PlaceHere(here, &spec, &err)) {
    std::fprintf(stderr, "pfcfabric: placement error: %s\n", err.c_str());
    return 2;
  }
  pfc::emulator::FabricPlan plan = pfc::emulator::MakePlan(spec);
  std::vector<pfc::config::SwitchConfig> configs;
  if (!pfc::emulator::WriteSwitchConfigs(spec, &plan, &configs, &err)) {
    std::fprintf(stderr, "pfcfabric: config error: %s\n", err.c_str());
    return 2;
  }
  for (const std::string& w : pfc::emulator::ClassWarnings(spec, plan, configs))
    std::fprintf(stderr, "pfcfabric: warning: %s\n", w.c_str());
  // The topology as pfc-tagger reads it, so rules can be made for this very
  // port numbering.
  if (!pfc::tagger::SaveTopology(spec.topo, spec.out_dir + "/topology.json", &err) ||
      !pfc::emulator::WriteHostsJson(spec, plan, &err)) {
    std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
    return 1;
  }
  const bool virt = spec.clock == pfc::emulator::ClockKind::kVirtual;
  std::printf(
      "pfcfabric: %zu switches, %zu hosts, %u links, %zu flows, %zu events, %s clock; configs in "
      "%s/switches\n",
      plan.switches.size(), plan.hosts.size(), spec.topo.num_links(), spec.flows.size(),
      spec.events.size(), virt ? "virtual" : "real", spec.out_dir.c_str());
  // A real host is configured by hand (or by a script reading hosts.json).
  for (const pfc::emulator::HostPlan& h : plan.hosts) {
    if (h.device.empty() || !spec.Local(h.node)) continue;
    std::printf("pfcfabric: real host %s on %s: ip %s/%u gateway %s (%s port %s)\n", h.name.c_str(),
                h.device.c_str(), pfc::emulator::Ipv4String(h.ip).c_str(), h.prefix_len,
                pfc::emulator::Ipv4String(h.gw_ip).c_str(), plan.sw(h.sw_node)->name.c_str(),
                plan.sw(h.sw_node)->ports[h.sw_port].name.c_str());
  }
  pfc::emulator::KeepLocal(spec, &plan, &configs);
  {
    std::vector<std::string> names;
    for (const pfc::emulator::SwitchPlan& sp : plan.switches) names.push_back(sp.name);
    if (!pfc::emulator::CheckThreads(spec, names, configs, &err)) {
      std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
      return 2;
    }
  }
  if (check) return 0;

  std::vector<std::string> eal = {argv[0]};
  if (split < 0) {
    // Real clock: the main lcore runs hosts and events, the others switches.
    // Frames live in emulated links only unless a device carries some
    // (Fabric::Create chooses the pool the same way).
    const bool emulated_only = pfc::emulator::VdevArgs(spec).empty() && here.empty();
    const unsigned cores = std::max(2u, std::min(3u, std::thread::hardware_concurrency()));
    eal.insert(eal.end(), {"-l", virt ? "0" : "0-" + std::to_string(cores - 1), "--no-huge",
                           "--no-pci", "--no-shconf", "-m",
                           std::to_string(pfc::config::FabricEalMb(configs, emulated_only)),
                           "--file-prefix", "pfcfabric-" + std::to_string(getpid()), "--log-level",
                           "lib.eal:error", "--log-level", "lib.telemetry:error"});
    for (const std::string& v : pfc::emulator::VdevArgs(spec)) eal.insert(eal.end(), {"--vdev", v});
  } else {
    // Quiet by default with the caller's EAL options too (EAL's notes and
    // telemetry's "No legacy callbacks" line on every run); their own
    // --log-level, parsed after these, still wins.
    eal.insert(eal.end(), {"--log-level", "lib.eal:error", "--log-level", "lib.telemetry:error"});
    for (int i = 1; i < split; i++) eal.emplace_back(argv[i]);
  }
  if (std::getenv("PFCFABRIC_SHOW_EAL") != nullptr) {
    for (const std::string& a : eal) std::printf("%s ", a.c_str());
    std::printf("\n");
  }
  std::vector<char*> eal_argv;
  for (std::string& s : eal) eal_argv.push_back(s.data());
  const bool own_prefix = split < 0;
  if (rte_eal_init(static_cast<int>(eal_argv.size()), eal_argv.data()) < 0) {
    std::fprintf(stderr, "pfcfabric: EAL init failed: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  const unsigned workers = virt ? 0 : rte_lcore_count() - 1;
  if (!virt && workers == 0) {
    std::fprintf(stderr, "pfcfabric: the real clock needs worker lcores (EAL -l 0-1 or more)\n");
    EalCleanup(own_prefix);
    return 2;
  }
  int rc = 0;
  {
    auto fab = pfc::emulator::Fabric::Create(spec, plan, configs, workers, &err);
    if (!fab) {
      std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
      EalCleanup(own_prefix);
      return 1;
    }
    std::signal(SIGINT, OnSignal);
    std::signal(SIGTERM, OnSignal);
    // Scripts wait for this line (stdout may be a file: flush it).
    if (fab->lookahead_ns() != pfc::kNever)
      std::printf("pfcfabric: %u threads, windows of %llu ns\n", threads,
                  static_cast<unsigned long long>(fab->lookahead_ns()));
    std::printf("pfcfabric: running on the %s clock\n", virt ? "virtual" : "real");
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    // Progress on long runs, for a person watching: one line rewritten in
    // place on stderr when it is a terminal, twice a second at most.
    const bool progress = isatty(2) && spec.duration_ns > 0;
    if (progress) {
      auto last = t0 - std::chrono::seconds(1);  // the first bin prints
      fab->on_bin = [&, last](uint64_t now) mutable {
        const auto t = std::chrono::steady_clock::now();
        if (t - last < std::chrono::milliseconds(500)) return;
        last = t;
        std::fprintf(stderr, "\rpfcfabric: %.3f of %.3f ms (%.0f%%), %.0f s\033[K", now / 1e6,
                     spec.duration_ns / 1e6, 100.0 * now / spec.duration_ns,
                     std::chrono::duration<double>(t - t0).count());
      };
    }
    if (virt) {
      fab->RunVirtual();
    } else {
      unsigned w = 0, lcore;
      RTE_LCORE_FOREACH_WORKER(lcore) {
        if (w == fab->workers().size()) break;
        rte_eal_remote_launch(pfc::stages::WorkerMain, &fab->workers()[w++], lcore);
      }
      fab->RunReal(g_stop);
      fab->dp().stop.store(true);
      rte_eal_mp_wait_lcore();
    }
    if (progress) std::fprintf(stderr, "\r\033[K");
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double startup = std::chrono::duration<double>(t0 - started).count();
    const nlohmann::json verdict = fab->Verdict();
    if (!fab->WriteResults(wall, startup, verdict, &err)) {
      std::fprintf(stderr, "pfcfabric: %s\n", err.c_str());
      rc = 1;
    }
    std::printf("pfcfabric: ran %.3f ms of %s time in %.2f s; lossless drops %llu; results in %s\n",
                fab->now_ns() / 1e6, virt ? "virtual" : "real", wall,
                static_cast<unsigned long long>(fab->LosslessDrops()), spec.out_dir.c_str());
    for (const std::string& line : pfc::emulator::VerdictLines(verdict, !virt))
      std::printf("pfcfabric: verdict: %s\n", line.c_str());
    if (rc == 0) {
      const std::string failed = pfc::emulator::FailedExpectations(verdict, expect);
      if (!failed.empty()) {
        std::printf("pfcfabric: expected %s\n", failed.c_str());
        rc = 3;
      }
    }
  }
  EalCleanup(own_prefix);
  if (!plot_png.empty()) {
    if (Plot(spec.out_dir, std::filesystem::absolute(plot_png).string(),
             std::filesystem::path(spec.path).stem().string())) {
      std::printf("pfcfabric: plot in %s\n", plot_png.c_str());
    } else {
      std::fprintf(stderr, "pfcfabric: --plot: no plot; the results are in %s\n",
                   spec.out_dir.c_str());
      if (rc == 0) rc = 1;
    }
  }
  return rc;
}
