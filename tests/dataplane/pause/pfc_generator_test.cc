// SPDX-License-Identifier: BSD-3-Clause
// XOFF/XON generation with a virtual clock: thresholds and hysteresis,
// refresh timing, shared frames, retries, counters, and the peer never
// resuming on its own while we stay above XON.
#include "dataplane/pause/pfc_generator.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

constexpr uint64_t k10G = 10'000'000'000;
constexpr uint64_t kPause = 3'355'392;  // 0xffff quanta at 10 Gb/s

pause::PfcGenerator Make(uint8_t lossless, double fraction = 0.5) {
  pause::PfcGenerator g;
  std::string err;
  pause::PfcGenConfig c;
  c.lossless_mask = lossless;
  c.port_bps = k10G;
  c.refresh_fraction = fraction;
  EXPECT_TRUE(g.Configure(c, &err)) << err;
  return g;
}

// pfc.decide: on_change. A dynamic XOFF point moving under a group whose
// own bytes stand still decides nothing; a rise may pause, a fall resume.
TEST(PfcGenerator, OnChangeDecidesOnlyWhenTheGroupMoves) {
  pause::PfcGenerator g;
  std::string err;
  pause::PfcGenConfig c;
  c.lossless_mask = 1 << 3;
  c.port_bps = k10G;
  c.on_change = true;
  ASSERT_TRUE(g.Configure(c, &err)) << err;
  g.Observe(3, 5000, 8000, 5000);  // a rise from empty, below XOFF
  EXPECT_EQ(g.off_mask(), 0);
  g.Observe(3, 5000, 4000, 1000);  // the pool filled: XOFF fell under it, no move
  EXPECT_EQ(g.off_mask(), 0);
  g.Observe(3, 4900, 4000, 1000);  // a fall does not pause either
  EXPECT_EQ(g.off_mask(), 0);
  g.Observe(3, 5100, 4000, 1000);  // a rise above XOFF pauses
  EXPECT_EQ(g.off_mask(), 1 << 3);
  g.Observe(3, 5100, 9000, 6000);  // the pool drained: XON rose above it, no move
  EXPECT_EQ(g.off_mask(), 1 << 3);
  g.Observe(3, 5200, 9000, 6000);  // a rise does not resume
  EXPECT_EQ(g.off_mask(), 1 << 3);
  g.Observe(3, 5150, 9000, 6000);  // a fall at or below XON resumes
  EXPECT_EQ(g.off_mask(), 0);
  // Emptied unseen (the caller skips an empty ON group): the next bytes rise from zero.
  g.ObserveEmpty(3);
  g.Observe(3, 4500, 4000, 1000);
  EXPECT_EQ(g.off_mask(), 1 << 3);
  // The default decides at every look, whatever moved.
  pause::PfcGenerator poll = Make(1 << 3);
  poll.Observe(3, 5000, 8000, 5000);
  poll.Observe(3, 5000, 4000, 1000);
  EXPECT_EQ(poll.off_mask(), 1 << 3);
}

TEST(PfcGenerator, ConfigureRejectsBadValues) {
  pause::PfcGenerator g;
  std::string err;
  pause::PfcGenConfig c;
  c.lossless_mask = 1;
  EXPECT_FALSE(g.Configure(c, &err));
  EXPECT_NE(err.find("pfc.port_bps"), std::string::npos) << err;
  c.port_bps = k10G;
  c.xoff_quanta = 0;
  EXPECT_FALSE(g.Configure(c, &err));
  EXPECT_NE(err.find("pfc.xoff_quanta = 0"), std::string::npos) << err;
  c.xoff_quanta = 0xffff;
  c.refresh_fraction = 1.0;
  EXPECT_FALSE(g.Configure(c, &err));
  EXPECT_NE(err.find("pfc.refresh_fraction"), std::string::npos) << err;
  c.refresh_fraction = 0.5;
  c.xoff_quanta = 10;  // 512 ns pause at 10G: refresh every 256 ns would flood
  EXPECT_FALSE(g.Configure(c, &err));
  EXPECT_NE(err.find("refresh period >= 1 us"), std::string::npos) << err;
  c.xoff_quanta = 0xffff;
  ASSERT_TRUE(g.Configure(c, &err)) << err;
  EXPECT_EQ(g.refresh_ns(), kPause / 2);
}

TEST(PfcGenerator, XoffRefreshXonCycle) {
  pause::PfcGenerator g = Make(1 << 3);
  pause::PauseRequest r;
  g.Observe(3, 4000, 4000, 2500);  // at XOFF, not above: nothing
  EXPECT_FALSE(g.Collect(0, &r));
  g.Observe(3, 4001, 4000, 2500);
  ASSERT_TRUE(g.Collect(10, &r));
  EXPECT_EQ(r.class_enable, 1 << 3);
  EXPECT_EQ(r.quanta[3], 0xffff);
  EXPECT_EQ(g.NextDeadline(10), 10u);
  g.MarkSent(r, 10);
  EXPECT_EQ(g.xoff_sent(3), 1u);
  EXPECT_EQ(g.NextDeadline(10), 10 + kPause / 2);

  // Still above XON: nothing until the refresh is due, then a refresh.
  g.Observe(3, 3000, 4000, 2500);
  EXPECT_FALSE(g.Collect(10 + kPause / 2 - 1, &r));
  ASSERT_TRUE(g.Collect(10 + kPause / 2, &r));
  EXPECT_EQ(r.class_enable, 1 << 3);
  EXPECT_EQ(r.quanta[3], 0xffff);
  g.MarkSent(r, 10 + kPause / 2);
  EXPECT_EQ(g.refresh_sent(3), 1u);
  EXPECT_EQ(g.xoff_sent(3), 1u);

  // Between XON and XOFF with the hysteresis: still paused.
  g.Observe(3, 2501, 4000, 2500);
  EXPECT_FALSE(g.Collect(10 + kPause / 2 + 5, &r));
  g.Observe(3, 2500, 4000, 2500);  // at XON: resume
  ASSERT_TRUE(g.Collect(2'000'000, &r));
  EXPECT_EQ(r.class_enable, 1 << 3);
  EXPECT_EQ(r.quanta[3], 0);
  g.MarkSent(r, 2'000'000);
  EXPECT_EQ(g.xon_sent(3), 1u);
  EXPECT_FALSE(g.Collect(100'000'000, &r));
  EXPECT_EQ(g.NextDeadline(100'000'000), kNever);
  EXPECT_EQ(g.frames_sent(), 3u);
  // The peer was paused from the XOFF to the XON.
  EXPECT_EQ(g.pausing_ns(3, 100'000'000), 2'000'000u - 10);
}

// The link drops while we pause the peer: the peer forgot, so once the
// link is back a priority still above XOFF pauses it again at once (not at
// the next refresh, up to half a pause later), and the time we paused it
// stopped at the link-down.
TEST(PfcGenerator, LinkDownAndUpAnnouncesAgain) {
  pause::PfcGenerator g = Make(1 << 3);
  pause::PauseRequest r;
  g.Observe(3, 4001, 4000, 2500);
  ASSERT_TRUE(g.Collect(10, &r));
  g.MarkSent(r, 10);
  EXPECT_FALSE(g.Collect(20, &r));
  g.OnLinkChange(false, 1000);
  EXPECT_EQ(g.peer_paused_mask(1000), 0);
  EXPECT_EQ(g.pausing_ns(3, 100'000), 990u);
  g.OnLinkChange(true, 2000);
  ASSERT_TRUE(g.Collect(2000, &r));
  EXPECT_EQ(r.class_enable, 1 << 3);
  EXPECT_EQ(r.quanta[3], 0xffff);
  g.MarkSent(r, 2000);
  EXPECT_EQ(g.xoff_sent(3), 2u);
  EXPECT_EQ(g.peer_paused_mask(2001), 1 << 3);
  // Back below XON after a link-down: nothing announced, no XON owed.
  g.OnLinkChange(false, 3000);
  g.OnLinkChange(true, 4000);
  g.Observe(3, 0, 4000, 2500);
  ASSERT_FALSE(g.Collect(5000, &r));
  EXPECT_TRUE(g.quiet());
}

TEST(PfcGenerator, IgnoresLossyPriorities) {
  pause::PfcGenerator g = Make(1 << 3);
  pause::PauseRequest r;
  g.Observe(0, 1'000'000, 10, 5);
  EXPECT_FALSE(g.Collect(0, &r));
  std::array<pause::PgLevel, 8> lv{};
  lv[5] = {1'000'000, 10, 5};
  EXPECT_FALSE(g.Poll(lv, 0, &r));
}

TEST(PfcGenerator, PrioritiesShareOneFrame) {
  pause::PfcGenerator g = Make(0b0010'0110);
  std::array<pause::PgLevel, 8> lv{};
  for (auto& l : lv) l = {0, 1000, 500};
  lv[1].occupancy = 2000;
  lv[5].occupancy = 2000;
  pause::PauseRequest r;
  ASSERT_TRUE(g.Poll(lv, 0, &r));
  EXPECT_EQ(r.class_enable, 0b0010'0010);
  EXPECT_EQ(r.quanta[1], 0xffff);
  EXPECT_EQ(r.quanta[5], 0xffff);
  EXPECT_EQ(r.quanta[2], 0);
  g.MarkSent(r, 0);

  // Priority 2 crosses later: its XOFF carries fresh XOFFs for 1 and 5.
  lv[2].occupancy = 2000;
  ASSERT_TRUE(g.Poll(lv, 1000, &r));
  EXPECT_EQ(r.class_enable, 0b0010'0110);
  g.MarkSent(r, 1000);
  EXPECT_EQ(g.xoff_sent(2), 1u);
  EXPECT_EQ(g.refresh_sent(1), 1u);
  EXPECT_EQ(g.refresh_sent(5), 1u);

  // 1 drains below XON while 2 and 5 stay above: one frame, XON for 1.
  lv[1].occupancy = 100;
  ASSERT_TRUE(g.Poll(lv, 2000, &r));
  EXPECT_EQ(r.class_enable, 0b0010'0110);
  EXPECT_EQ(r.quanta[1], 0);
  EXPECT_EQ(r.quanta[2], 0xffff);
  EXPECT_EQ(r.quanta[5], 0xffff);
  g.MarkSent(r, 2000);
  EXPECT_EQ(g.xon_sent(1), 1u);
  EXPECT_EQ(g.off_mask(), 0b0010'0100);
  EXPECT_EQ(g.peer_paused_mask(2000), 0b0010'0100);
}

TEST(PfcGenerator, RetriesUntilMarkedSent) {
  pause::PfcGenerator g = Make(1 << 0);
  pause::PauseRequest r;
  g.Observe(0, 10, 5, 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(g.Collect(static_cast<uint64_t>(i), &r));  // the device refused it
    EXPECT_EQ(r.quanta[0], 0xffff);
  }
  EXPECT_EQ(g.xoff_sent(0), 0u);
  g.MarkSent(r, 3);
  EXPECT_EQ(g.xoff_sent(0), 1u);
  EXPECT_FALSE(g.Collect(4, &r));
}

TEST(PfcGenerator, NoXonForAPauseNeverSent) {
  pause::PfcGenerator g = Make(1 << 0);
  pause::PauseRequest r;
  g.Observe(0, 10, 5, 0);
  ASSERT_TRUE(g.Collect(0, &r));   // the frame could not leave ...
  g.Observe(0, 0, 5, 0);           // ... and the buffer drained meanwhile
  EXPECT_FALSE(g.Collect(1, &r));  // the peer was never paused: no XON
  EXPECT_EQ(g.pausing_ns(0, 100), 0u);
}

TEST(PfcGenerator, PausingTimeStopsAtExpiryWithoutRefresh) {
  pause::PfcGenerator g = Make(1 << 4);
  pause::PauseRequest r;
  g.Observe(4, 10, 5, 0);
  ASSERT_TRUE(g.Collect(0, &r));
  g.MarkSent(r, 0);
  // Nobody polls for 10 ms: the peer's pause ran out after one pause time.
  EXPECT_EQ(g.pausing_ns(4, 10'000'000), kPause);
  EXPECT_EQ(g.peer_paused_mask(10'000'000), 0);
  ASSERT_TRUE(g.Collect(10'000'000, &r));  // the overdue refresh
  g.MarkSent(r, 10'000'000);
  EXPECT_EQ(g.refresh_sent(4), 1u);
  EXPECT_EQ(g.pausing_ns(4, 10'000'100), kPause + 100);
}

// Polling every 20 us while the buffer stays above XON for 50 ms: with the
// refreshes, a peer that obeys our frames is paused continuously, and never
// after the XON.
TEST(PfcGenerator, PeerStaysPausedWhileAboveXon) {
  for (double fraction : {0.5, 0.9}) {
    pause::PfcGenerator g = Make(1 << 3, fraction);
    pause::PauseTimer peer;
    pause::PauseRequest r;
    const uint64_t kOff = 1'000'000, kOn = 51'000'000;
    for (uint64_t now = 0; now <= 60'000'000; now += 20'000) {
      const uint64_t occ = (now >= kOff && now < kOn) ? 5000 : 100;
      g.Observe(3, occ, 4000, 2000);
      if (g.Collect(now, &r)) {
        g.MarkSent(r, now);
        peer.OnFrame(r, now, k10G);  // a zero-delay link
      }
      const bool paused = peer.PausedMask(now) & (1 << 3);
      EXPECT_EQ(paused, now >= kOff && now < kOn) << "at " << now << " ns, fraction " << fraction;
    }
    // One refresh per refresh period (rounded up to the 20 us poll).
    const uint64_t period = (g.refresh_ns() + 19'999) / 20'000 * 20'000;
    EXPECT_EQ(g.refresh_sent(3), (kOn - kOff) / period) << fraction;
    EXPECT_EQ(g.xoff_sent(3), 1u);
    EXPECT_EQ(g.xon_sent(3), 1u);
    EXPECT_EQ(g.pausing_ns(3, 60'000'000), kOn - kOff);
    EXPECT_EQ(peer.PausedNs(3, 60'000'000), kOn - kOff);
  }
}

}  // namespace
}  // namespace pfc
