// SPDX-License-Identifier: BSD-3-Clause
// The run's verdict (results.json "verdict" and the last lines pfcfabric
// prints), from the fabric's read-only view and the recorder's samples:
// deadlocks found in the data plane (cycles of links held paused and
// idle, model/deadlock_cycles.h), frames lost by class and reason, flows
// below their asked rate, sized flows that did not complete. After Run,
// from what it left (run_facts.h).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dataplane/emulator/runtime/run_facts.h"

namespace pfc::emulator {

// {deadlocks: [{cycle, prios, since_ns, stuck_links}], stuck_links,
// held_by_hosts, lost: {lossless_prios, lossy_prios: {reason: frames},
// link_down}, slow_flows: [{flow, asked_bps, got_bps}], sized_flows,
// incomplete_flows, ok}, from the run's settled facts; `all` names the
// fabric's switches by the facts' index (AllSwitches).
nlohmann::json Verdict(const FabricSpec& spec, const FabricPlan& plan,
                       const std::vector<FabricPlan::SwitchNames>& all, const RunFacts& facts);
// The verdict's lines, as pfcfabric prints them last.
std::vector<std::string> VerdictLines(const nlohmann::json& verdict, bool real_clock);
// pfcfabric --expect: the expectations (no-deadlock, lossless, no-loss,
// rates, complete) the verdict does not meet, each with what it saw
// ("no-deadlock (1 deadlock)"), joined by "; "; empty when all hold.
std::string FailedExpectations(const nlohmann::json& verdict,
                               const std::vector<std::string>& expect);

}  // namespace pfc::emulator
