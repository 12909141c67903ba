// SPDX-License-Identifier: BSD-3-Clause
// The INT trailer (net/int_trailer.h): the simulator's record word and
// units, its wrapping counters, a queue that saturates instead of wrapping,
// the record rotation past 5 hops, and what is not a trailer.
#include "dataplane/net/int_trailer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pfc::net {
namespace {

TEST(IntTrailer, RecordIsTheSimulatorsWord) {
  // rate 100G (index 2), t = 2^24 + 5 ns -> 5, 1,000,000 bytes at multi 4
  // -> 1,000,000 / 512 = 1953, queue 64,000 bytes -> 64,000 / 320 = 200.
  const IntHop h =
      IntHop::Make((1u << 24) + 5, 1'000'000, 64'000, IntRateIndex(100'000'000'000), 4);
  EXPECT_EQ(h.rate, 2);
  EXPECT_EQ(h.time, 5u);
  EXPECT_EQ(h.bytes, 1953u);
  EXPECT_EQ(h.qlen, 200u);
  EXPECT_EQ(h.Word(), uint64_t{2} << 61 | uint64_t{5} << 37 | uint64_t{1953} << 17 | 200);
  const IntHop r = IntHop::FromWord(h.Word());
  EXPECT_EQ(r.LineRate(), 100'000'000'000u);
  EXPECT_EQ(r.Bytes(4), 1953u * 512);
  EXPECT_EQ(r.Qlen(4), 64'000u);
  EXPECT_EQ(IntRateIndex(1'000'000'000), -1);
  EXPECT_EQ(IntRateIndex(400'000'000'000), 4) << "the simulator's codes 0-4";
}

TEST(IntTrailer, CountersWrapAndQueueSaturates) {
  const IntHop a = IntHop::Make((1u << 24) - 10, (uint64_t{1} << 20) * 128 - 128, 0, 2, 1);
  const IntHop b = IntHop::Make((1u << 24) + 30, (uint64_t{1} << 20) * 128 + 256, 0, 2, 1);
  EXPECT_EQ(b.TimeDelta(a), 40u) << "24-bit ns wrap";
  EXPECT_EQ(b.BytesDelta(a, 1), 3u * 128) << "20-bit byte counter wrap";
  const IntHop q = IntHop::Make(0, 0, uint64_t{80} << 20, 2, 1);
  EXPECT_EQ(q.qlen, (1u << 17) - 1) << "a long queue must not read as a short one";
}

// The packet path's queue field at multiplier 1 is a multiply, not a
// divide: the same field for every queue length up to past saturation.
TEST(IntTrailer, QlenAtMultiplierOneIsTheQuotient) {
  constexpr int64_t kSaturated = int64_t{(1 << kIntQlenBits) - 1} * kIntQlenUnit;
  for (int64_t q = 0; q < kSaturated + 2 * kIntQlenUnit; q++)
    if (IntQlenField1(q) != IntQlenField(q, kIntQlenUnit)) FAIL() << q;
  for (int64_t q : {int64_t{-1}, int64_t{-80}, INT64_MIN, INT64_MAX, int64_t{1} << 40})
    EXPECT_EQ(IntQlenField1(q), IntQlenField(q, kIntQlenUnit)) << q;
}

TEST(IntTrailer, PushRotatesAfterFiveHops) {
  std::vector<uint8_t> f(60 + kIntHopsBytes, 0);
  EXPECT_EQ(WriteIntTrailer(f.data() + 60, kIntHops, 3), kIntHopsBytes);
  uint8_t* t = FindIntTrailer(f.data(), static_cast<uint32_t>(f.size()), 60);
  ASSERT_EQ(t, f.data() + 60);
  EXPECT_EQ(IntMulti(t), 3u);
  for (uint32_t i = 0; i < 7; i++) PushIntHop(t, IntHop::Make(i, 0, 0, 0, 1));
  EXPECT_EQ(IntHopCount(t), 7);
  EXPECT_EQ(IntHopsHeld(t), 5);
  // Records 0 and 1 were overwritten by hops 5 and 6.
  const uint32_t want[5] = {5, 6, 2, 3, 4};
  for (int i = 0; i < 5; i++) EXPECT_EQ(IntHopAt(t, i).time, want[i]) << i;
}

TEST(IntTrailer, PaddingShortOrUnknownIsNoTrailer) {
  std::vector<uint8_t> f(60, 0);  // a padded frame: zeros after the datagram
  EXPECT_EQ(FindIntTrailer(f.data(), 60, 42), nullptr);
  f.resize(42 + kIntHopsBytes - 1);
  WriteIntTrailer(f.data() + 42 - 0, kIntTs, 1, 7);  // 12 bytes fit
  EXPECT_NE(FindIntTrailer(f.data(), static_cast<uint32_t>(f.size()), 42), nullptr);
  EXPECT_EQ(IntTimestamp(f.data() + 42), 7u);
  f[44] = kIntHops;  // a hops trailer needs 46 bytes: one short
  EXPECT_EQ(FindIntTrailer(f.data(), static_cast<uint32_t>(f.size()), 42), nullptr);
  f[44] = 9;  // unknown kind
  f.resize(200);
  EXPECT_EQ(FindIntTrailer(f.data(), 200, 42), nullptr);
  EXPECT_EQ(FindIntTrailer(f.data(), 200, 199), nullptr) << "past the end";
  // A PINT trailer needs its 6 bytes: one short is none.
  std::vector<uint8_t> p(42 + kIntPintBytes, 0);
  WriteIntTrailer(p.data() + 42, kIntPint, 1);
  RaiseIntPintPower(p.data() + 42, 300);
  EXPECT_EQ(IntPintPower(FindIntTrailer(p.data(), static_cast<uint32_t>(p.size()), 42)), 300);
  EXPECT_EQ(FindIntTrailer(p.data(), static_cast<uint32_t>(p.size() - 1), 42), nullptr);
}

}  // namespace
}  // namespace pfc::net
