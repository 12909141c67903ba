// SPDX-License-Identifier: BSD-3-Clause
// What a pipeline mechanism (stages/mechanism.h: the pause-storm watchdog,
// DCFIT, ECN marking) keeps for a switch, in slots the switch does not
// name: slot i belongs to the i-th mechanism in their sorted order, which
// makes and reads its own state type. The switch only owns and frees it.
//
// Threads: made on the main thread before any worker runs the switch
// (stages::MakeWorkerCtx); what is inside says who writes what.
#pragma once
#include <array>
#include <memory>

namespace pfc::sw {

struct MechanismState {
  virtual ~MechanismState() = default;
};

inline constexpr int kMaxMechanisms = 8;
using MechanismSlots = std::array<std::unique_ptr<MechanismState>, kMaxMechanisms>;

}  // namespace pfc::sw
