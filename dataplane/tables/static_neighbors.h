// SPDX-License-Identifier: BSD-3-Clause
// The configured (static) neighbours: IPv4 -> MAC from the config's
// `neighbors` section. Immutable once built and part of the published
// Tables snapshot (switch/tables_snapshot.h), so a reload replaces the whole
// set in one store: a neighbour removed from the file is gone, a failed
// reload leaves the old set. Workers consult it before the ARP cache
// (neighbor_table.h), so a forged ARP reply cannot redirect a configured next
// hop. Looked up for every routed packet whose next hop differs from its
// burst's last (in an emulated fabric, nearly every packet: bursts there are
// one frame), so it is an open-addressing hash, at most half full, with the
// MAC in the slot: one multiply and usually one line (a binary search over a
// ToR's neighbours took ~60 instructions a packet). Pure code.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace pfc::tables {

class StaticNeighbors {
 public:
  struct Entry {
    uint32_t ip;
    std::array<uint8_t, 6> mac;
  };
  // Builds the set. False with *err naming the field ("neighbors[i].ip")
  // when an address is 0 or given twice; the set is then unchanged.
  bool Build(const std::vector<Entry>& entries, std::string* err);
  // Copies the MAC and returns true when ip is configured.
  bool Lookup(uint32_t ip, uint8_t mac[6]) const {
    const Slot* s = Find(ip);
    if (s == nullptr) return false;
    std::memcpy(mac, s->mac.data(), 6);
    return true;
  }
  bool Contains(uint32_t ip) const { return Find(ip) != nullptr; }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t ip = 0;  // 0: empty (never configured: Build refuses it)
    std::array<uint8_t, 6> mac{};
  };
  static uint32_t Home(uint32_t ip, uint32_t mask) {
    return static_cast<uint32_t>((ip * uint64_t{0x9E3779B97F4A7C15}) >> 32) & mask;
  }
  const Slot* Find(uint32_t ip) const {
    if (ip == 0) return nullptr;
    for (uint32_t i = Home(ip, mask_);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.ip == ip) return &s;
      if (s.ip == 0) return nullptr;  // at most half full: a probe ends
    }
  }

  std::vector<Slot> slots_ = std::vector<Slot>(1);  // a power of two
  uint32_t mask_ = 0;                               // slots_.size() - 1
  size_t size_ = 0;
};

}  // namespace pfc::tables
