// SPDX-License-Identifier: BSD-3-Clause
// Where the virtual clock's threads spent a run (--threads): written by
// VirtualClock::Run, read into timing.json (results.h RunTiming).
#pragma once
#include <cstdint>
#include <vector>

namespace pfc::emulator {

// The virtual clock's threads over a run (--threads; timing.json's
// "threads"): why two threads do not halve a run's wall time. Measured on
// the real clock, so apart from the results.
struct WindowTimes {
  // Per thread (the main thread first): in its partition's windows, and
  // waiting for the others and the boundary.
  std::vector<double> busy_seconds, wait_seconds;
  double boundary_seconds = 0;  // the main thread alone, between windows
  // The sum over windows of the slowest thread's window: what the run
  // takes on as many free cores with no time lost to waking threads.
  double critical_seconds = 0;
  uint64_t windows = 0;
};

}  // namespace pfc::emulator
