// SPDX-License-Identifier: BSD-3-Clause
// The static L2 table (config `l2_table`): destination MAC -> port, built
// once per tables snapshot and read lock-free by every worker. Open
// addressing with linear probing at load <= 1/2, so a lookup costs one hash
// and usually one probe whatever the table's size (a linear scan would cost
// 6 instructions per entry per packet). Pure, no DPDK.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "dataplane/common/types.h"

namespace pfc::tables {

class StaticL2Table {
 public:
  // Sizes the table for n entries (call before Insert).
  void Reserve(size_t n) {
    size_t cap = 2;
    while (cap < 2 * n) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    size_ = 0;
  }
  // The first entry for a MAC wins (the config refuses duplicates anyway).
  // Returns false when the table is full (Reserve was too small).
  bool Insert(const uint8_t mac[6], PortId port) {
    if (slots_.empty()) return false;
    const uint64_t k = Key(mac);
    for (size_t i = Hash(k);; i = (i + 1) & mask_) {
      if (slots_[i].key == k) return true;
      if (slots_[i].key == kEmpty) {
        if (2 * (size_ + 1) > slots_.size()) return false;  // keep load <= 1/2
        slots_[i] = Slot{k, static_cast<int32_t>(port)};
        ++size_;
        return true;
      }
    }
  }
  // The port for mac, or -1.
  int Lookup(const uint8_t mac[6]) const {
    if (size_ == 0) return -1;
    const uint64_t k = Key(mac);
    for (size_t i = Hash(k);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == k) return s.port;
      if (s.key == kEmpty) return -1;
    }
  }
  size_t size() const { return size_; }

 private:
  // A MAC is 48 bits, so no MAC's key has the top bit set.
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key = kEmpty;
    int32_t port = -1;
  };
  static uint64_t Key(const uint8_t mac[6]) {
    uint32_t hi;
    uint16_t lo;
    std::memcpy(&hi, mac, 4);
    std::memcpy(&lo, mac + 4, 2);
    return (uint64_t{lo} << 32) | hi;
  }
  size_t Hash(uint64_t k) const {
    return static_cast<size_t>((k * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace pfc::tables
