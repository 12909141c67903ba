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
  explicit SpscRing(size_t pow2) : buf_(pow2) {
    c_.slots = p_.slots = buf_.data();
    c_.mask = p_.mask = pow2 - 1;
  }
  size_t capacity() const { return buf_.size(); }

  // Producer: false when full (nothing changes).
  bool Push(const T& x) {
    const uint64_t t = p_.tail.load(std::memory_order_relaxed);
    if (t - p_.head_seen > p_.mask) {
      p_.head_seen = c_.head.load(std::memory_order_acquire);
      if (t - p_.head_seen > p_.mask) return false;
    }
    p_.slots[t & p_.mask] = x;
    p_.tail.store(t + 1, std::memory_order_release);
    return true;
  }
  // Consumer: the oldest element, or null when empty. Valid until Pop.
  const T* Front() {
    const uint64_t h = c_.head.load(std::memory_order_relaxed);
    if (h == c_.tail_seen) {
      c_.tail_seen = p_.tail.load(std::memory_order_acquire);
      if (h == c_.tail_seen) return nullptr;
    }
    return &c_.slots[h & c_.mask];
  }
  // Consumer: f on each element from the oldest, up to max, while it
  // returns true.
  template <typename F>
  void ForEachQueued(size_t max, F&& f) const {
    const uint64_t h = c_.head.load(std::memory_order_relaxed);
    const uint64_t t = p_.tail.load(std::memory_order_acquire);
    for (uint64_t i = h; i != t && i - h < max; i++)
      if (!f(c_.slots[i & c_.mask])) return;
  }
  // A hint: fetches the two lines ForEachQueued reads first (each side's
  // index), so that a walk a round later finds them in the caches.
  void PrefetchIndices() const {
    __builtin_prefetch(&c_);
    __builtin_prefetch(&p_);
  }
  // Consumer: drops the element Front returned.
  void Pop() {
    c_.head.store(c_.head.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

 private:
  // Each side's line holds what it reads while the other's index it cached
  // still says there is room (or something to take): the slots, the mask,
  // its own index and that cache. Another line each, so the two sides'
  // writes do not share one (two workers on the real clock).
  struct alignas(64) Consumer {
    T* slots = nullptr;
    uint64_t mask = 0;
    std::atomic<uint64_t> head{0};
    uint64_t tail_seen = 0;  // cache of the producer's tail
  };
  struct alignas(64) Producer {
    T* slots = nullptr;
    uint64_t mask = 0;
    std::atomic<uint64_t> tail{0};
    uint64_t head_seen = 0;  // cache of the consumer's head
  };
  std::vector<T> buf_;
  Consumer c_;
  Producer p_;
};

}  // namespace pfc::emulator
