// SPDX-License-Identifier: BSD-3-Clause
// IdlePolicy: when a worker on receive interrupts polls instead.
#include "dataplane/sched/idle_policy.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

TEST(IdlePolicy, IdleStaysOnInterrupts) {
  sched::IdlePolicy p;
  EXPECT_FALSE(p.timed());
  for (int i = 0; i < 10; ++i) p.AfterSleep(0);  // sleeps that timed out
  EXPECT_FALSE(p.timed());
}

TEST(IdlePolicy, AWakeThatFoundPacketsPolls) {
  sched::IdlePolicy p;
  p.AfterSleep(1);  // a kick
  EXPECT_TRUE(p.timed());
}

TEST(IdlePolicy, AStreamIsPolledUntilASleepFindsNothing) {
  sched::IdlePolicy p;
  p.AfterSleep(1);
  for (unsigned i = 0; i < 50; ++i) {
    p.AfterSleep(1 + i % 20);
    EXPECT_TRUE(p.timed());
  }
  p.AfterSleep(0);  // an interval with nothing: back to the kick
  EXPECT_FALSE(p.timed());
  p.AfterSleep(0);
  EXPECT_FALSE(p.timed());
}

}  // namespace
}  // namespace pfc
