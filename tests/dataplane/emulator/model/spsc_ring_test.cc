// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/spsc_ring.h"

#include <gtest/gtest.h>

#include <thread>

namespace pfc::emulator {
namespace {

struct Item {
  uint64_t seq;
  uint32_t tag;
};

TEST(SpscRing, FifoOrderFullAndEmptyAcrossTheWrap) {
  SpscRing<Item> r(4);
  EXPECT_EQ(r.capacity(), 4u);
  EXPECT_EQ(r.Front(), nullptr);
  uint64_t pushed = 0, popped = 0;
  // Three rounds of fill-to-full then drain-by-one-then-refill: the indices
  // wrap the buffer several times.
  for (int round = 0; round < 3; round++) {
    while (r.Push({pushed, static_cast<uint32_t>(pushed * 7)})) pushed++;
    EXPECT_EQ(pushed - popped, 4u) << "full at exactly the capacity";
    const Item* f = r.Front();
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->seq, popped);
    EXPECT_EQ(r.Front(), f) << "Front does not take";
    r.Pop();
    popped++;
    EXPECT_TRUE(r.Push({pushed, static_cast<uint32_t>(pushed * 7)}));
    pushed++;
    EXPECT_FALSE(r.Push({pushed, 0}));
    for (const Item* g; (g = r.Front()) != nullptr; r.Pop(), popped++) {
      EXPECT_EQ(g->seq, popped);
      EXPECT_EQ(g->tag, static_cast<uint32_t>(popped * 7));
    }
    EXPECT_EQ(popped, pushed);
  }
}

// The real clock: the sending and the receiving worker on two threads. Every
// element arrives once, in order, intact.
TEST(SpscRing, TwoThreadsKeepOrder) {
  constexpr uint64_t kN = 20000;
  SpscRing<Item> r(64);
  std::thread producer([&r] {
    for (uint64_t i = 0; i < kN;) {
      if (r.Push({i, static_cast<uint32_t>(i ^ 0x5a5a)}))
        i++;
      else
        std::this_thread::yield();  // a loaded machine: let the consumer run
    }
  });
  uint64_t next = 0;
  bool ok = true;
  while (next < kN) {
    const Item* f = r.Front();
    if (f == nullptr) {
      std::this_thread::yield();
      continue;
    }
    ok = ok && f->seq == next && f->tag == static_cast<uint32_t>(next ^ 0x5a5a);
    r.Pop();
    next++;
  }
  producer.join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(r.Front(), nullptr);
}

}  // namespace
}  // namespace pfc::emulator
