// SPDX-License-Identifier: BSD-3-Clause
// The one way the dataplane and the emulator say "when something next needs
// attention": a time in nanoseconds on the caller's clock (real or virtual),
// with kNever for "nothing ahead". Pause timers, the PFC generator, the
// watchdog, the shaper, emulated links and hosts report deadlines; a round
// merges them with Earliest, and the emulator's calendar and the worker's
// idle sleep read the result. Because kNever is the largest value, the merge
// is a plain minimum: no special case for "none".
// Pure header: no DPDK.
#pragma once
#include <cstdint>

namespace pfc {

using Deadline = uint64_t;  // ns; kNever: nothing due
inline constexpr Deadline kNever = ~Deadline{0};

constexpr Deadline Earliest(Deadline a, Deadline b) { return b < a ? b : a; }
// *d becomes the earlier of itself and t.
inline void LowerTo(Deadline* d, Deadline t) { *d = Earliest(*d, t); }
// t rounded up to a multiple of step (0: t itself); kNever stays kNever. A
// stepped virtual clock's switch round time (fabric.quantum).
constexpr Deadline StepUp(Deadline t, uint64_t step) {
  return step == 0 || t == kNever ? t : (t + step - 1) / step * step;
}

}  // namespace pfc
