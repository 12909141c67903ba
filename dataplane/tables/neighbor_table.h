// SPDX-License-Identifier: BSD-3-Clause
// IPv4 -> MAC neighbour table (the switch's ARP cache). Fixed capacity, open
// addressing, lock-free for readers: entries are written by whichever thread
// learns them (in the switch: a worker when it processes an ARP packet), one
// writer at a time, with atomic publication, and read by all workers. The switch keeps its
// configured neighbours in the published snapshot (static_neighbors.h), not here, so a reload
// replaces them atomically. A miss never floods (SIGCOMM'16 §4.2): the caller drops with
// kNeighborMiss and may send an ARP request. Entries are never deleted while the switch runs, only
// overwritten (a host that changes MAC is re-learnt).
//
// Publication: a writer claims a slot by storing `ip`, then publishes the MAC
// with one 64-bit atomic store (valid bit set), so a reader sees either no
// entry or a whole MAC, never a torn one. The table holds `capacity` entries
// in 2*capacity slots, so linear probes stay short even when it is full.
// An entry learnt with is_static is never overwritten by a dynamic Learn; a
// static Learn overwrites anything.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "dataplane/common/types.h"

namespace pfc::tables {

class NeighborTable {
 public:
  // capacity_pow2 is rounded up to a power of two (at least 1, at most 2^24).
  explicit NeighborTable(uint32_t capacity_pow2 = 4096);
  // Insert or update. Returns false when the table is full (a new IP and
  // `capacity` entries already) or ip == 0 (reserved as the empty marker).
  // Returns true without changing it when a dynamic Learn meets a static entry.
  bool Learn(uint32_t ip, const uint8_t mac[6], bool is_static);
  // Copies the MAC and returns true when known.
  bool Lookup(uint32_t ip, uint8_t mac[6]) const;
  // True when ip has an entry that was learnt as static.
  bool IsStatic(uint32_t ip) const;
  uint32_t size() const { return used_.load(std::memory_order_relaxed); }
  uint32_t capacity() const { return capacity_; }

 private:
  struct Entry {
    std::atomic<uint32_t> ip{0};         // 0 = empty slot
    std::atomic<uint64_t> mac_flags{0};  // low 48 bits MAC, bit 63 valid, bit 62 static
  };
  static constexpr uint64_t kValid = uint64_t{1} << 63;
  static constexpr uint64_t kStatic = uint64_t{1} << 62;

  const Entry* Find(uint32_t ip) const;
  static void Publish(Entry& e, uint64_t val, bool is_static);

  std::unique_ptr<Entry[]> slots_;
  uint32_t mask_;
  uint32_t capacity_;
  std::atomic<uint32_t> used_{0};
  std::mutex learn_mu_;  // writers only (see Learn)
};

}  // namespace pfc::tables
