// SPDX-License-Identifier: BSD-3-Clause
// ECN marking (stages/ecn_stage.h) on real mbufs: which packets of a burst
// are marked at a step threshold, exactly the draws of a fixed seed between
// the thresholds, CE only on ECT packets with the checksum patched, the
// depth falling back as the queue drains, and queues without a profile
// untouched.
#include "dataplane/common/rng.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/sched/red.h"
#include "dataplane/stages/ecn_stage.h"
#include "dataplane/stages/egress.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
constexpr uint32_t kFrame = 60;  // Frame()'s size, what the depth counts
using Frames = std::vector<std::vector<uint8_t>>;

// Queue 3 of every port marks at a step of 600 bytes (10 frames); queue 4
// of p3 by a linear profile from 600 to 1200 bytes up to 50%.
std::string EcnYaml(uint64_t seed) {
  return "ecn:\n"
         "  seed: " +
         std::to_string(seed) +
         "\n"
         "  profiles:\n"
         "    STEP: { green_min_threshold: 600, green_max_threshold: 600, "
         "green_drop_probability: 0 }\n"
         "    LIN: { green_min_threshold: 600, green_max_threshold: 1200, "
         "green_drop_probability: 50 }\n"
         "  queues:\n"
         "    - { priorities: [3], profile: STEP }\n"
         "    - { ports: [p3], priorities: [4], profile: LIN }\n";
}

Frames ToP3(uint8_t dscp, uint8_t ecn, int n) {
  Frames f;
  for (uint16_t i = 0; i < n; i++)
    f.push_back(
        Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = dscp, .ecn = ecn, .seq = i}));
  return f;
}

uint8_t EcnOf(const std::vector<uint8_t>& f) { return f[15] & 3; }

TEST_F(StageTest, EcnStepMarksEctPacketsOverTheThreshold) {
  Start(BaseYaml("", EcnYaml(1)));
  // 32 ECT(0) frames into queue 3 of p3: frame i finds 60*i bytes ahead, so
  // frames 11..31 (660 bytes and up) are over the 600-byte step.
  Ingress(0, ToP3(24, net::kEcnEct0, 32), kT0);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 32 * kFrame);
  EXPECT_EQ(Egress(3, kT0 + 100), 32);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 0) << "what left, left the depth";
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 32u);
  for (size_t i = 0; i < out.size(); i++) {
    EXPECT_EQ(EcnOf(out[i]), i >= 11 ? net::kEcnCe : net::kEcnEct0) << i;
    EXPECT_EQ(DscpOf(out[i]), 24) << "the DSCP is kept";
    EXPECT_TRUE(net::Ipv4ChecksumOk(out[i].data() + 14, 20)) << i;
  }
  // The queue drained: the next burst starts from an empty queue again.
  Ingress(0, ToP3(24, net::kEcnEct1, 8), kT0 + 200);
  EXPECT_EQ(Egress(3, kT0 + 300), 8);
  for (const auto& f : TakeTx(3)) EXPECT_EQ(EcnOf(f), net::kEcnEct1);

  // Not-ECT over the threshold: never changed, counted; CE stays CE and is
  // not counted as this switch's mark.
  Frames mixed = ToP3(24, net::kEcnNotEct, 16);
  for (uint16_t i = 0; i < 4; i++)
    mixed.push_back(Frame(
        {.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 24, .ecn = net::kEcnCe, .seq = 100}));
  Ingress(0, mixed, kT0 + 400);
  EXPECT_EQ(Egress(3, kT0 + 500), 20);
  const Frames out2 = TakeTx(3);
  for (size_t i = 0; i < 16; i++) EXPECT_EQ(EcnOf(out2[i]), net::kEcnNotEct) << i;
  for (size_t i = 16; i < 20; i++) EXPECT_EQ(EcnOf(out2[i]), net::kEcnCe) << i;
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p3.q3.ecn_marked"), 21u);
  EXPECT_EQ(c.at("p3.q3.ecn_not_ect"), 5u) << "Not-ECT frames 11..15";
  EXPECT_EQ(c.at("p3.q3.tx_packets"), 60u);
}

// mark_at: dequeue (the HPCC work's simulator): each frame is judged as it
// leaves for transmission, by the bytes it leaves behind, so the burst's
// first frames are marked and its last are not: the reverse of enqueue.
// With one worker and with two (the queuing worker's counts, the sending
// worker's tx counters).
TEST_F(StageTest, EcnAtDequeueMarksByTheBytesLeftBehind) {
  for (const char* workers : {"workers: 1", "workers: 2"}) {
    std::string y = BaseYaml("", EcnYaml(1));
    y.replace(y.find("workers: 1"), 10, workers);
    y.replace(y.find("green_drop_probability: 0 }"), 27,
              "green_drop_probability: 0, mark_at: dequeue }");
    Start(y);
    Ingress(0, ToP3(24, net::kEcnEct0, 32), kT0);
    EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 32 * kFrame) << "queued bytes counted, none marked";
    EXPECT_EQ(Snapshot(*sw_).at("p3.q3.ecn_marked"), 0u);
    EXPECT_EQ(Egress(3, kT0 + 100), 32);
    EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 0);
    const Frames out = TakeTx(3);
    ASSERT_EQ(out.size(), 32u);
    // Frame i leaves 60 * (31 - i) bytes behind: over 600 for i <= 20.
    for (size_t i = 0; i < out.size(); i++) {
      EXPECT_EQ(EcnOf(out[i]), i <= 20 ? net::kEcnCe : net::kEcnEct0) << workers << " " << i;
      EXPECT_TRUE(net::Ipv4ChecksumOk(out[i].data() + 14, 20)) << i;
    }
    EXPECT_EQ(Snapshot(*sw_).at("p3.q3.ecn_marked"), 21u) << workers;
    // The linear profile on queue 4 still marks at enqueue: one profile's
    // choice is its own.
    Ingress(0, ToP3(26, net::kEcnEct0, 32), kT0 + 200);  // queue 4, LIN
    EXPECT_EQ(Egress(3, kT0 + 300), 32);
    const Frames lin = TakeTx(3);
    ASSERT_EQ(lin.size(), 32u);
    for (size_t i = 0; i <= 10; i++) EXPECT_EQ(EcnOf(lin[i]), net::kEcnEct0) << i;
    EXPECT_EQ(EcnOf(lin[31]), net::kEcnCe) << "1860 bytes ahead: over the 1200-byte max";
    TearDown();
  }
}

// Two workers: p0's owner queues, p3's owner sends (port i on worker i % 2,
// switch.cc), so the depth sums the queuing worker's count and subtracts
// the other's tx counters: the same marks, and the depth back to 0.
TEST_F(StageTest, EcnWithTwoWorkers) {
  std::string y = BaseYaml("", EcnYaml(1));
  y.replace(y.find("workers: 1"), 10, "workers: 2");
  Start(y);
  ASSERT_NE(&Owner(0), &Owner(3));
  Ingress(0, ToP3(24, net::kEcnEct0, 32), kT0);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 32 * kFrame);
  EXPECT_EQ(Egress(3, kT0 + 100), 32);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 0);
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 32u);
  for (size_t i = 0; i < out.size(); i++)
    EXPECT_EQ(EcnOf(out[i]), i >= 11 ? net::kEcnCe : net::kEcnEct0) << i;
  EXPECT_EQ(Snapshot(*sw_).at("p3.q3.ecn_marked"), 21u);
}

// Between the thresholds: exactly the decisions of the worker's generator
// (seeded from ecn.seed and the worker id), drawn only for depths in
// (min, max].
TEST_F(StageTest, EcnLinearFollowsTheSeededDraws) {
  for (uint64_t seed : {1u, 2u}) {
    Start(BaseYaml("", EcnYaml(seed)));
    Ingress(0, ToP3(26, net::kEcnEct0, 32), kT0);  // tag 26: queue 4, profile LIN
    ASSERT_EQ(Egress(3, kT0 + 100), 32);
    const Frames out = TakeTx(3);
    const sched::RedQueue red(
        sched::RedProfile{.min_bytes = 600, .max_bytes = 1200, .max_prob = 0.5});
    Rng rng(Mix64(seed) ^ 0);
    int marked = 0;
    for (size_t i = 0; i < out.size(); i++) {
      const int64_t depth = static_cast<int64_t>(i * kFrame);
      const bool want = red.Mark(depth, red.NeedsDraw(depth) ? rng.Next32() : 0);
      EXPECT_EQ(EcnOf(out[i]), want ? net::kEcnCe : net::kEcnEct0)
          << "seed " << seed << " frame " << i;
      marked += want;
    }
    EXPECT_EQ(Snapshot(*sw_).at("p3.q4.ecn_marked"), static_cast<uint64_t>(marked));
    EXPECT_GE(marked, 11) << "frames 21..31 are over the max";
    TearDown();
  }
}

// A queue without a profile keeps its packets as they came.
TEST_F(StageTest, EcnOnlyWhereAProfileApplies) {
  Start(BaseYaml("", EcnYaml(1)));
  Frames f;
  for (uint16_t i = 0; i < 32; i++)  // tag 26 to p2's network: queue 4 of p2, no profile
    f.push_back(Frame(
        {.in_port = 0, .dst_ip = Ip(10, 0, 2, 2), .dscp = 26, .ecn = net::kEcnEct0, .seq = i}));
  Ingress(0, f, kT0);
  EXPECT_EQ(Egress(2, kT0 + 100), 32);
  for (const auto& o : TakeTx(2)) EXPECT_EQ(EcnOf(o), net::kEcnEct0);
  EXPECT_EQ(Snapshot(*sw_).at("p2.q4.ecn_marked"), 0u);
}

// What an egress ring refuses (ingress drops it as egress_queue_full) leaves
// the depth it was counted in. The rings are sized so the buffer fills
// first (PlanSwitchMemory), so the hooks are driven here directly.
TEST_F(StageTest, EcnRefusedPacketsLeaveTheDepth) {
  Start(BaseYaml("", EcnYaml(1)));
  rte_mbuf* pkts[8];
  for (uint16_t i = 0; i < 8; i++)
    pkts[i] = Mbuf(Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 24, .seq = i}));
  buffer::ReleaseBatch undo(sw_->buffer, &w_.pool_slack);
  uint32_t notes[stages::kMaxHookUsers];
  w_.t = sw_->CurrentTables();
  ASSERT_EQ(w_.hooks.Enqueue(w_, 3, 3, pkts, 8, 8 * kFrame, undo, notes), 8);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 8 * kFrame);
  w_.hooks.Refused(w_, 3, 3, pkts + 5, 3);  // the ring took five
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 5 * kFrame);
  w_.hooks.Refused(w_, 3, 3, pkts, 5);  // and, for the test's end, none
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 0);
  for (rte_mbuf* m : pkts) rte_pktmbuf_free(m);
}

// A queue discarded whole (the watchdog's drop, DCFIT's break) leaves the
// depth through the discard counters egress keeps.
TEST_F(StageTest, EcnDiscardedQueueLeavesTheDepth) {
  Start(BaseYaml("", EcnYaml(1)));
  Ingress(0, ToP3(24, net::kEcnEct0, 8), kT0);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 8 * kFrame);
  EXPECT_EQ(stages::DiscardQueue(w_, 3, 3, DropReason::kPfcwdStorm), 8u);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 0);
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p3.q3.tx_discards"), 8u);
  EXPECT_EQ(c.at("p3.q3.tx_discard_bytes"), 8 * kFrame);
  EXPECT_EQ(c.at("p0.q3.drop.pfcwd_storm"), 8u);
}

}  // namespace
}  // namespace pfc::stagetest
