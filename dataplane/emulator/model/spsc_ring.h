// SPDX-License-Identifier: BSD-3-Clause
// A single-producer single-consumer ring of small trivially copyable
// elements, for an emulated link's frames on their way to the far end
// (emulator/port/emu_port.h): the sending end's owner pushes, the receiving end's
// owner looks at the head in place (Front) and pops it once it has landed.
// On the virtual clock both are the one driver thread; on the real clock
// they are two workers, so the indices are atomics (release on publish,
// acquire on read), each side caching the other's index and reloading it
// only when the ring looks full or empty.
//
// Why not rte_ring: the consumer needs to look at the head frame's arrival
// time without taking it (a frame still on the wire stays where it is), and
// a frame lands one at a time on an exact clock; rte_ring's element API
// copies bursts out into a staging array for that, per frame.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace pfc::emulator {

template <typename T>
class SpscRing {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // Capacity: `pow2` elements, a power of two.
  explicit SpscRing(size_t pow2) : buf_(pow2), mask_(pow2 - 1) {}
  size_t capacity() const { return buf_.size(); }

  // Producer: false when full (nothing changes).
  bool Push(const T& x) {
    const uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t - head_seen_ == buf_.size()) {
      head_seen_ = head_.load(std::memory_order_acquire);
      if (t - head_seen_ == buf_.size()) return false;
    }
    buf_[t & mask_] = x;
    tail_.store(t + 1, std::memory_order_release);
    return true;
  }
  // Consumer: the oldest element, or null when empty. Valid until Pop.
  const T* Front() {
    const uint64_t h = head_.load(std::memory_order_relaxed);
    if (h == tail_seen_) {
      tail_seen_ = tail_.load(std::memory_order_acquire);
      if (h == tail_seen_) return nullptr;
    }
    return &buf_[h & mask_];
  }
  // Consumer: drops the element Front returned.
  void Pop() { head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }

 private:
  std::vector<T> buf_;
  const uint64_t mask_;
  alignas(64) std::atomic<uint64_t> head_{0};  // consumer's
  uint64_t tail_seen_ = 0;                     // consumer's cache of tail_
  alignas(64) std::atomic<uint64_t> tail_{0};  // producer's
  uint64_t head_seen_ = 0;                     // producer's cache of head_
};

}  // namespace pfc::emulator
