// SPDX-License-Identifier: BSD-3-Clause
// What the results and the verdict read off the fabric after a run, over
// its read-only view (a const Fabric): every switch's drops, each flow's
// sender and receiver state and its completion time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/runtime/fabric.h"

namespace pfc::emulator {

// f(lossless priority?, reason, drops) for every switch, worker, port,
// priority and reason with drops: the one walk the drop totals and the
// verdict share (run_facts.h sums it).
template <typename F>
void ForEachDrop(const Fabric& fab, F&& f) {
  for (const SwitchRun& s : fab.switches())
    for (const auto& w : s.sw->stats)
      for (size_t p = 0; p < s.sw->ports.size(); p++)
        for (int q = 0; q < kNumPrio; q++)
          for (int r = 0; r < kNumDropReasons; r++)
            if (const uint64_t n = w->prio[p][q].drops[r].Get())
              f(s.sw->cfg.tag_map.IsLossless(q), static_cast<DropReason>(r), n);
}

// Each flow of the file, by its index: its sender's state (nullptr: it
// does not run here) and what its receiver saw (nullptr: nothing). Built in
// one pass over the hosts: looking each flow up among every host's flows
// made collecting a run's facts quadratic in its flows (a tenth of a
// 30,000-flow run's CPU). The first host in order that has the flow wins.
struct FlowStates {
  std::vector<const FlowTx*> tx;
  std::vector<const FlowRx*> rx;
};
FlowStates IndexFlows(const Fabric& fab);
// Flow i's completion time (a sized flow), from its states in `st`.
Fct FlowFct(const Fabric& fab, const FlowStates& st, size_t i);

}  // namespace pfc::emulator
