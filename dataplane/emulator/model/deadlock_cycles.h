// SPDX-License-Identifier: BSD-3-Clause
// The fabric's deadlock verdict from the data plane alone: a link whose
// sender has been paused by its receiver and sent nothing for a while is
// stuck; a cycle of stuck links (each switch waiting on the next) is a
// deadlock. This finds the cycles: every strongly connected group of
// switches joined by stuck links (Tarjan's algorithm) and, for each, one
// cycle through it to name, with the moment its last link got stuck.
//
// Pure: switch numbers in, cycles out; the runtime (verdict.cc) reads the
// stuck links from the recorder. Also what bench/dcfit's truth computes
// from ports.csv (tools/pfclib/fabric_results.py stuck_ports).
#pragma once
#include <cstdint>
#include <vector>

namespace pfc::emulator {

struct StuckLink {
  uint32_t from = 0, to = 0;  // the paused sender's switch, the receiver's
  uint8_t prio = 0;
  uint64_t since_ns = 0;  // paused and idle from then to the end
};

struct DeadlockCycle {
  std::vector<uint32_t> switches;  // in order; the first is not repeated
  uint8_t prio_mask = 0;           // priorities its links are stuck on
  uint64_t since_ns = 0;           // when the last of its links got stuck
  uint32_t stuck_links = 0;        // stuck links inside its group of switches
};

// One cycle per group of switches that wait on each other in a circle;
// groups in order of their smallest switch number. n: switch numbers are
// below it.
std::vector<DeadlockCycle> FindDeadlocks(uint32_t n, const std::vector<StuckLink>& stuck);

}  // namespace pfc::emulator
