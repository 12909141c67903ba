// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/due_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace pfc::emulator {
namespace {

TEST(DueQueue, TakesWhatIsDueInIdOrderOnce) {
  DueQueue q;
  q.Reset(5);
  EXPECT_EQ(q.Next(), kNever);
  q.Set(3, 100);
  q.Lower(1, 100);
  q.Lower(4, 50);
  q.Lower(3, 100);  // not sooner: no change, no duplicate taken
  q.Set(0, 200);
  EXPECT_EQ(q.Next(), 50u);
  std::vector<uint32_t> ids;
  q.TakeDue(49, &ids);
  EXPECT_TRUE(ids.empty());
  q.TakeDue(100, &ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 3, 4}));
  EXPECT_EQ(q.due(3), kNever);
  EXPECT_EQ(q.Next(), 200u);
}

TEST(DueQueue, LaterAndCancelledTimesMoveOrRemoveTheEntry) {
  DueQueue q;
  q.Reset(2);
  q.Set(0, 10);
  q.Set(0, 30);  // moved later, in place
  q.Set(1, 20);
  q.Set(1, kNever);  // cancelled: not due any more
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.Next(), 30u);
  std::vector<uint32_t> ids;
  q.TakeDue(25, &ids);
  EXPECT_TRUE(ids.empty());
  q.TakeDue(30, &ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{0}));
  EXPECT_EQ(q.Next(), kNever);
  EXPECT_EQ(q.size(), 0u);
}

// Against a plain array scanned linearly (what the driver did before), on a
// random sequence of lowers, sets and takes.
TEST(DueQueue, MatchesALinearScan) {
  constexpr uint32_t kN = 40;
  DueQueue q;
  q.Reset(kN);
  std::vector<uint64_t> ref(kN, kNever);
  std::mt19937_64 rng(7);
  uint64_t now = 0;
  for (int step = 0; step < 20000; step++) {
    const uint32_t id = static_cast<uint32_t>(rng() % kN);
    const uint64_t t = now + rng() % 100;
    switch (rng() % 3) {
      case 0:
        q.Lower(id, t);
        ref[id] = std::min(ref[id], t);
        break;
      case 1:
        // Sometimes a cancel: the entity leaves the heap.
        ref[id] = rng() % 8 == 0 ? kNever : t;
        q.Set(id, ref[id]);
        break;
      default: {
        uint64_t next = kNever;
        for (uint64_t d : ref) next = std::min(next, d);
        ASSERT_EQ(q.Next(), next);
        // The first due: the lowest id of those due at the earliest time.
        const auto first = std::find(ref.begin(), ref.end(), next);
        ASSERT_EQ(q.PeekFirst(), next == kNever ? ~0u : static_cast<uint32_t>(first - ref.begin()));
        // The second in (time, id) order.
        uint32_t second = ~0u;
        for (uint32_t i = 0; i < kN; i++) {
          if (ref[i] == kNever || i == q.PeekFirst()) continue;
          if (second == ~0u || ref[i] < ref[second]) second = i;
        }
        ASSERT_EQ(q.PeekSecond(), second);
        uint32_t two[2];
        q.PeekTwo(&two[0], &two[1]);
        ASSERT_EQ(two[0], q.PeekFirst());
        ASSERT_EQ(two[1], second);
        if (next == kNever) break;
        now = next;
        std::vector<uint32_t> want, got;
        for (uint32_t i = 0; i < kN; i++) {
          if (ref[i] <= now) {
            want.push_back(i);
            ref[i] = kNever;
          }
        }
        q.TakeDue(now, &got);
        ASSERT_EQ(got, want);
      }
    }
    // Each entity due counts once, however often it was lowered.
    ASSERT_EQ(q.size(), static_cast<size_t>(std::count_if(ref.begin(), ref.end(),
                                                          [](uint64_t d) { return d != kNever; })));
  }
}

}  // namespace
}  // namespace pfc::emulator
