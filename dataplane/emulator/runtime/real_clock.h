// SPDX-License-Identifier: BSD-3-Clause
// The real clock (clock.h): switches are pinned to EAL worker lcores
// (whole switches, round robin, so per-switch state has one writer) and
// run WorkerMain as pfcswitch does; the calling thread (EAL's main lcore)
// runs the emulated hosts, the timeline, the recorder and the real hosts'
// link watch.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "dataplane/emulator/runtime/clock.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::emulator {

class RealClock final : public Clock {
 public:
  // The workers' slots; then the events at time 0, the fabric's initial
  // state, applied before the clock starts (a route or rules change
  // rebuilds the switch's tables, which takes real time); then one time
  // base for switches, hosts and the timeline: 0 = now.
  explicit RealClock(Fabric& fab);
  // Launches the workers, runs until `stop` or the duration (0 = until
  // stop), then stops them.
  uint64_t Run(const std::atomic<int>& stop) override;

 private:
  std::vector<stages::Worker> workers_;  // one per EAL worker lcore
};

}  // namespace pfc::emulator
