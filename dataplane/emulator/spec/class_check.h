// SPDX-License-Identifier: BSD-3-Clause
// Does each flow's traffic class survive its first switch? A flow names a
// DSCP and a priority; the switch it enters decides the class from its own
// qos and rewrite sections (the template, or pfc-tagger's rules). A flow
// whose DSCP the switch maps to no class, or whose DSCP Tagger's rules do
// not match (so `unmatched: lossy` rewrites it to the lossy tag), runs
// lossy without a word: what a RoCE user meets with DSCP 26 and rules made
// for tags 1..N. The same for the CNPs a DCQCN receiver sends. Warnings
// only: a lossy flow can be what the user wants. Pure; control thread,
// after the switch configs are loaded.
#pragma once
#include <string>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/fabric_spec.h"

namespace pfc::emulator {

// configs[i] is plan.switches[i]'s (as WriteSwitchConfigs leaves them).
std::vector<std::string> ClassWarnings(const FabricSpec& spec, const FabricPlan& plan,
                                       const std::vector<config::SwitchConfig>& configs);

}  // namespace pfc::emulator
