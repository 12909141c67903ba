// SPDX-License-Identifier: BSD-3-Clause
// The switches' own events (DCFIT's, the pause-storm watchdog's:
// switch/log.h) printed as they come, by the thread that runs the clock
// (the workers only log them), DCFIT's lines naming the episode's switches
// and ports by the fabric's names ("L2 port S1") rather than by their
// DCFIT switch IDs. One printer a switch, owned by the clock.
#pragma once
#include <vector>

#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/switch/log.h"

namespace pfc::emulator {

class SwitchLogs {
 public:
  explicit SwitchLogs(const Fabric& fab);
  // Every switch's events logged since the last call.
  void Print(const Fabric& fab);

 private:
  std::vector<sw::EventPrinter> printers_;  // parallel to fab.switches()
};

}  // namespace pfc::emulator
