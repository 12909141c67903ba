// SPDX-License-Identifier: BSD-3-Clause
// The fabric's view of DCFIT (results.json "dcfit_events"): every switch's
// loop / deadlock / failed-check events (stages/dcfit_state.h) with the
// emulated time, and for a loop found or a deadlock, the loop itself and
// when it formed. The fabric knows what no single switch does: following
// the paused links from the detecting port through the neighbours' causality
// state (a port's ingress traffic waits on an egress port the next switch
// pauses) gives the loop's links; the latest of the times each link's
// sender has been continuously paused is when the loop formed (every link
// paused), and the event time minus that is the detection time.
//
// Threads: with walk, Take reads the other switches' state, so it runs only
// where every switch runs on the caller's thread (the virtual clock,
// VirtualClock::Run); without (the real clock, once at the end), only the
// event logs and counters, which any thread may read.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/switch/switch.h"

namespace pfc::emulator {

class DcfitReport {
 public:
  // After a round of switch i (sws[i], parallel to plan.switches): takes its
  // new events, if any (cheap otherwise: compares its event counters); with
  // walk, each loop / deadlock event with its loop and detection time.
  void Take(const std::vector<const sw::Switch*>& sws, const emulator::FabricPlan& plan, size_t i,
            bool walk);
  const nlohmann::json& events() const { return events_; }

 private:
  std::vector<uint64_t> counted_;  // per switch: events counted so far
  std::vector<size_t> taken_;      // per switch: log entries taken
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace pfc::emulator
