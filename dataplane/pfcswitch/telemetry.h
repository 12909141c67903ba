// SPDX-License-Identifier: BSD-3-Clause
// DPDK telemetry commands of the switches of this process (read with DPDK's
// dpdk-telemetry.py or pfcctl). Callbacks run on DPDK's telemetry threads
// (one per client), so they only read counters and tables, and serialise
// reloads through Switch::Publish. A process with one switch (pfcswitch)
// takes the parameters below as they are; with several (the fabric
// emulator) every parameter list starts with the switch's name:
//   /pfcswitch/switches                  switch names
//   /pfcswitch/info[,<switch>]           config path, mode, generation, sizes
//   /pfcswitch/ports[,<switch>]          port names, in config order
//   /pfcswitch/port_stats,[<switch>,]<port>
//                                        counters of one port; per-priority
//                                        counters as arrays indexed by priority
//                                        ("prio_rx_packets", "prio_drop_no_route")
//   /pfcswitch/reload,[<switch>,]<file>  load rules/routes from a file, publish
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "dataplane/switch/switch.h"

namespace pfc::pfcswitch {

// Registers the commands over `switches` (which outlive the process's
// telemetry). Each switch's running config starts as its cfg.
void RegisterTelemetry(const std::vector<sw::Switch*>& switches);

// Loads `path` as an update of `*running` (routes, rules, qos, neighbours),
// applies it to `sw` and adopts it as the running config. Serialised with the
// telemetry reload command. Control thread only.
bool ReloadSwitch(sw::Switch& sw, const std::string& path, std::string* err);

// Edits a copy of the switch's running config (edit returns false with *err
// to abandon), applies it and adopts it; the same serialisation as reloads.
// The fabric's route events use it. Control thread only.
bool EditRunningConfig(sw::Switch& sw,
                       const std::function<bool(config::SwitchConfig*, std::string*)>& edit,
                       std::string* err);

}  // namespace pfc::pfcswitch
