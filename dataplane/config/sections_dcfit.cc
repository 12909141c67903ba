// SPDX-License-Identifier: BSD-3-Clause
// Section dcfit: DCFIT deadlock detection (stages/dcfit_stage.h). Runs after
// switch and qos, whose settings it checks against.
#include <cctype>
#include <cstdlib>

#include "dataplane/config/sections.h"

namespace pfc::config::sections {

uint64_t Duration(const config::Reader& rd, const YAML::Node& n, const std::string& f, uint64_t lo,
                  uint64_t hi) {
  const std::string want = "a duration such as 500us or 1ms (" + std::to_string(lo) + " ns to " +
                           std::to_string(hi) + " ns)";
  const std::string s = n.IsScalar() ? n.Scalar() : "";
  size_t i = 0;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && v < (1ull << 40))
    v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
  if (i == 0) rd.Fail(n, f, want);
  const std::string unit = s.substr(i);
  uint64_t mult = 0;
  if (unit.empty() || unit == "ns") mult = 1;
  if (unit == "us") mult = 1'000;
  if (unit == "ms") mult = 1'000'000;
  if (unit == "s") mult = 1'000'000'000;
  if (mult == 0 || v > hi / mult || v * mult < lo) rd.Fail(n, f, want);
  return v * mult;
}

void ParseDcfit(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.RequireMap(n, "dcfit");
  rd.CheckKeys(n, "dcfit",
               {"enabled", "recovery", "check_timeout", "switch_id", "trigger_handling",
                "hold_time", "rate_limit"});
  DcfitSettings& d = c->dcfit;
  if (n["enabled"]) d.enabled = rd.Bool(n["enabled"], "dcfit.enabled");
  if (n["recovery"]) {
    const std::string r = rd.Str(n["recovery"], "dcfit.recovery");
    if (r != "detect" && r != "break") rd.Fail(n["recovery"], "dcfit.recovery", "detect or break");
    d.recovery_break = r == "break";
  }
  if (n["check_timeout"])
    d.check_timeout_ns =
        Duration(rd, n["check_timeout"], "dcfit.check_timeout", 1'000, 10'000'000'000);
  if (n["switch_id"]) d.switch_id = rd.Int(n["switch_id"], "dcfit.switch_id", 0, 65535);
  if (n["trigger_handling"])
    d.trigger_handling = rd.Bool(n["trigger_handling"], "dcfit.trigger_handling");
  if (n["hold_time"])
    d.hold_ns = Duration(rd, n["hold_time"], "dcfit.hold_time", 1'000, 3'600'000'000'000);
  if (const YAML::Node r = n["rate_limit"]) {
    // A plain number is a fraction of the line rate; one with a unit, a rate.
    const std::string want =
        "a fraction of the egress port's line rate (0.001 to 1, e.g. 0.5) or a rate such as "
        "5G or 500M (1K..1T)";
    const std::string t = r.IsScalar() ? r.Scalar() : "";
    if (!t.empty() && t.find_first_not_of("0123456789.") == std::string::npos) {
      char* end = nullptr;
      const double v = std::strtod(t.c_str(), &end);
      if (*end != '\0' || !(v >= 0.001 && v <= 1.0)) rd.Fail(r, "dcfit.rate_limit", want);
      d.rate_limit_fraction = v;
      d.rate_limit_bps = 0;
    } else {
      uint64_t bps = 0;
      if (!ParseRate(t, &bps) || bps < 1000 || bps > 1'000'000'000'000ull)
        rd.Fail(r, "dcfit.rate_limit", want);
      d.rate_limit_bps = bps;
    }
  }
  if (!d.enabled) return;
  if (d.trigger_handling && !d.recovery_break)
    rd.Fail(n["trigger_handling"], "dcfit.trigger_handling",
            "recovery: break with trigger handling (a deadlock is broken, then its trigger "
            "handled)");
  if (c->tag_map.lossless_mask == 0)
    rd.Fail(n["enabled"], "dcfit.enabled", "a lossless priority in qos.lossless to watch");
}

}  // namespace pfc::config::sections
