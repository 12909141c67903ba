// SPDX-License-Identifier: BSD-3-Clause
// PFC response timers with a virtual clock: exact quanta timing, refresh,
// XON, expiry, accumulated paused time, next expiry.
#include "dataplane/pause/pause_timer.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

constexpr uint64_t k10G = 10'000'000'000;

std::array<uint16_t, 8> Q(int prio, uint16_t quanta) {
  std::array<uint16_t, 8> q{};
  q[prio] = quanta;
  return q;
}

TEST(PauseTimer, QuantaAreFiveHundredTwelveBitTimes) {
  // 0xffff x 512 bits = 33,553,920 bits: 3.355392 ms at 10 Gb/s.
  EXPECT_EQ(pause::PauseTimer::QuantaToNs(0xffff, k10G), 3'355'392u);
  EXPECT_EQ(pause::PauseTimer::QuantaToNs(0xffff, 25'000'000'000), 1'342'157u);  // 1342156.8, up
  EXPECT_EQ(pause::PauseTimer::QuantaToNs(0xffff, 100'000'000'000), 335'540u);   // 335539.2, up
  EXPECT_EQ(pause::PauseTimer::QuantaToNs(0xffff, 1'000'000'000), 33'553'920u);
  EXPECT_EQ(pause::PauseTimer::QuantaToNs(1, k10G), 52u);  // 51.2 ns, up
  EXPECT_EQ(pause::PauseTimer::QuantaToNs(0, k10G), 0u);
}

TEST(PauseTimer, PausesExactlyForTheQuanta) {
  pause::PauseTimer t;
  ASSERT_TRUE(t.OnFrame(1 << 3, Q(3, 0xffff), 1000, k10G));
  EXPECT_EQ(t.PausedMask(1000), 1 << 3);
  EXPECT_EQ(t.PausedMask(1000 + 3'355'391), 1 << 3);
  EXPECT_EQ(t.PausedMask(1000 + 3'355'392), 0);
  EXPECT_EQ(t.PausedUntil(3), 1000u + 3'355'392);
  EXPECT_EQ(t.PausedNs(3, 2'000'000), 2'000'000u - 1000);
  EXPECT_EQ(t.PausedNs(3, 100'000'000), 3'355'392u);  // cut at the expiry
  EXPECT_EQ(t.PausedNs(2, 100'000'000), 0u);          // others never paused
  EXPECT_EQ(t.xoff_received(3), 1u);
}

// A link that goes down ends the pauses it carried, as a real MAC's does:
// the time paused stops there, no XON is counted, a later XOFF starts anew.
TEST(PauseTimer, LinkDownEndsEveryRunningPause) {
  pause::PauseTimer t;
  ASSERT_TRUE(t.OnFrame(
      1 << 3 | 1 << 4,
      [] {
        std::array<uint16_t, 8> q{};
        q[3] = q[4] = 0xffff;
        return q;
      }(),
      1000, k10G));
  EXPECT_EQ(t.EndAll(5000), (1 << 3) | (1 << 4));
  EXPECT_EQ(t.PausedMask(5000), 0);
  EXPECT_EQ(t.NextExpiry(5000), kNever);
  EXPECT_EQ(t.PausedNs(3, 1'000'000), 4000u);
  EXPECT_EQ(t.xon_received(3), 0u);
  EXPECT_EQ(t.EndAll(6000), 0);  // nothing left to end
  ASSERT_TRUE(t.OnFrame(1 << 3, Q(3, 1), 10'000, k10G));
  EXPECT_EQ(t.PausedNs(3, 1'000'000), 4000u + 52);
}

TEST(PauseTimer, DisabledClassesAreUntouched) {
  pause::PauseTimer t;
  std::array<uint16_t, 8> q;
  q.fill(0xffff);
  ASSERT_TRUE(t.OnFrame(0b0010'0100, q, 0, k10G));
  EXPECT_EQ(t.PausedMask(1), 0b0010'0100);
  EXPECT_EQ(t.xoff_received(0), 0u);
}

TEST(PauseTimer, RefreshRestartsAndXonResumes) {
  pause::PauseTimer t;
  t.OnFrame(1 << 1, Q(1, 0xffff), 0, k10G);
  t.OnFrame(1 << 1, Q(1, 0xffff), 3'000'000, k10G);  // refresh before expiry
  EXPECT_EQ(t.PausedMask(3'355'392), 1 << 1);        // would have expired
  EXPECT_EQ(t.PausedUntil(1), 3'000'000u + 3'355'392);
  // A refresh with fewer quanta shortens the pause (it restarts the timer).
  t.OnFrame(1 << 1, Q(1, 100), 4'000'000, k10G);
  EXPECT_EQ(t.PausedUntil(1), 4'000'000u + 5120);
  t.OnFrame(1 << 1, Q(1, 0xffff), 4'001'000, k10G);
  t.OnFrame(1 << 1, Q(1, 0), 5'000'000, k10G);  // XON
  EXPECT_EQ(t.PausedMask(5'000'000), 0);
  EXPECT_EQ(t.PausedNs(1, 9'000'000), 5'000'000u);
  EXPECT_EQ(t.xoff_received(1), 4u);
  EXPECT_EQ(t.xon_received(1), 1u);
  // An XON for a priority that is not paused changes nothing.
  t.OnFrame(1 << 1, Q(1, 0), 6'000'000, k10G);
  EXPECT_EQ(t.PausedNs(1, 9'000'000), 5'000'000u);
}

TEST(PauseTimer, AccumulatesSeparatePauses) {
  pause::PauseTimer t;
  t.OnFrame(1 << 6, Q(6, 1000), 0, k10G);          // 51.2 us -> 51200 ns
  t.OnFrame(1 << 6, Q(6, 1000), 1'000'000, k10G);  // after expiry: a new pause
  EXPECT_EQ(t.PausedNs(6, 1'010'000), 51'200u + 10'000);
  EXPECT_EQ(t.PausedNs(6, 5'000'000), 2 * 51'200u);
  t.OnFrame(1 << 6, Q(6, 1000), 6'000'000, k10G);  // closes the second lazily
  EXPECT_EQ(t.PausedNs(6, 6'000'000), 2 * 51'200u);
  EXPECT_EQ(t.PausedNs(6, 7'000'000), 3 * 51'200u);
}

TEST(PauseTimer, NextExpiryIsTheEarliestRunningPause) {
  pause::PauseTimer t;
  EXPECT_EQ(t.NextExpiry(0), kNever);
  t.OnFrame(1 << 0, Q(0, 2000), 0, k10G);  // until 102400
  t.OnFrame(1 << 5, Q(5, 1000), 0, k10G);  // until 51200
  EXPECT_EQ(t.NextExpiry(0), 51'200u);
  EXPECT_EQ(t.NextExpiry(51'200), 102'400u);
  EXPECT_EQ(t.NextExpiry(102'400), kNever);
}

TEST(PauseTimer, PortSpeedScalesTheTime) {
  pause::PauseTimer t;
  t.OnFrame(1 << 2, Q(2, 0xffff), 0, 40'000'000'000);
  EXPECT_EQ(t.PausedUntil(2), 838'848u);            // 33553920 / 40
  EXPECT_FALSE(t.OnFrame(1 << 2, Q(2, 0), 10, 0));  // no speed: refused, unchanged
  EXPECT_EQ(t.PausedMask(10), 1 << 2);
}

TEST(PauseTimer, ClassicPauseStopsEverything) {
  pause::PauseTimer t;
  std::array<uint16_t, 8> q;
  q.fill(0x0200);
  t.OnFrame(0xff, q, 0, k10G);
  EXPECT_EQ(t.PausedMask(26'213), 0xff);  // 512 quanta = 26214.4 ns
  EXPECT_EQ(t.PausedMask(26'215), 0);
}

TEST(PauseTimer, TimeNeverRunsBackwards) {
  pause::PauseTimer t;
  t.OnFrame(1, Q(0, 1000), 1'000'000, k10G);
  t.OnFrame(1, Q(0, 0), 500'000, k10G);  // stale timestamp: treated as 1 ms
  EXPECT_EQ(t.PausedNs(0, 2'000'000), 0u);
  EXPECT_EQ(t.PausedMask(1'000'001), 0);
}

}  // namespace
}  // namespace pfc
