// SPDX-License-Identifier: BSD-3-Clause
// IPv4 -> MAC neighbour table (the switch's ARP cache). Fixed capacity, open
// addressing, lock-free: entries are written by whichever thread learns them
// (the control thread for static config, a worker when it processes an ARP
// packet) with atomic publication, and read by all workers. A miss never
// floods (SIGCOMM'16 §4.2): the caller drops with kNeighborMiss and may send
// an ARP request. Entries are never deleted while the switch runs, only
// overwritten (a host that changes MAC is re-learnt).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include "dataplane/common/types.h"

namespace pfc {

class NeighborTable {
 public:
  explicit NeighborTable(uint32_t capacity_pow2 = 4096);
  // Insert or update. Returns false when the table is full.
  bool Learn(uint32_t ip, const uint8_t mac[6], bool is_static);
  // Copies the MAC and returns true when known.
  bool Lookup(uint32_t ip, uint8_t mac[6]) const;
  uint32_t size() const { return used_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::atomic<uint32_t> ip{0};        // 0 = empty slot
    std::atomic<uint64_t> mac_flags{0}; // low 48 bits MAC, bit 63 valid, bit 62 static
  };
  std::unique_ptr<Entry[]> slots_;
  uint32_t mask_;
  std::atomic<uint32_t> used_{0};
};

}  // namespace pfc
