// SPDX-License-Identifier: BSD-3-Clause
// The deadlock verdict's cycles (model/deadlock_cycles.h): a ring of stuck
// links is one deadlock named by its cycle and the moment it closed; a
// chain of stuck links waiting on a paused host is none; two rings are
// two; extra stuck links inside a ring's group are counted with it.
#include "dataplane/emulator/model/deadlock_cycles.h"

#include <gtest/gtest.h>

namespace pfc::emulator {
namespace {

TEST(DeadlockCycles, ARingIsOneDeadlockClosedByItsLastLink) {
  // 1 -> 2 -> 3 -> 1 on priority 1, the last link stuck at 500.
  const std::vector<StuckLink> s = {{1, 2, 1, 100}, {2, 3, 1, 300}, {3, 1, 1, 500}, {0, 1, 1, 50}};
  const auto d = FindDeadlocks(5, s);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].switches, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(d[0].prio_mask, 1u << 1);
  EXPECT_EQ(d[0].since_ns, 500u);
  EXPECT_EQ(d[0].stuck_links, 3u);  // 0 -> 1 waits on the ring, outside it
}

TEST(DeadlockCycles, AChainIsNoDeadlock) {
  const std::vector<StuckLink> s = {{0, 1, 3, 10}, {1, 2, 3, 20}, {2, 3, 3, 30}};
  EXPECT_TRUE(FindDeadlocks(4, s).empty());
  EXPECT_TRUE(FindDeadlocks(4, {}).empty());
}

TEST(DeadlockCycles, TwoRingsAndATwoSwitchLoopAndTheShortestCycleNamed) {
  // Group A: 0 <-> 1 (a routing loop's two switches). Group B: 2 -> 3 ->
  // 4 -> 5 -> 2 with a chord 3 -> 5: the shortest cycle through 2 is
  // 2 3 5.
  const std::vector<StuckLink> s = {{0, 1, 1, 7}, {1, 0, 2, 9}, {2, 3, 1, 1}, {3, 4, 1, 1},
                                    {4, 5, 1, 1}, {5, 2, 1, 4}, {3, 5, 1, 2}};
  const auto d = FindDeadlocks(6, s);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].switches, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(d[0].prio_mask, (1u << 1) | (1u << 2));
  EXPECT_EQ(d[0].since_ns, 9u);
  EXPECT_EQ(d[1].switches, (std::vector<uint32_t>{2, 3, 5}));
  EXPECT_EQ(d[1].since_ns, 4u);
  EXPECT_EQ(d[1].stuck_links, 5u);
}

TEST(DeadlockCycles, ASwitchStuckOnItselfAndOutOfRangeLinksIgnored) {
  const auto d = FindDeadlocks(3, {{2, 2, 0, 5}, {7, 1, 0, 1}});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].switches, (std::vector<uint32_t>{2}));
}

}  // namespace
}  // namespace pfc::emulator
