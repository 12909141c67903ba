// SPDX-License-Identifier: BSD-3-Clause
// Parameter handling of the /pfcswitch/* telemetry commands, kept apart from
// DPDK so that it is unit-tested and fuzzed (tests/dataplane/pfcswitch). DPDK's
// telemetry thread splits a request "/cmd,params" at the first comma and
// hands the rest (or NULL when there is none) to the command's callback in
// telemetry.cc, which calls these. Pure; any thread.
#pragma once
#include <string>
#include <vector>

namespace pfc {

inline constexpr char kReloadUsage[] = "usage: /pfcswitch/reload,[<switch>,]<rules-or-routes-file>";

// Which switch a command's parameters name, and the rest of them: with
// several switches (the fabric emulator) they start with "<switch>," or are
// just "<switch>"; with one (pfcswitch, or one switch of a split fabric) the
// name may be given the same way or left out.
// Returns the switch's index in `switches`, or -1.
int SwitchParam(const char* params, const std::vector<std::string>& switches, std::string* rest);

// /pfcswitch/port_stats,<port>: a name from `names` (config order), else a
// 0-based index written with digits only. Returns the port's index, or -1 when params names no
// port.
int PortParam(const char* params, const std::vector<std::string>& names);

// /pfcswitch/reload,<file>: the path of a rules/routes file. False when
// params is missing or empty (the caller replies with kReloadUsage).
bool ReloadParam(const char* params, std::string* path);

}  // namespace pfc
