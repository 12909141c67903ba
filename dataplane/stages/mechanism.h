// SPDX-License-Identifier: BSD-3-Clause
// A mechanism: one feature of the pipeline (the pause-storm watchdog, DCFIT,
// ECN marking) as one module that says, in one place, whether a switch runs
// it and which hook users it adds (hooks.h), and how its users are ordered
// against other mechanisms' at the points they share: `runs_after` /
// `runs_before` name other mechanisms, as VPP's feature registrations do,
// and the core sorts what is registered (SortMechanisms), so no order is
// implied by a position in code.
//
// Adding a mechanism: its module defines a `const Mechanism`, and one line
// of mechanisms.cc registers it. Registered explicitly rather than by a
// static constructor: a module of a static library that nothing else
// references would be left out by the linker, and its registration with it.
#pragma once
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dataplane/stages/hooks.h"
#include "dataplane/stages/worker_ctx.h"
#include "dataplane/switch/switch.h"

namespace pfc::stages {

struct Mechanism {
  static constexpr int kMaxOrder = 4;
  const char* name = nullptr;
  // Mechanisms whose users this one's follow (precede) at every hook point
  // both use; unregistered names are ignored (a mechanism left out of a
  // build constrains nothing).
  std::array<const char*, kMaxOrder> runs_after{};
  std::array<const char*, kMaxOrder> runs_before{};
  // Whether `sw` runs it (its config asks for it).
  bool (*wanted)(const sw::Switch& sw) = nullptr;
  // Adds its users to *h (called only when wanted).
  void (*wire)(const sw::Switch& sw, Hooks* h) = nullptr;
  // Its state for the switch, kept in the switch's slot for it
  // (switch/mechanism_state.h; made once, when wanted); may be null. The
  // config was validated: a state it cannot make is a bug, fatal.
  std::unique_ptr<sw::MechanismState> (*make_state)(const sw::Switch& sw) = nullptr;
  // Its state for worker `id` serving the switch, kept in the worker's
  // slot (WorkerCtx::mech; made with the worker's context, after the
  // switch's); may be null.
  std::unique_ptr<sw::MechanismState> (*make_worker_state)(const sw::Switch& sw,
                                                           const WorkerCtx& w) = nullptr;
  // Its slot (its place in OrderedMechanisms), set when they are sorted,
  // before any state is made: the packet path's lookup is one load, where
  // a function-local static would test its guard at every call.
  mutable int slot = -1;
};

// Every mechanism the build has (mechanisms.cc), in no particular order.
std::span<const Mechanism* const> RegisteredMechanisms();

// `m` in an order every runs_after / runs_before holds in, ties kept in
// their given order; false with *err naming a duplicate name or the
// mechanisms of a cycle.
bool SortMechanisms(std::vector<const Mechanism*>* m, std::string* err);

// RegisteredMechanisms sorted, once; a registration that cannot be sorted
// is a programming error, reported and fatal at the first call.
const std::vector<const Mechanism*>& OrderedMechanisms();

// m's slot in a switch's MechanismSlots: its place in OrderedMechanisms.
int MechanismSlot(const Mechanism& m);

// Makes the state of every mechanism sw runs that has none yet; on the
// main thread before a worker runs sw (MakeWorkerCtx calls it).
void MakeMechanismState(sw::Switch& sw);

// Makes, into w.mech, the worker state of every mechanism w's switch runs
// (MakeWorkerCtx calls it).
void MakeMechanismWorkerState(WorkerCtx& w);

// The state m keeps for sw (for worker w), as the type its make_state
// (make_worker_state) made.
template <typename T>
T& MechanismStateOf(const sw::Switch& sw, const Mechanism& m) {
  return static_cast<T&>(*sw.mech[m.slot]);
}
template <typename T>
T& MechanismStateOf(const WorkerCtx& w, const Mechanism& m) {
  return static_cast<T&>(*w.mech[m.slot]);
}
// The same, or null when sw does not run m (or has made no state yet).
template <typename T>
T* FindMechanismState(const sw::Switch& sw, const Mechanism& m) {
  return m.slot < 0 ? nullptr : static_cast<T*>(sw.mech[m.slot].get());
}

}  // namespace pfc::stages
