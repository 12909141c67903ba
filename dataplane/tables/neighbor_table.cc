// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/tables/neighbor_table.h"

#include <algorithm>
#include <bit>

namespace pfc::tables {
namespace {

// murmur3's 32-bit finaliser: addresses in one subnet differ only in their
// low bits, which must spread over the whole table.
inline uint32_t Hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

inline uint64_t PackMac(const uint8_t mac[6]) {
  uint64_t v = 0;
  for (int i = 0; i < 6; ++i) v = (v << 8) | mac[i];
  return v;
}

inline void UnpackMac(uint64_t v, uint8_t mac[6]) {
  for (int i = 5; i >= 0; --i, v >>= 8) mac[i] = static_cast<uint8_t>(v);
}

}  // namespace

NeighborTable::NeighborTable(uint32_t capacity_pow2) {
  capacity_ = std::bit_ceil(std::clamp<uint32_t>(capacity_pow2, 1, 1u << 24));
  const uint32_t slots = 2 * capacity_;
  slots_ = std::make_unique<Entry[]>(slots);
  mask_ = slots - 1;
}

void NeighborTable::Publish(Entry& e, uint64_t val, bool is_static) {
  if (is_static) {
    e.mac_flags.store(val, std::memory_order_release);
    return;
  }
  uint64_t old = e.mac_flags.load(std::memory_order_relaxed);
  do {
    if (old & kStatic) return;  // configured entries win over learnt ones
  } while (!e.mac_flags.compare_exchange_weak(old, val, std::memory_order_release,
                                              std::memory_order_relaxed));
}

bool NeighborTable::Learn(uint32_t ip, const uint8_t mac[6], bool is_static) {
  if (ip == 0) return false;
  const uint64_t val = PackMac(mac) | kValid | (is_static ? kStatic : 0);
  // Writers take turns: checking for room and claiming the slot are one
  // step, so a Learn is never refused while another writer holds room it
  // then gives back (as lock-free reservations would under contention).
  // Learning comes from ARP frames and config, not from every packet;
  // readers (Lookup) take no lock.
  std::lock_guard<std::mutex> g(learn_mu_);
  uint32_t i = Hash(ip) & mask_;
  for (uint32_t probes = 0; probes <= mask_; ++probes, i = (i + 1) & mask_) {
    Entry& e = slots_[i];
    const uint32_t cur = e.ip.load(std::memory_order_relaxed);
    if (cur == 0) {
      // At most `capacity` entries in 2x slots: an empty slot always exists.
      if (used_.load(std::memory_order_relaxed) >= capacity_) return false;
      used_.fetch_add(1, std::memory_order_relaxed);
      e.ip.store(ip, std::memory_order_release);
      Publish(e, val, is_static);
      return true;
    }
    if (cur == ip) {
      Publish(e, val, is_static);
      return true;
    }
  }
  return false;
}

const NeighborTable::Entry* NeighborTable::Find(uint32_t ip) const {
  if (ip == 0) return nullptr;
  uint32_t i = Hash(ip) & mask_;
  // No deletions: an ip, if present, lies before the first empty slot.
  for (uint32_t probes = 0; probes <= mask_; ++probes, i = (i + 1) & mask_) {
    const uint32_t cur = slots_[i].ip.load(std::memory_order_acquire);
    if (cur == ip) return &slots_[i];
    if (cur == 0) return nullptr;
  }
  return nullptr;
}

bool NeighborTable::Lookup(uint32_t ip, uint8_t mac[6]) const {
  const Entry* e = Find(ip);
  if (e == nullptr) return false;
  const uint64_t v = e->mac_flags.load(std::memory_order_acquire);
  if (!(v & kValid)) return false;  // slot claimed, MAC not yet published
  UnpackMac(v, mac);
  return true;
}

bool NeighborTable::IsStatic(uint32_t ip) const {
  const Entry* e = Find(ip);
  return e != nullptr && (e->mac_flags.load(std::memory_order_acquire) & kStatic) != 0;
}

}  // namespace pfc::tables
