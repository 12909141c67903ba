// SPDX-License-Identifier: BSD-3-Clause
// pfcctl: the control CLI of a running pfcswitch, over DPDK telemetry.
//   pfcctl [--file-prefix P] [--switch S] info | stats [--port X] | show | events
//          | load FILE | raw CMD | switches
//          | pfc [counters] | queue counters | queue watermark | pfcwd [stats]
//          | clear [counters|watermarks]
// `load` validates the file locally against the switch's own config first
// (so errors come back whole, with file, line and field), then asks the
// switch to load it; the switch validates again and swaps its tables
// atomically. The SONiC-like views (views.h) show counters since the last
// `clear counters` (a baseline pfcctl keeps, baseline.h), or with -i their
// rates per second (deltas.h); `clear watermarks` asks the switch.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

#include "dataplane/common/cli_parse.h"
#include "dataplane/config/config.h"
#include "dataplane/pfcctl/baseline.h"
#include "dataplane/pfcctl/deltas.h"
#include "dataplane/pfcctl/telemetry_client.h"
#include "dataplane/pfcctl/views.h"
#include "dataplane/pfcswitch/telemetry_cmd.h"
#include "pfc_version.h"

namespace {

// A refusal's whole text: the switch splits a long one into "error" and
// the pieces of "error_more" (telemetry keeps 127 bytes a string).
std::string ErrorText(const nlohmann::json& j) {
  std::string s = j["error"].get<std::string>();
  if (j.contains("error_more"))
    for (const auto& piece : j["error_more"]) s += piece.get<std::string>();
  return pfc::pfcswitch::TelemetryText(s);  // in ASCII on the wire (telemetry_cmd.h)
}

int Fail(const std::string& msg) {
  std::fprintf(stderr, "pfcctl: %s\n", msg.c_str());
  return 1;
}

// "" for pfcswitch; "<switch>," for one switch of a pfcfabric process.
std::string g_sw;

bool AllStats(pfc::pfcctl::TelemetryClient& c, const std::string& only, nlohmann::json* out,
              std::string* err) {
  nlohmann::json names;
  if (!c.Query("/pfcswitch/ports" + (g_sw.empty() ? "" : "," + g_sw.substr(0, g_sw.size() - 1)),
               &names, err))
    return false;
  nlohmann::json ports = nlohmann::json::array();
  uint64_t drops = 0;
  for (const auto& n : names) {
    if (!only.empty() && n.get<std::string>() != only) continue;
    nlohmann::json flat;
    if (!c.Query("/pfcswitch/port_stats," + g_sw + n.get<std::string>(), &flat, err)) return false;
    ports.push_back(pfc::pfcctl::NestPortStats(flat));
    drops += ports.back().value("drops_total", uint64_t{0});
  }
  if (!only.empty() && ports.empty()) {
    *err = "no port named '" + only + "'";
    return false;
  }
  *out = {{"ports", ports}, {"drops_total", drops}};
  return true;
}

void Show(const nlohmann::json& stats) {
  std::printf("%-8s %4s %12s %12s %10s %10s %9s %8s %8s %10s %10s %10s\n", "port", "prio",
              "rx_pkts", "tx_pkts", "rewrites", "fallback", "drops", "xoff_tx", "xoff_rx",
              "buf_wmark", "hr_wmark", "ecn_marked");
  for (const auto& p : stats["ports"]) {
    for (const auto& q : p["prio"]) {
      const auto v = [&](const char* k) { return q.value(k, uint64_t{0}); };
      if (!v("rx_packets") && !v("tx_packets") && !q.value("drops_total", uint64_t{0}) &&
          !v("pfc_xoff_rx"))
        continue;
      std::printf("%-8s %3d%s %12lu %12lu %10lu %10lu %9lu %8lu %8lu %10lu %10lu %10lu\n",
                  p.value("name", "?").c_str(), q.value("prio", 0),
                  q.value("lossless", false) ? "*" : " ", v("rx_packets"), v("tx_packets"),
                  v("rewrites"), v("lossy_fallback"), q.value("drops_total", uint64_t{0}),
                  v("pfc_xoff_tx"), v("pfc_xoff_rx"), v("buffer_watermark"),
                  v("headroom_watermark"), v("ecn_marked"));
      for (auto d = q["drops"].begin(); d != q["drops"].end(); ++d)
        if (d.value().get<uint64_t>())
          std::printf("%14s drop %s: %lu\n", "", d.key().c_str(), d.value().get<uint64_t>());
    }
  }
  std::printf(
      "(* = lossless priority; rx/drops by ingress priority, tx and ecn_marked by egress "
      "priority)\n");
}

// Set by SIGINT/SIGTERM while a view repeats (-i): the loop ends cleanly.
volatile std::sig_atomic_t g_stop = 0;

void OnSignal(int) { g_stop = 1; }

// No SA_RESTART: a signal also ends a telemetry read in progress.
void CatchStop() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// Sleeps `seconds` in short steps; false when told to stop meanwhile.
bool Pause(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(seconds));
  while (!g_stop && Clock::now() < end)
    std::this_thread::sleep_for(
        std::min<Clock::duration>(end - Clock::now(), std::chrono::milliseconds(50)));
  return !g_stop;
}

// The switch names of the process (pfcswitch: one, ""). Without --switch on
// a process with several (pfcfabric), or with a name it does not run, lists
// them and returns 2; else 0.
int CheckSwitch(pfc::pfcctl::TelemetryClient& c, const std::string& sw_name, bool list_only) {
  nlohmann::json names;
  std::string err;
  if (!c.Query("/pfcswitch/switches", &names, &err)) return Fail(err);
  const bool one_unnamed = names.size() == 1 && names[0].get<std::string>().empty();
  if (list_only) {
    if (one_unnamed) std::printf("(one switch: a pfcswitch process, no --switch needed)\n");
    for (const auto& n : names)
      if (!one_unnamed) std::printf("%s\n", n.get<std::string>().c_str());
    return 0;
  }
  const bool named = std::any_of(names.begin(), names.end(), [&](const nlohmann::json& n) {
    return n.get<std::string>() == sw_name;
  });
  if (sw_name.empty() ? names.size() <= 1 : named) return 0;
  if (one_unnamed) {
    std::fprintf(stderr, "pfcctl: this is a pfcswitch process (one switch): drop --switch %s\n",
                 sw_name.c_str());
    return 2;
  }
  if (sw_name.empty())
    std::fprintf(stderr, "pfcctl: this process runs %zu switches; name one with --switch:\n",
                 names.size());
  else
    std::fprintf(stderr, "pfcctl: no switch named '%s'; this process runs:\n", sw_name.c_str());
  for (const auto& n : names) std::printf("%s\n", n.get<std::string>().c_str());
  return 2;
}

using View = std::function<std::string(const nlohmann::json&, const pfc::pfcctl::ViewOptions&)>;

// A SONiC-like view: once, since the baseline of `clear counters` if there
// is one; or with interval > 0, `count` times (0: until Ctrl-C) the rates
// per second over each interval.
int RunView(pfc::pfcctl::TelemetryClient& c, const std::string& socket_path,
            const std::string& sw_name, const View& view, pfc::pfcctl::ViewOptions o,
            double interval, int count) {
  nlohmann::json cur, prev;
  std::string err;
  if (!AllStats(c, "", &cur, &err)) return Fail(err);
  if (interval <= 0 && count == 0) {
    nlohmann::json base;
    int64_t when = 0;
    if (pfc::pfcctl::LoadBaseline(pfc::pfcctl::BaselinePath(socket_path, sw_name),
                                  pfc::pfcctl::SocketIdentity(socket_path), &base, &when)) {
      cur = pfc::pfcctl::Since(cur, base);
      const std::time_t t = when;
      char at[64];
      std::strftime(at, sizeof(at), "%F %T", std::localtime(&t));
      std::printf("Counters since %s (pfcctl clear counters)\n\n", at);
    }
    std::fputs(view(cur, o).c_str(), stdout);
    return 0;
  }
  if (interval <= 0) interval = 1;
  CatchStop();
  o.rates = true;
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 1; count == 0 || k <= count; k++) {
    if (!Pause(interval)) return 0;
    prev = std::move(cur);
    if (!AllStats(c, "", &cur, &err)) {
      if (g_stop) return 0;
      return Fail("the switch went away: " + err);
    }
    const auto t1 = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(t1 - t0).count();
    t0 = t1;
    std::printf("== sample %d%s: per second over %.2f s ==\n", k,
                count ? (" of " + std::to_string(count)).c_str() : "", dt);
    std::fputs(view(pfc::pfcctl::PerSecond(cur, prev, dt), o).c_str(), stdout);
    std::fflush(stdout);
  }
  return 0;
}

// pfcctl clear [counters|watermarks]: `what` is "" for both.
int Clear(pfc::pfcctl::TelemetryClient& c, const std::string& socket_path,
          const std::string& sw_name, const std::string& what) {
  std::string err;
  if (what != "watermarks") {
    nlohmann::json cur;
    if (!AllStats(c, "", &cur, &err)) return Fail(err);
    const std::string path = pfc::pfcctl::BaselinePath(socket_path, sw_name);
    if (!pfc::pfcctl::SaveBaseline(path, pfc::pfcctl::SocketIdentity(socket_path), cur, &err))
      return Fail(err);
    std::printf("pfcctl: counters cleared (baseline %s; `stats` and `show` keep totals)\n",
                path.c_str());
  }
  if (what != "counters") {
    nlohmann::json j;
    if (!c.Query("/pfcswitch/clear," + g_sw + "watermarks", &j, &err)) return Fail(err);
    if (j.contains("error")) return Fail("switch refused: " + ErrorText(j));
    std::printf("pfcctl: watermarks cleared (egress queues to 0, ingress to what is held now)\n");
  }
  return 0;
}

// -i and -n of a repeating view.
void AddRepeat(CLI::App* cmd, double* interval, int* count) {
  cmd->add_option("-i,--interval", *interval, "repeat every SECONDS, printing rates per second")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-n,--count", *count, "stop after COUNT samples (with -i; default 1 s)")
      ->check(CLI::PositiveNumber);
}

// A word after pfc, queue or pfcwd that is none of its views ("pfc
// counter"): CLI11 would only say it was not expected. Also a queue
// without its view. Returns the exit status, 0 when all is well.
int UnknownView(const CLI::App& cmd, const std::string& views) {
  if (!cmd.parsed()) return 0;
  const std::vector<std::string> extra = cmd.remaining();
  const bool needs_view = cmd.get_name() == "queue" && cmd.get_subcommands().empty();
  if (extra.empty() && !needs_view) return 0;
  std::string msg = "pfcctl " + cmd.get_name() + ": ";
  if (extra.empty()) {
    msg += "expected a view: " + views;
  } else {
    msg += "'" + extra[0] + "' is not one of its views (expected: " + views + ")";
    // A view the word begins, or that begins with it ("counter", "water").
    std::stringstream ss(views);
    for (std::string v; std::getline(ss >> std::ws, v, ',');) {
      if (v.rfind(extra[0], 0) == 0 || extra[0].rfind(v, 0) == 0) {
        msg += "; did you mean '" + v + "'?";
        break;
      }
    }
  }
  std::fprintf(stderr, "%s\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pfcctl: control a running pfcswitch through DPDK telemetry"};
  std::string prefix = "rte", runtime_dir = "/var/run/dpdk", socket_path;
  app.add_option("--file-prefix", prefix, "the switch's EAL --file-prefix")->capture_default_str();
  app.add_option("--runtime-dir", runtime_dir, "DPDK runtime directory")->capture_default_str();
  app.add_option("--socket", socket_path, "telemetry socket path (overrides the two above)");
  std::string sw_name;
  app.add_option("--switch", sw_name,
                 "which switch of a pfcfabric process (its name in the fabric)");
  app.require_subcommand(1);
  auto* info = app.add_subcommand("info", "switch summary");
  std::string port;
  auto* stats = app.add_subcommand("stats", "all counters as JSON");
  stats->add_option("--port", port, "only this port");
  auto* show = app.add_subcommand("show", "non-zero counters as a table");
  auto* events = app.add_subcommand("events", "pause-storm watchdog and DCFIT events, one a line");
  std::string file;
  auto* load = app.add_subcommand("load", "install rules/routes/qos from a file (atomic swap)");
  load->add_option("file", file, "rules or routes file (YAML)")
      ->required()
      ->check(CLI::ExistingFile);
  std::string raw_cmd;
  auto* raw = app.add_subcommand("raw", "send a raw telemetry command");
  raw->add_option("command", raw_cmd, "e.g. /pfcswitch/info or /ethdev/stats,0")->required();
  auto* switches = app.add_subcommand("switches", "the switches of this process (pfcfabric)");
  double interval = 0;
  int count = 0;
  bool xon = false;
  auto* pfc_cmd = app.add_subcommand("pfc", "PFC counters per port and priority (SONiC show pfc)");
  pfc_cmd->require_subcommand(0, 1)->allow_extras();
  pfc_cmd->add_subcommand("counters", "the same")->fallthrough();
  pfc_cmd->add_flag("--xon", xon, "XON frames too");
  AddRepeat(pfc_cmd, &interval, &count);
  auto* queue = app.add_subcommand("queue", "egress queues (SONiC show queue)");
  queue->require_subcommand(0, 1)->allow_extras();
  auto* qcounters = queue->add_subcommand("counters", "per egress queue: packets, bytes, drops");
  auto* qwatermark =
      queue->add_subcommand("watermark", "egress queue and ingress buffer watermarks");
  qcounters->fallthrough();
  qwatermark->fallthrough();
  AddRepeat(queue, &interval, &count);
  auto* pfcwd = app.add_subcommand("pfcwd", "pause-storm watchdog per queue (SONiC pfcwd show)");
  pfcwd->require_subcommand(0, 1)->allow_extras();
  pfcwd->add_subcommand("stats", "the same")->fallthrough();
  AddRepeat(pfcwd, &interval, &count);
  std::string what;
  auto* clear = app.add_subcommand("clear",
                                   "clear counters (a baseline pfcctl keeps) and/or "
                                   "the egress watermarks (in the switch); both without "
                                   "an argument");
  clear->add_option("what", what, "counters or watermarks")
      ->check(CLI::IsMember({"counters", "watermarks"}));
  app.set_version_flag("--version", std::string("pfcctl ") + PFC_VERSION);
  if (const auto rc = pfc::CliParse(app, argc, argv)) return *rc;
  for (const auto& [cmd, views] :
       {std::pair{pfc_cmd, "counters"}, {queue, "counters, watermark"}, {pfcwd, "stats"}}) {
    if (const int rc = UnknownView(*cmd, views)) return rc;
  }
  if (!sw_name.empty()) g_sw = sw_name + ",";
  const std::string info_cmd = "/pfcswitch/info" + (sw_name.empty() ? "" : "," + sw_name);

  if (socket_path.empty()) socket_path = pfc::pfcctl::TelemetrySocketPath(runtime_dir, prefix);
  pfc::pfcctl::TelemetryClient c;
  std::string err;
  if (!c.Connect(socket_path, &err)) return Fail(err);
  if (!*raw) {
    if (const int rc = CheckSwitch(c, sw_name, switches->parsed()); rc != 0 || switches->parsed())
      return rc;
  }
  const pfc::pfcctl::ViewOptions vo{xon, false};
  auto run = [&](const View& v) {
    return RunView(c, socket_path, sw_name, v, vo, interval, count);
  };
  if (*pfc_cmd) return run(pfc::pfcctl::PfcView);
  if (*qcounters) return run(pfc::pfcctl::QueueView);
  if (*qwatermark)
    return run([](const nlohmann::json& s, const pfc::pfcctl::ViewOptions&) {
      return pfc::pfcctl::WatermarkView(s);
    });
  if (*pfcwd) return run(pfc::pfcctl::PfcwdView);
  if (*clear) return Clear(c, socket_path, sw_name, what);
  nlohmann::json j;
  if (*info) {
    if (!c.Query(info_cmd, &j, &err)) return Fail(err);
    std::cout << j.dump(2) << "\n";
  } else if (*stats || *show) {
    if (!AllStats(c, port, &j, &err)) return Fail(err);
    if (*show)
      Show(j);
    else
      std::cout << j.dump() << "\n";
  } else if (*events) {
    if (!c.Query("/pfcswitch/events" + (sw_name.empty() ? "" : "," + sw_name), &j, &err))
      return Fail(err);
    // Pause-storm watchdog events first (any switch may have them), then
    // DCFIT's.
    for (const auto& e : j["pfcwd_events"])
      std::printf("pfcwd: %s\n", e.get<std::string>().c_str());
    std::printf("(%lu pfcwd events in all)\n", j.value("pfcwd_total", uint64_t{0}));
    if (!j.value("enabled", uint64_t{0})) {
      std::printf("(DCFIT is off on this switch: dcfit.enabled)\n");
      return 0;
    }
    for (const auto& e : j["events"]) std::printf("%s\n", e.get<std::string>().c_str());
    std::printf("(%lu events in all)\n", j.value("total", uint64_t{0}));
  } else if (*load) {
    if (!c.Query(info_cmd, &j, &err)) return Fail(err);
    const std::string base_path = j.value("config", "");
    pfc::config::SwitchConfig base, next;
    if (!pfc::config::LoadConfig(base_path, &base, &err))
      return Fail("switch config " + base_path + ": " + err);
    const std::string abs = std::filesystem::absolute(file).string();
    if (!pfc::config::LoadUpdate(abs, base, &next, &err)) return Fail(err);
    if (!c.Query("/pfcswitch/reload," + g_sw + abs, &j, &err)) return Fail(err);
    if (j.contains("error")) return Fail("switch refused " + abs + ": " + ErrorText(j));
    std::printf("pfcctl: loaded %s: generation %lu, %lu rules, %lu routes\n", abs.c_str(),
                j.value("generation", uint64_t{0}), j.value("rules", uint64_t{0}),
                j.value("routes", uint64_t{0}));
  } else if (*raw) {
    if (!c.Query(raw_cmd, &j, &err)) return Fail(err);
    std::cout << j.dump(2) << "\n";
  }
  return 0;
}
