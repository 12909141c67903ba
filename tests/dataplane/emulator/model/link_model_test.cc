// SPDX-License-Identifier: BSD-3-Clause
// The emulated wire on a virtual clock: serialisation at rate, propagation,
// the transmit FIFO's back-pressure, PFC ahead of data, late pumps that do
// not open gaps, and link down/up with every lost frame counted.
#include "dataplane/emulator/model/link_model.h"

#include <gtest/gtest.h>

#include <vector>

namespace pfc::emulator {
namespace {

constexpr uint64_t k10G = 10'000'000'000ull;

std::vector<WireFrame> PumpAll(LinkModel& l, uint64_t now) {
  std::vector<WireFrame> out;
  l.Pump(now, [&](const WireFrame& f) { out.push_back(f); });
  return out;
}

TEST(LinkModel, WireTimeCountsPreambleGapAndFcs) {
  LinkModel l({k10G, 0, 0});
  EXPECT_EQ(l.WireNs(60), 68u);     // 84 B x 0.8 ns = 67.2 -> 68 (never faster)
  EXPECT_EQ(l.WireNs(1000), 820u);  // 1024 B = 819.2 ns -> 820
  LinkModel g({40'000'000'000ull, 0, 0});
  EXPECT_EQ(g.WireNs(1476), 300u);  // 1500 B at 40G = 300 ns exactly
  // links.wire_overhead 0 (the HPCC simulator's links): the bytes alone,
  // on the link and in a host's pacing at a rate.
  LinkModel bare({k10G, 0, 0, 0});
  EXPECT_EQ(bare.WireNs(1000), 800u);
  EXPECT_EQ(WireTimeNs(1000, k10G, 0), 800u);
  EXPECT_EQ(WireTimeNs(1000, k10G), 820u);
  // links.wire_time: ns3 (the HPCC simulator's Time of a double), on the
  // link and in pacing, computed by hand from the double each gives:
  // 1,090 B at 400G is 21.8 ns -> 21, at 100G 87.2 -> 87; 1,000 B at 100G
  // and at 10G, 80 and 800 ns exactly, come out 79 and 799 (the double
  // 8e-8 s is a hair over, but 64.64 fixed point drops its last bits).
  LinkModel trunc({400'000'000'000ull, 0, 0, 0, true});
  EXPECT_EQ(trunc.WireNs(1090), 21u);
  EXPECT_EQ(WireTimeNs(1090, 400'000'000'000ull, 0), 22u);
  EXPECT_EQ(WireTimeNs(1090, 100'000'000'000ull, 0, true), 87u);
  EXPECT_EQ(WireTimeNs(1000, 100'000'000'000ull, 0, true), 79u);
  EXPECT_EQ(WireTimeNs(1000, k10G, 0, true), 799u);
  EXPECT_EQ(WireTimeNs(1048, 100'000'000'000ull, 0, true), 83u);
  EXPECT_EQ(WireTimeNs(88, 400'000'000'000ull, 0, true), 1u);
  // A negative overhead: the HPCC simulator's packet of a 1,000-byte
  // payload is 1,048 bytes, the RoCEv2 frame 1,058 (wire_overhead -10).
  // At 400G that is a whole nanosecond, 20.96 -> 20 against 21.16 -> 21;
  // the frame never goes below a byte.
  LinkModel shorter({400'000'000'000ull, 0, 0, -10, true});
  EXPECT_EQ(shorter.WireNs(1058), 20u);
  EXPECT_EQ(trunc.WireNs(1058), 21u);
  EXPECT_EQ(WireTimeNs(1058, 100'000'000'000ull, -10, true), 83u);
  EXPECT_EQ(WireTimeNs(5, k10G, -10), 1u);  // 1 byte: 0.8 ns, rounded up
}

// A wire time of 2^32 ns or more is not memoised (the memo keeps 32 bits):
// at 1 kb/s a 1,000-byte frame takes 8.192 s, and frames keep their exact
// times, back to back, whether the memo holds their length or not.
TEST(LinkModel, WireTimesBeyondTheMemoStayExact) {
  LinkModel l({1000, 5, 1'000'000'000'000ull});
  const uint64_t w = WireTimeNs(1000, 1000);
  ASSERT_EQ(w, 8'192'000'000u);
  bool dropped = false;
  ASSERT_EQ(l.Room(1000, 0, 3), 3u);
  ASSERT_TRUE(l.Send(1, 1000, 0, &dropped));
  ASSERT_TRUE(l.Send(2, 1000, 0, &dropped));
  ASSERT_TRUE(l.Send(3, 60, 0, &dropped));
  const auto f = PumpAll(l, 3 * w);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].arrive_ns, w + 5);
  EXPECT_EQ(f[1].arrive_ns, 2 * w + 5);
  EXPECT_EQ(f[2].arrive_ns, 2 * w + WireTimeNs(60, 1000) + 5);
  EXPECT_EQ(l.counters().busy_ns, 2 * w + WireTimeNs(60, 1000));
}

TEST(LinkModel, SerialisesBackToBackAndAddsPropagation) {
  LinkModel l({k10G, 1000, 100'000});
  bool dropped = false;
  for (uintptr_t i = 1; i <= 3; ++i) ASSERT_TRUE(l.Send(i, 1000, 0, &dropped));
  auto f = PumpAll(l, 0);
  // Only the first may start at t=0; the others start when the wire frees.
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].arrive_ns, 820u + 1000u);
  EXPECT_EQ(l.NextStartNs(), 820u);
  f = PumpAll(l, 5000);  // a late pump: start times still follow the wire
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].arrive_ns, 1640u + 1000u);
  EXPECT_EQ(f[1].arrive_ns, 2460u + 1000u);
  EXPECT_EQ(l.counters().frames, 3u);
  EXPECT_EQ(l.counters().busy_ns, 3 * 820u);
  EXPECT_EQ(l.NextStartNs(), kNever);
}

TEST(LinkModel, IdleGapIsNotBackfilled) {
  LinkModel l({k10G, 0, 0});
  bool dropped = false;
  ASSERT_TRUE(l.Send(1, 1000, 0, &dropped));
  PumpAll(l, 0);
  ASSERT_TRUE(l.Send(2, 1000, 10'000, &dropped));
  auto f = PumpAll(l, 10'000);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].arrive_ns, 10'820u);  // starts when queued, not at 820
}

TEST(LinkModel, FifoDepthBackPressures) {
  // FIFO of 2 frames' wire time: a third frame waits in the switch.
  LinkModel l({k10G, 0, 2 * 820});
  bool dropped = false;
  EXPECT_TRUE(l.Send(1, 1000, 0, &dropped));
  EXPECT_TRUE(l.Send(2, 1000, 0, &dropped));
  EXPECT_TRUE(l.Send(3, 1000, 0, &dropped));  // starts at 1640 = now + fifo
  EXPECT_FALSE(l.CanSend(1000, 0));
  EXPECT_FALSE(l.Send(4, 1000, 0, &dropped));
  EXPECT_FALSE(dropped);
  EXPECT_EQ(l.counters().refused, 1u);
  PumpAll(l, 0);
  EXPECT_FALSE(l.CanSend(1000, 819));
  EXPECT_TRUE(l.CanSend(1000, 820));
  EXPECT_EQ(l.AcceptNs(0), 820u);
  EXPECT_EQ(l.AcceptNs(900), 900u);
}

TEST(LinkModel, RoomIsWhatSendWouldTakeInARow) {
  // The switch's egress dequeues no more than this (EmuPort::TxRoom).
  LinkModel l({k10G, 0, 2 * 820});
  bool dropped = false;
  EXPECT_EQ(l.Room(1000, 0, 32), 3u);  // idle: 0, 820 and 1640 ahead of it
  EXPECT_EQ(l.Room(1000, 0, 2), 2u);   // at most n
  EXPECT_EQ(l.Room(400, 0, 32), 5u);   // smaller frames: more of them
  for (uintptr_t i = 1; i <= 3; ++i) ASSERT_TRUE(l.Send(i, 1000, 0, &dropped));
  EXPECT_EQ(l.Room(1000, 0, 32), 0u);
  PumpAll(l, 0);
  EXPECT_EQ(l.Room(1000, 819, 32), 0u);
  EXPECT_EQ(l.Room(1000, 820, 32), 1u);  // AcceptNs: one frame's room
  EXPECT_TRUE(l.Send(4, 1000, 820, &dropped));
  EXPECT_EQ(l.Room(1000, 820, 32), 0u);
  // Down: Send drops (and counts) what comes, as before.
  l.SetUp(false, 900, [](uintptr_t) {});
  EXPECT_EQ(l.Room(1000, 900, 32), 32u);
}

TEST(LinkModel, ZeroFifoAcceptsOnlyAnIdleWire) {
  LinkModel l({k10G, 0, 0});
  bool dropped = false;
  EXPECT_TRUE(l.Send(1, 1000, 0, &dropped));
  EXPECT_FALSE(l.Send(2, 1000, 0, &dropped));
  PumpAll(l, 0);
  EXPECT_FALSE(l.CanSend(64, 819));
  EXPECT_TRUE(l.CanSend(64, 820));
}

TEST(LinkModel, ControlGoesAheadOfQueuedDataAtTheNextBoundary) {
  LinkModel l({k10G, 0, 10 * 820});
  bool dropped = false;
  for (uintptr_t i = 1; i <= 3; ++i) ASSERT_TRUE(l.Send(i, 1000, 0, &dropped));
  PumpAll(l, 0);  // frame 1 on the wire until 820
  ASSERT_TRUE(l.SendControl(99, 60, 100));
  auto f = PumpAll(l, 10'000);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].handle, 99u);  // PFC right after frame 1
  EXPECT_TRUE(f[0].control);
  EXPECT_EQ(f[0].arrive_ns, 820u + 68u);
  EXPECT_EQ(f[1].handle, 2u);
  EXPECT_EQ(f[1].arrive_ns, 820u + 68u + 820u);
  EXPECT_EQ(l.counters().control_frames, 1u);
}

TEST(LinkModel, ControlQueuedLaterDoesNotOvertakeAFrameThatStartedBefore) {
  LinkModel l({k10G, 0, 10 * 820});
  bool dropped = false;
  ASSERT_TRUE(l.Send(1, 1000, 0, &dropped));
  ASSERT_TRUE(l.Send(2, 1000, 0, &dropped));
  // Control queued at 900: frame 2 started at 820 (pumped late, at 2000).
  ASSERT_TRUE(l.SendControl(99, 60, 900));
  auto f = PumpAll(l, 2000);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].handle, 1u);
  EXPECT_EQ(f[1].handle, 2u);
  EXPECT_EQ(f[2].handle, 99u);
  EXPECT_EQ(f[2].arrive_ns, 1640u + 68u);
}

// The queues' heads' times the model keeps beside the wire (idle,
// NextStartNs) follow every push, start and drop: a data head waiting for
// the wire, a control frame queued behind a started one, both emptied, and
// a link gone down with frames queued.
TEST(LinkModel, HeadTimesFollowTheQueues) {
  LinkModel l({k10G, 0, 10 * 820});
  bool dropped = false;
  EXPECT_TRUE(l.idle());
  EXPECT_EQ(l.NextStartNs(), kNever);
  for (uintptr_t i = 1; i <= 3; ++i) ASSERT_TRUE(l.Send(i, 1000, 0, &dropped));
  EXPECT_FALSE(l.idle());
  EXPECT_EQ(l.NextStartNs(), 0u);
  ASSERT_EQ(PumpAll(l, 0).size(), 1u);  // frame 1 until 820
  EXPECT_EQ(l.NextStartNs(), 820u);
  ASSERT_TRUE(l.SendControl(99, 60, 100));
  EXPECT_EQ(l.NextStartNs(), 820u);
  auto f = PumpAll(l, 820);  // the control frame, until 888
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].handle, 99u);
  EXPECT_FALSE(l.idle());
  EXPECT_EQ(l.NextStartNs(), 888u);
  ASSERT_EQ(PumpAll(l, 10'000).size(), 2u);
  EXPECT_TRUE(l.idle());
  EXPECT_EQ(l.NextStartNs(), kNever);
  ASSERT_TRUE(l.Send(4, 1000, 20'000, &dropped));
  ASSERT_TRUE(l.Send(5, 1000, 20'000, &dropped));
  ASSERT_EQ(PumpAll(l, 20'000).size(), 1u);
  EXPECT_EQ(l.NextStartNs(), 20'820u);
  l.SetUp(false, 20'100, [](uintptr_t) {});
  EXPECT_TRUE(l.idle());
  EXPECT_EQ(l.NextStartNs(), kNever);
}

TEST(LinkModel, DownDropsQueuedAndMarksFramesOnTheWireStale) {
  LinkModel l({k10G, 5000, 10 * 820});
  bool dropped = false;
  for (uintptr_t i = 1; i <= 3; ++i) ASSERT_TRUE(l.Send(i, 1000, 0, &dropped));
  auto on_wire = PumpAll(l, 0);
  ASSERT_EQ(on_wire.size(), 1u);
  std::vector<uintptr_t> freed;
  l.SetUp(false, 100, [&](uintptr_t h) { freed.push_back(h); });
  EXPECT_EQ(freed, (std::vector<uintptr_t>{2, 3}));
  EXPECT_TRUE(l.Stale(on_wire[0]));
  EXPECT_FALSE(l.Send(4, 1000, 200, &dropped));
  EXPECT_TRUE(dropped);
  EXPECT_FALSE(l.SendControl(5, 60, 200));
  EXPECT_EQ(l.counters().dropped_down, 4u);
  l.SetUp(true, 10'000, [](uintptr_t) {});
  ASSERT_TRUE(l.Send(6, 1000, 10'000, &dropped));
  auto f = PumpAll(l, 10'000);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(l.Stale(f[0]));
  EXPECT_EQ(f[0].arrive_ns, 10'000u + 820u + 5000u);
}

TEST(LinkModel, SustainsLineRate) {
  // Pumped at coarse 10 us steps with a 20 us FIFO: the wire stays busy and
  // the delivered rate equals the link rate.
  LinkModel l({k10G, 0, 20'000});
  bool dropped = false;
  uintptr_t h = 0;
  uint64_t delivered_bytes = 0, last_arrival = 0;
  for (uint64_t now = 0; now < 1'000'000; now += 10'000) {
    while (l.CanSend(1476, now)) ASSERT_TRUE(l.Send(++h, 1476, now, &dropped));
    l.Pump(now, [&](const WireFrame& f) {
      delivered_bytes += f.len + kWireOverheadBytes;
      last_arrival = f.arrive_ns;
    });
  }
  // 1500 B x 8 / 10G = 1200 ns a frame, back to back.
  EXPECT_EQ(last_arrival, l.counters().frames * 1200);
  EXPECT_GE(last_arrival, 990'000u);
  EXPECT_EQ(delivered_bytes * 8 / 10, last_arrival);
}

// A link end's receive ring (EmuPort::Init) holds every frame its peer has
// started and the receiver has not yet taken. Here the receiver takes each
// as late as the virtual clock's windows let it (a window is the delay and
// a nanosecond long; the sender runs all of one before the receiver takes
// what landed in it); the sender keeps the FIFO full of minimum-size frames. On
// the HPCC simulator's 400G links (wire_overhead -14) a 60-byte frame is
// 46 bytes on the wire, 1 ns rounded up: sizing for 84 bytes (the default
// overhead's minimum frame) left room for about half of them. (With ns-3's
// rounding, wire_time: ns3, such a frame takes no wire time at all: what is
// on the wire is then bounded by what reaches the sender, not by the link.)
TEST(LinkModel, RxRingFramesHoldsAWireFullOfMinimumFrames) {
  for (const LinkParams p :
       {LinkParams{400'000'000'000ull, 10'000, 2 * 22, -14}, LinkParams{k10G, 10'000, 2 * 820}}) {
    LinkModel l(p);
    std::vector<uint64_t> in_flight;  // arrival times, in order
    size_t head = 0, most = 0;
    bool dropped = false;
    uintptr_t h = 1;
    const uint64_t window = p.delay_ns + 1;
    for (uint64_t now = 0; now < 40'000; now++) {
      for (int k = 0; k < 64 && l.Send(h, 60, now, &dropped); k++) h++;
      l.Pump(now, [&](const WireFrame& f) { in_flight.push_back(f.arrive_ns); });
      const uint64_t taken_before = now / window * window;  // this window's start
      while (head < in_flight.size() && in_flight[head] < taken_before) head++;
      most = std::max(most, in_flight.size() - head);
    }
    const int64_t wire_bytes = 60 + p.wire_overhead;
    EXPECT_GT(most, (2 * p.delay_ns * p.rate_bps / 8'000'000'000) / wire_bytes * 9 / 10);
    EXPECT_LE(most, RxRingFrames(p, 60, 0)) << p.rate_bps;
    // The sizing before: 84 bytes on the wire whatever the overhead.
    if (p.wire_overhead < 0) {
      EXPECT_GT(most, RxRingFrames(p, uint32_t(84 - p.wire_overhead), 0));
    }
  }
}

}  // namespace
}  // namespace pfc::emulator
