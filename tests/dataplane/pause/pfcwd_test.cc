// SPDX-License-Identifier: BSD-3-Clause
// Pause-storm watchdog on a virtual clock, fed by a real PauseTimer: a storm
// of XOFF refreshes is detected exactly detect_ns after the stall is first
// seen and restored exactly restore_ns after the last pause ends; ordinary
// congestion (pauses that lift, queues that move, an empty queue) is not a
// storm; the two times give hysteresis.
#include "dataplane/pause/pfcwd.h"

#include <gtest/gtest.h>

#include "dataplane/pause/pause_timer.h"

namespace pfc {
namespace {

constexpr uint64_t k10G = 10'000'000'000;
constexpr int kPrio = 3;
constexpr uint16_t kQuanta = 1000;  // 51.2 us at 10 Gb/s
constexpr uint64_t kPauseNs = 51'200;
using Event = pause::Pfcwd::Event;

// One (port, priority): the peer's pause timer, our queue and tx count, and
// the watchdog polled every `step` ns as a worker round would.
struct Rig {
  pause::PfcwdConfig cfg{true, 1'000'000, 10'000'000, pause::PfcwdAction::kDrop};
  pause::PauseTimer pause;
  pause::Pfcwd wd;
  uint64_t now = 1'000;
  bool queued = true;
  uint64_t tx = 0;
  uint64_t detected_at = 0, restored_at = 0;
  int detections = 0, restores = 0;

  void Xoff(uint16_t quanta = kQuanta) {
    std::array<uint16_t, 8> q{};
    q[kPrio] = quanta;
    pause.OnFrame(1 << kPrio, q, now, k10G);
  }
  void Poll() {
    pause::PfcwdObservation o;
    o.paused = (pause.PausedMask(now) >> kPrio) & 1;
    o.paused_until = pause.PausedUntil(kPrio);
    o.queued = queued;
    o.tx_packets = tx;
    const Event e = wd.Poll(now, o, cfg);
    if (e == Event::kDetected) detections++, detected_at = now;
    if (e == Event::kRestored) restores++, restored_at = now;
  }
  // Runs until `end`, polling every `step` ns; the peer refreshes its XOFF
  // every `refresh` ns (0: never).
  void Run(uint64_t end, uint64_t step, uint64_t refresh) {
    uint64_t next_refresh = now;
    while (now < end) {
      if (refresh && now >= next_refresh) {
        Xoff();
        next_refresh += refresh;
      }
      Poll();
      now += step;
    }
  }
};

TEST(Pfcwd, RefreshStormDetectedAfterDetectTime) {
  Rig r;
  const uint64_t start = r.now;
  // Refreshes at half the pause time keep the priority paused throughout.
  r.Run(start + 5'000'000, 1'000, kPauseNs / 2);
  EXPECT_EQ(r.detections, 1);
  EXPECT_EQ(r.detected_at, start + 1'000'000) << "first stalled poll + detect_ns, not earlier";
  EXPECT_EQ(r.wd.NextDeadline(r.cfg), r.pause.PausedUntil(kPrio) + 10'000'000);
  EXPECT_TRUE(r.wd.in_storm());
  EXPECT_EQ(r.wd.storm_since(), start + 1'000'000);
  EXPECT_EQ(r.restores, 0) << "refreshes keep the storm going";
  EXPECT_EQ(r.wd.StormNs(r.now), r.now - r.detected_at);
}

TEST(Pfcwd, RestoredAfterRestoreTimeWithoutPause) {
  Rig r;
  r.Run(r.now + 3'000'000, 1'000, kPauseNs / 2);
  ASSERT_TRUE(r.wd.in_storm());
  // The drop action empties the queue; the peer keeps pausing a while.
  r.queued = false;
  r.Run(r.now + 2'000'000, 1'000, kPauseNs / 2);
  EXPECT_TRUE(r.wd.in_storm()) << "an empty queue does not end a storm, a quiet peer does";
  const uint64_t last_end = r.pause.PausedUntil(kPrio);
  r.Run(r.now + 20'000'000, 1'000, 0);  // the peer stops
  EXPECT_EQ(r.restores, 1);
  // At the first poll (every 1 us) at or after the last pause's end + 10 ms.
  EXPECT_GE(r.restored_at, last_end + 10'000'000);
  EXPECT_LT(r.restored_at, last_end + 10'000'000 + 1'000);
  EXPECT_FALSE(r.wd.in_storm());
  EXPECT_EQ(r.wd.StormNs(r.now), r.restored_at - r.detected_at);
  EXPECT_EQ(r.wd.storms(), 1u);
  EXPECT_EQ(r.wd.restores(), 1u);
}

TEST(Pfcwd, OnePauseInTheQuietTimePostponesRestore) {
  Rig r;
  r.Run(r.now + 2'000'000, 1'000, kPauseNs / 2);
  ASSERT_TRUE(r.wd.in_storm());
  r.Run(r.now + 9'000'000, 1'000, 0);
  r.Xoff();  // one more XOFF 9 ms into the quiet time
  const uint64_t end = r.pause.PausedUntil(kPrio);
  r.Run(r.now + 20'000'000, 1'000, 0);
  EXPECT_EQ(r.restores, 1);
  EXPECT_GE(r.restored_at, end + 10'000'000);
  EXPECT_LT(r.restored_at, end + 10'000'000 + 1'000);
}

TEST(Pfcwd, PausesThatLiftAreCongestionNotStorm) {
  Rig r;
  // Heavy congestion for 100 ms: paused 51.2 us, then the pause expires and
  // the queue drains a few packets for 5 us, over and over (the queue never
  // empties).
  const uint64_t end = r.now + 100'000'000;
  while (r.now < end) {
    r.Xoff();
    r.Run(r.now + kPauseNs, 1'000, 0);
    for (int i = 0; i < 5; i++, r.now += 1'000) {
      r.tx++;
      r.Poll();
    }
  }
  EXPECT_EQ(r.detections, 0);
  EXPECT_EQ(r.wd.StormNs(r.now), 0u);
}

TEST(Pfcwd, PausedWithEmptyQueueOrMovingQueueIsNoStorm) {
  Rig r;
  r.queued = false;  // paused for 10 ms, nothing to send
  r.Run(r.now + 10'000'000, 1'000, kPauseNs / 2);
  EXPECT_EQ(r.detections, 0);
  r.queued = true;  // packets still leave now and then
  for (uint64_t end = r.now + 10'000'000; r.now < end; r.now += 1'000) {
    if (r.now % 500'000 < 1'000) r.Xoff(0xffff);  // paused throughout
    if (r.now % 900'000 < 1'000) r.tx++;
    r.Poll();
  }
  EXPECT_EQ(r.detections, 0) << "a sent packet every 0.9 ms restarts the 1 ms watch";
}

TEST(Pfcwd, HysteresisNeedsAFreshDetectTimeAfterRestore) {
  Rig r;
  r.Run(r.now + 2'000'000, 1'000, kPauseNs / 2);
  r.Run(r.now + 12'000'000, 1'000, 0);
  ASSERT_EQ(r.restores, 1);
  // The peer resumes at once: no second storm for a full detect_ns.
  const uint64_t again = r.now;
  r.Run(r.now + 999'000, 1'000, kPauseNs / 2);
  EXPECT_EQ(r.detections, 1);
  r.Run(r.now + 10'000, 1'000, kPauseNs / 2);
  EXPECT_EQ(r.detections, 2);
  EXPECT_EQ(r.detected_at, again + 1'000'000);
}

TEST(Pfcwd, OneBreakInTheStallRestartsTheWatch) {
  Rig r;
  EXPECT_EQ(r.wd.NextDeadline(r.cfg), kNever);
  const uint64_t start = r.now;
  r.Run(r.now + 900'000, 1'000, kPauseNs / 2);
  EXPECT_EQ(r.wd.NextDeadline(r.cfg), start + 1'000'000);
  r.tx++;  // one packet got out
  const uint64_t restart = r.now + 1'000;
  r.Run(r.now + 1'500'000, 1'000, kPauseNs / 2);
  EXPECT_EQ(r.detections, 1);
  EXPECT_EQ(r.detected_at, restart + 1'000'000);
}

}  // namespace
}  // namespace pfc
