// SPDX-License-Identifier: BSD-3-Clause
// pfcctl: the control CLI of a running pfcswitch, over DPDK telemetry.
//   pfcctl [--file-prefix P] info | stats [--port X] | show | events | load FILE | raw CMD
// `load` validates the file locally against the switch's own config first
// (so errors come back whole, with file, line and field), then asks the
// switch to load it; the switch validates again and swaps its tables
// atomically.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "dataplane/common/cli_parse.h"
#include "dataplane/config/config.h"
#include "dataplane/pfcctl/telemetry_client.h"
#include "pfc_version.h"

namespace {

int Fail(const std::string& msg) {
  std::fprintf(stderr, "pfcctl: %s\n", msg.c_str());
  return 1;
}

// "" for pfcswitch; "<switch>," for one switch of a pfcfabric process.
std::string g_sw;

bool AllStats(pfc::TelemetryClient& c, const std::string& only, nlohmann::json* out,
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
    ports.push_back(pfc::NestPortStats(flat));
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
  app.set_version_flag("--version", std::string("pfcctl ") + PFC_VERSION);
  if (const auto rc = pfc::CliParse(app, argc, argv)) return *rc;
  if (!sw_name.empty()) g_sw = sw_name + ",";
  const std::string info_cmd = "/pfcswitch/info" + (sw_name.empty() ? "" : "," + sw_name);

  if (socket_path.empty()) socket_path = pfc::TelemetrySocketPath(runtime_dir, prefix);
  pfc::TelemetryClient c;
  std::string err;
  if (!c.Connect(socket_path, &err)) return Fail(err);
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
    pfc::SwitchConfig base, next;
    if (!pfc::LoadConfig(base_path, &base, &err))
      return Fail("switch config " + base_path + ": " + err);
    const std::string abs = std::filesystem::absolute(file).string();
    if (!pfc::LoadUpdate(abs, base, &next, &err)) return Fail(err);
    if (!c.Query("/pfcswitch/reload," + g_sw + abs, &j, &err)) return Fail(err);
    if (j.contains("error"))
      return Fail("switch refused " + abs + ": " + j["error"].get<std::string>());
    std::printf("pfcctl: loaded %s: generation %lu, %lu rules, %lu routes\n", abs.c_str(),
                j.value("generation", uint64_t{0}), j.value("rules", uint64_t{0}),
                j.value("routes", uint64_t{0}));
  } else if (*raw) {
    if (!c.Query(raw_cmd, &j, &err)) return Fail(err);
    std::cout << j.dump(2) << "\n";
  }
  return 0;
}
