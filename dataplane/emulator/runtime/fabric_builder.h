// SPDX-License-Identifier: BSD-3-Clause
// The fabric's builder (ns-3's helper): makes the container (fabric.h) from
// the fabric file as loaded and validated (spec/fabric_spec.h LoadFabric),
// its plan and the switches' configs as their own loader read them
// (spec/fabric_plan.h). In order: the emulated links' ends, the captures,
// one mbuf pool for every switch, link and host, the switches (under the
// memory budget, memory_budget.h), the emulated hosts with their flows,
// and the switches' telemetry. What runs the fabric (a clock's calendars,
// the real clock's workers) is the clock's to add (clock.h).
//
// Nothing here validates the file: what can fail is the machine (a device,
// a capture file, memory).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/fabric_spec.h"

namespace pfc::emulator {

// After rte_eal_init; spec and plan outlive the fabric. `workers`: the
// real clock's worker lcores (0 for the virtual clock). Null with *err
// naming the file and what failed.
std::unique_ptr<Fabric> BuildFabric(const FabricSpec& spec, const FabricPlan& plan,
                                    const std::vector<config::SwitchConfig>& configs,
                                    unsigned workers, std::string* err);

}  // namespace pfc::emulator
