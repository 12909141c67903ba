// SPDX-License-Identifier: BSD-3-Clause
// Turns the per-worker counters (summed), buffer occupancy and table state
// into one JSON document: the single source for the exit report, the
// --stats-json file and the telemetry commands (which re-shape it for DPDK's
// telemetry format). Read-only over the runtime; any thread.
#pragma once
#include <nlohmann/json.hpp>

#include "dataplane/app/runtime.h"

namespace pfc {

nlohmann::json PortStatsJson(const Runtime& rt, PortId port);
// Switch-wide values: generation, shared buffer, mbuf pool, worker loops.
nlohmann::json SwitchStatsJson(const Runtime& rt);
nlohmann::json StatsJson(const Runtime& rt);

}  // namespace pfc
