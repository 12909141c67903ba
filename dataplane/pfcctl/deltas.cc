// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcctl/deltas.h"

#include <set>

namespace pfc::pfcctl {
namespace {

using nlohmann::json;

// f(newer, older) for each counter of cur, walking both documents in step;
// older is null where the other document has no such value.
template <typename F>
json Combine(const json& cur, const json& other, const std::string& name, F&& f) {
  if (cur.is_object()) {
    json out = json::object();
    for (auto it = cur.begin(); it != cur.end(); ++it) {
      const json& o = other.is_object() && other.contains(it.key()) ? other[it.key()] : json();
      out[it.key()] = Combine(it.value(), o, it.key(), f);
    }
    return out;
  }
  if (cur.is_array()) {
    json out = json::array();
    for (size_t i = 0; i < cur.size(); i++)
      out.push_back(
          Combine(cur[i], other.is_array() && i < other.size() ? other[i] : json(), name, f));
    return out;
  }
  if (!cur.is_number_unsigned() || IsGauge(name)) return cur;
  return f(cur.get<uint64_t>(), other.is_number_unsigned() ? other.get<uint64_t>() : 0);
}

}  // namespace

bool IsGauge(const std::string& name) {
  // stats_report.cc's levels and the "Set, not Add" flags of stats.h; the
  // time counters (paused_ns, pausing_ns, pfcwd_storm_ns) only grow.
  static const std::set<std::string> kGauges = {"prio",
                                                "lossless",
                                                "queue_depth",
                                                "queue_bytes",
                                                "buffer_bytes",
                                                "buffer_watermark",
                                                "xoff_threshold",
                                                "xon_threshold",
                                                "headroom_used",
                                                "headroom_watermark",
                                                "egress_watermark",
                                                "paused_now",
                                                "pausing_now",
                                                "pfcwd_in_storm",
                                                "link_up",
                                                "generation",
                                                "buffer_shared_used",
                                                "buffer_shared_size",
                                                "pool_in_use",
                                                "pool_size",
                                                "pool_populated"};
  return kGauges.count(name) != 0;
}

json Since(const json& cur, const json& base) {
  return Combine(cur, base, "", [](uint64_t c, uint64_t b) { return json(c >= b ? c - b : c); });
}

json PerSecond(const json& cur, const json& prev, double seconds) {
  return Combine(cur, prev, "", [&](uint64_t c, uint64_t p) {
    const double d = c >= p ? static_cast<double>(c - p) : static_cast<double>(c);
    return json(seconds > 0 ? d / seconds : 0.0);
  });
}

}  // namespace pfc::pfcctl
