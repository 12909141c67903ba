// SPDX-License-Identifier: BSD-3-Clause
// pfcswitch's report at exit, beside pfcswitch_main.cc: after the workers
// have stopped, before the switch is taken apart.
#pragma once
#include <string>

#include "dataplane/switch/switch.h"

namespace pfc::pfcswitch {

// The exit's summary line on stdout, and every counter where --stats-json
// says ("-": stdout; empty: nowhere); stdout flushed.
void ReportAtExit(const sw::Switch& sw, const std::string& stats_json);

}  // namespace pfc::pfcswitch
