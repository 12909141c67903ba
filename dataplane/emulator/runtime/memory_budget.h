// SPDX-License-Identifier: BSD-3-Clause
// The fabric's memory check while the builder (fabric_builder.h) makes it. A fabric's
// memory before its frames is mostly its switches' state (about 4 MB for
// a 16-port switch: bench/fabric/scale.sh), which depends on each switch's
// config and ports; so the check measures it (this process's resident
// set) as switches are made, projects the rest at every 256th (from the
// 16th on: the first switches pay for heap the later ones reuse), and
// stops the fabric before it runs when that does not fit in
// the budget (the machine's MemAvailable at the start, or
// pfcfabric --memory-limit), rather than letting the OOM killer end it
// mid-run. What is left when the switches are made bounds the growth of
// the mbuf pool (Dataplane::grow_limit).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace pfc::emulator {

class MemoryBudget {
 public:
  // limit: bytes the fabric may use; 0: MemAvailable now (no check when
  // /proc says nothing).
  explicit MemoryBudget(uint64_t limit);
  // After `made` of `total` switches: true when made is not a point to
  // check at, or the projection fits; else false with *err ("needs about
  // N GB ..., M GB available"). What was allocated since the budget was
  // made counts (the frames' pool, populated before the switches, too).
  bool Check(size_t made, size_t total, std::string* err);
  // Bytes still free in the budget now, less a margin (0 without a budget).
  uint64_t Left() const;
  uint64_t budget() const { return budget_; }

 private:
  uint64_t budget_ = 0;
  uint64_t base_ = 0;  // resident bytes when the budget was made
  uint64_t at16_ = 0;  // and after the 16th switch
};

}  // namespace pfc::emulator
