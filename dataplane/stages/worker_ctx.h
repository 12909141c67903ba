// SPDX-License-Identifier: BSD-3-Clause
// What one worker lcore carries from stage to stage: the runtime, its own
// counters, the ports it owns (polls and transmits), the clock of the current
// round and a small ARP-request rate limiter. Owned by exactly one worker.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "dataplane/app/runtime.h"

namespace pfc {

struct WorkerCtx {
  Runtime* rt = nullptr;
  unsigned id = 0;
  WorkerStats* st = nullptr;
  std::vector<PortId> ports;          // owned ports
  uint64_t now_ns = 0;                // clock of the current poll round
  // ARP requests for unresolved next hops: at most one per address per
  // kArpRetryNs, so a burst to an unknown host does not become an ARP storm.
  static constexpr uint64_t kArpRetryNs = 100'000'000;
  std::array<uint32_t, 64> arp_ip{};
  std::array<uint64_t, 64> arp_last_ns{};
};

}  // namespace pfc
