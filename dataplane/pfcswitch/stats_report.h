// SPDX-License-Identifier: BSD-3-Clause
// Turns the per-worker counters (summed), buffer occupancy and table state
// into one JSON document: the single source for the exit report, the
// --stats-json file and the telemetry commands (which re-shape it for DPDK's
// telemetry format). Read-only over the switch; any thread.
#pragma once
#include <nlohmann/json.hpp>

#include "dataplane/switch/switch.h"

namespace pfc::pfcswitch {

nlohmann::json PortStatsJson(const sw::Switch& sw, PortId port);
// Switch-wide values: generation, shared buffer, mbuf pool, worker loops.
nlohmann::json SwitchStatsJson(const sw::Switch& sw);
nlohmann::json StatsJson(const sw::Switch& sw);

}  // namespace pfc::pfcswitch
