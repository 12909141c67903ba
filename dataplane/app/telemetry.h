// SPDX-License-Identifier: BSD-3-Clause
// DPDK telemetry commands of the switch (read with DPDK's dpdk-telemetry.py
// or pfcctl). Callbacks run on DPDK's telemetry threads (one per client), so
// they only read counters and tables, and serialise reloads through
// Runtime::Publish. Commands:
//   /pfcswitch/info                      config path, mode, generation, sizes
//   /pfcswitch/ports                     port names, in config order
//   /pfcswitch/port_stats,<port>         counters of one port; per-priority
//                                        counters as arrays indexed by priority
//                                        ("prio_rx_packets", "prio_drop_no_route")
//   /pfcswitch/reload,<file>             load rules/routes from a file, publish
#pragma once
#include "dataplane/app/runtime.h"

namespace pfc {

void RegisterTelemetry(Runtime* rt);

}  // namespace pfc
