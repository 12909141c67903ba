// SPDX-License-Identifier: BSD-3-Clause
// RED marking (sched/red.h): the probability curve against hand-computed
// values, its edges, and the marking rate a fixed seed gives.
#include "dataplane/sched/red.h"

#include <gtest/gtest.h>

#include "dataplane/common/rng.h"

namespace pfc {
namespace {

constexpr double k2to32 = 4294967296.0;

sched::RedQueue Q(uint64_t min, uint64_t max, double p) {
  return sched::RedQueue(
      sched::RedProfile{.name = "t", .min_bytes = min, .max_bytes = max, .max_prob = p});
}

TEST(Red, OffByDefault) {
  const sched::RedQueue q;
  EXPECT_FALSE(q.enabled());
  EXPECT_FALSE(q.Mark(INT64_MAX - 1, 0));
}

// KMIN 1000, KMAX 3000, PMAX 0.1: p(2000) = 0.05, p(2500) = 0.075,
// p(3000) = 0.1; none at or below 1000, all above 3000.
TEST(Red, LinearBetweenThresholds) {
  const sched::RedQueue q = Q(1000, 3000, 0.1);
  EXPECT_TRUE(q.enabled());
  EXPECT_EQ(q.min_bytes(), 1000);
  EXPECT_EQ(q.Threshold(1000), 0u);
  EXPECT_NEAR(static_cast<double>(q.Threshold(2000)), 0.05 * k2to32, 1);
  EXPECT_NEAR(static_cast<double>(q.Threshold(2500)), 0.075 * k2to32, 1);
  EXPECT_NEAR(static_cast<double>(q.Threshold(3000)), 0.1 * k2to32, 1);
  EXPECT_EQ(q.Threshold(3001), uint64_t{1} << 32);
  EXPECT_FALSE(q.Mark(1000, 0)) << "at the min threshold: never";
  EXPECT_TRUE(q.Mark(1001, 0)) << "just over it, the smallest draw marks";
  EXPECT_FALSE(q.Mark(2000, static_cast<uint32_t>(0.05 * k2to32) + 1));
  EXPECT_TRUE(q.Mark(2000, static_cast<uint32_t>(0.05 * k2to32) - 1));
  EXPECT_TRUE(q.Mark(3001, UINT32_MAX)) << "over the max: always";
  EXPECT_FALSE(q.NeedsDraw(1000));
  EXPECT_TRUE(q.NeedsDraw(3000));
  EXPECT_FALSE(q.NeedsDraw(3001));
}

// min == max: DCTCP's step at K.
TEST(Red, StepWhenThresholdsEqual) {
  const sched::RedQueue q = Q(5000, 5000, 0.5);
  EXPECT_FALSE(q.Mark(5000, 0));
  EXPECT_TRUE(q.Mark(5001, UINT32_MAX));
}

// PMAX 100% over one byte saturates the slope, never overflows.
TEST(Red, SteepestProfile) {
  const sched::RedQueue q = Q(0, 1, 1.0);
  EXPECT_GE(q.Threshold(1), (uint64_t{1} << 32) - 1);
  EXPECT_TRUE(q.Mark(1, 123));
}

// With a fixed seed the marked fraction at a depth is its probability
// (10^6 draws: 5 standard deviations are about 0.001 at p = 0.05).
TEST(Red, FixedSeedRates) {
  const sched::RedQueue q = Q(1000, 3000, 0.1);
  for (const auto& [depth, p] : {std::pair{1500, 0.025}, {2000, 0.05}, {3000, 0.1}}) {
    Rng rng(42);
    int marked = 0;
    constexpr int kN = 1'000'000;
    for (int i = 0; i < kN; i++) marked += q.Mark(depth, rng.Next32());
    EXPECT_NEAR(static_cast<double>(marked) / kN, p, 0.0015) << depth;
  }
  // The same seed, the same decisions.
  Rng a(7), b(7);
  for (int i = 0; i < 1000; i++) ASSERT_EQ(q.Mark(2000, a.Next32()), q.Mark(2000, b.Next32()));
}

// splitmix64's published sequence for seed 1234567.
TEST(Rng, Splitmix64Vector) {
  Rng r(1234567);
  EXPECT_EQ(r.Next(), 6457827717110365317ull);
  EXPECT_EQ(r.Next(), 3203168211198807973ull);
  EXPECT_EQ(r.Next(), 9817491932198370423ull);
}

}  // namespace
}  // namespace pfc
