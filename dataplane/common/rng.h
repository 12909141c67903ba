// SPDX-License-Identifier: BSD-3-Clause
// The one pseudo-random generator of the dataplane and the emulator:
// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014). Fixed and platform-independent, so a fabric run
// with the same seed makes the same choices (ECMP picks, ECN marks) on any
// machine; eight bytes of state, so every switch and worker can own one.
// Pure header: no DPDK. Not for anything that needs unpredictability.
#pragma once
#include <cstdint>

namespace pfc {

// The splitmix64 finaliser: a bijective mix of one word.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A stream of words: the finaliser over a counter stepped by the golden
// ratio. Owned by one thread.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : s_(seed) {}
  uint64_t Next() {
    const uint64_t x = s_;
    s_ += 0x9e3779b97f4a7c15ull;
    return Mix64(x);  // the finaliser of the stepped counter
  }
  // Uniform in [0, 2^32).
  uint32_t Next32() { return static_cast<uint32_t>(Next() >> 32); }

 private:
  uint64_t s_;
};

}  // namespace pfc
