// SPDX-License-Identifier: BSD-3-Clause
// Counter arithmetic over pfcctl's stats documents (the shape of
// `pfcctl stats`: {"ports": [{..., "prio": [{..., "drops": {...}}]}],
// "drops_total"}): what changed since a baseline (`pfcctl clear counters`)
// and rates between two samples (`-i`). Values that are not counters
// (depths, occupancies, watermarks, thresholds, on/off flags: IsGauge)
// pass through as the newer sample has them. Pure; no DPDK.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace pfc::pfcctl {

// True for a value that is a level, not a count of events since start.
bool IsGauge(const std::string& name);

// cur less base, counter by counter (same shape; ports and priorities by
// index). A counter below its baseline, or missing from it, is shown whole:
// the switch restarted, or the value is new.
nlohmann::json Since(const nlohmann::json& cur, const nlohmann::json& base);

// (cur - prev) / seconds for each counter, as a double; gauges as in cur.
nlohmann::json PerSecond(const nlohmann::json& cur, const nlohmann::json& prev, double seconds);

}  // namespace pfc::pfcctl
