// SPDX-License-Identifier: BSD-3-Clause
// Section pfc_watchdog: the PFC pause-storm watchdog (pause/pfcwd.h),
// switch-wide settings plus per-port overrides. Runs after ports and qos.
#include "dataplane/config/sections.h"

namespace pfc::config::sections {
namespace {

constexpr uint64_t kMinNs = 1'000;           // 1 us: a few worker rounds
constexpr uint64_t kMaxNs = 60'000'000'000;  // 1 min

// Reads the fields of `n` present over `*s` (`f` names n in messages).
void Fields(const config::Reader& rd, const YAML::Node& n, const std::string& f,
            pause::PfcwdConfig* s) {
  if (n["enabled"]) s->enabled = rd.Bool(n["enabled"], f + ".enabled");
  if (n["detect_time"])
    s->detect_ns = Duration(rd, n["detect_time"], f + ".detect_time", kMinNs, kMaxNs);
  if (n["restore_time"])
    s->restore_ns = Duration(rd, n["restore_time"], f + ".restore_time", kMinNs, kMaxNs);
  if (n["action"]) {
    const std::string a = rd.Str(n["action"], f + ".action");
    if (a == "drop")
      s->action = pause::PfcwdAction::kDrop;
    else if (a == "forward")
      s->action = pause::PfcwdAction::kForward;
    else if (a == "alert")
      s->action = pause::PfcwdAction::kAlert;
    else
      rd.Fail(n["action"], f + ".action", "drop, forward or alert");
  }
}

}  // namespace

void ParsePfcWatchdog(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.RequireMap(n, "pfc_watchdog");
  rd.CheckKeys(n, "pfc_watchdog", {"enabled", "detect_time", "restore_time", "action", "ports"});
  PfcWatchdogSettings& wd = c->pfc_watchdog;
  Fields(rd, n, "pfc_watchdog", &wd.defaults);
  wd.port.assign(c->ports.size(), wd.defaults);
  if (const YAML::Node ps = n["ports"]) {
    rd.RequireSeq(ps, "pfc_watchdog.ports");
    std::vector<bool> seen(c->ports.size(), false);
    for (size_t i = 0; i < ps.size(); i++) {
      const std::string f = "pfc_watchdog.ports[" + std::to_string(i) + "]";
      const YAML::Node e = ps[i];
      rd.RequireMap(e, f);
      rd.CheckKeys(e, f, {"name", "enabled", "detect_time", "restore_time", "action"});
      const YAML::Node name = rd.Need(e, "name", f + ".name", "a port name from 'ports'");
      const PortId p = PortRef(rd, name, f + ".name", *c);
      if (seen[p])
        rd.Fail(name, f + ".name", "each port once (" + config::Scalar(name) + " repeats)");
      seen[p] = true;
      Fields(rd, e, f, &wd.port[p]);
    }
  }
  bool any = false;
  for (const pause::PfcwdConfig& s : wd.port) any |= s.enabled;
  if (any && c->tag_map.lossless_mask == 0)
    rd.Fail(n, "pfc_watchdog.enabled", "a lossless priority in qos.lossless to watch");
}

}  // namespace pfc::config::sections

namespace pfc::config {

const pause::PfcwdConfig& PfcWatchdogFor(const SwitchConfig& c, PortId p) {
  return p < c.pfc_watchdog.port.size() ? c.pfc_watchdog.port[p] : c.pfc_watchdog.defaults;
}

}  // namespace pfc::config
