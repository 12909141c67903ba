// SPDX-License-Identifier: BSD-3-Clause
// What a run leaves behind in the file's out_dir, from the fabric's
// read-only view and what the clock recorded: results.json (with the
// run's verdict, verdict.h), flows.csv, ports.csv and drops.csv (the
// recorder's), fct.csv when some flow is sized, and timing.json (the
// run's wall time, the start-up before it and the mbufs the pool grew
// to: the wall-clock facts apart, so the rest is byte-identical across
// runs). On the clock's thread, after Run.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "dataplane/emulator/runtime/clock.h"
#include "dataplane/emulator/runtime/fabric.h"

namespace pfc::emulator {

bool WriteResults(const Fabric& fab, const Clock& run, double wall_seconds, double startup_seconds,
                  const nlohmann::json& verdict, std::string* err);

}  // namespace pfc::emulator
