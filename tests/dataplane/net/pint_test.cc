// SPDX-License-Identifier: BSD-3-Clause
// HPCC-PINT's encoding and a port's utilisation estimate (net/pint.h)
// against values worked by hand from the formulas in that header: the
// field's width, the power's unbiased random rounding, the fixed-point
// logarithm and the EWMA's three terms.
#include "dataplane/net/pint.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pfc::net {
namespace {

TEST(Pint, FieldWidthIsTheSimulators) {
  // The simulator prints "PINT bits: 11 bytes: 2" for run.py's 1.01 and
  // sizes 1.05 (its own default) to one byte: log(512^2) / log(base) is
  // 1253.9 and 255.7.
  EXPECT_EQ(PintCodec(1.01).Bits(), 11);
  EXPECT_EQ(PintCodec(1.05).Bits(), 8);
}

TEST(Pint, DecodeIsThePowerOverMaxConcurrent) {
  const PintCodec c(1.01);
  EXPECT_DOUBLE_EQ(c.Decode(0), 1.0 / 512);
  EXPECT_DOUBLE_EQ(c.Decode(691), std::pow(1.01, 691) / 512);  // 1.8915
}

TEST(Pint, EncodeRoundsToANeighbourUnbiased) {
  const PintCodec c(1.01);
  // u = 1: 512 = 1.01^626.95..., so the power is 626 or 627.
  EXPECT_EQ(c.Encode(1.0, 0), 627) << "the smallest draw rounds up";
  EXPECT_EQ(c.Encode(1.0, 65535), 626) << "the largest rounds down";
  // Over every draw, the decoded values average u (the rounding's odds
  // are the value's place between the two powers).
  double sum = 0;
  for (uint32_t r = 0; r < 65536; r++) sum += c.Decode(c.Encode(1.0, r));
  EXPECT_NEAR(sum / 65536, 1.0, 1e-4);
  // Nothing (or less than 1/512) is power 0, whatever the draw.
  EXPECT_EQ(c.Encode(0, 0), 0);
  EXPECT_EQ(c.Encode(0.001, 0), 0);
  // Larger u, larger power.
  EXPECT_GT(c.Encode(1.9, 32768), c.Encode(0.9, 32768));
}

TEST(Pint, Log2IsFixedPointWithSixteenBits) {
  Rng rng(1);
  EXPECT_EQ(PintLog2(1, rng), 0);
  EXPECT_EQ(PintLog2(2, rng), 32768);
  EXPECT_EQ(PintLog2(3, rng), 51936);  // log2(3) x 2^15 = 51936.05
  EXPECT_EQ(PintLog2(65536, rng), 16 * 32768);
  // 17 bits: the last is cut, rounding up at random by it.
  int up = 0, down = 0;
  for (int i = 0; i < 200; i++) {
    const int v = PintLog2(0x1ffff, rng);
    up += v == 17 * 32768;                          // 0x20000
    down += v == int(std::log2(131070.0) * 32768);  // 0x1fffe: 557055
  }
  EXPECT_EQ(up + down, 200);
  EXPECT_GT(up, 60);
  EXPECT_GT(down, 60);
}

TEST(Pint, NextUIsTheEwmaOverT) {
  Rng rng(7);
  // 100G: 12.5 bytes a ns; T = 10 us. The previous packet (1,000 bytes)
  // left 1,000 ns ago, 25,600 bytes queued now, u 0.5:
  //   queue term  25,600 x 1,000 / (12.5 x 10,000^2)  = 0.02048
  //   byte term   1,000 / (12.5 x 10,000)              = 0.008
  //   old u       0.5 x 9,000 / 10,000                 = 0.45
  const PintPort p{.u = 0.5, .last_ns = 5'000, .last_size = 1'000};
  const double u = PintNextU(p, 6'000, 25'600, 100'000'000'000, 10'000, rng);
  EXPECT_NEAR(u, 0.47848, 0.47848 * 1e-4);
  // No queue (under 256 bytes), no previous packet, no u: 0.
  EXPECT_EQ(PintNextU(PintPort{}, 6'000, 255, 100'000'000'000, 10'000, rng), 0);
  // A gap longer than T forgets u: the byte term alone.
  const double gap = PintNextU(p, 1'000'000, 0, 100'000'000'000, 10'000, rng);
  EXPECT_NEAR(gap, 0.008, 0.008 * 1e-4);
  // No time since the previous packet: u plus the byte term, no queue term.
  const double same = PintNextU(p, 5'000, 25'600, 100'000'000'000, 10'000, rng);
  EXPECT_NEAR(same, 0.508, 0.508 * 1e-4);
}

}  // namespace
}  // namespace pfc::net
