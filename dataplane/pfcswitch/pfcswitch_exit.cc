// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/pfcswitch_exit.h"

#include <cstdio>
#include <fstream>

#include "dataplane/pfcswitch/stats_report.h"

namespace pfc::pfcswitch {
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

}  // namespace

void ReportAtExit(const sw::Switch& sw, const std::string& stats_json) {
  const nlohmann::json stats = StatsJson(sw);
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
}

}  // namespace pfc::pfcswitch
