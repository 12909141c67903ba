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

namespace pfc::sw {
class Switch;
}  // namespace pfc::sw

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

}  // namespace pfc::stages
