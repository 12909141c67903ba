// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of a full egress ring (switch/held_queue.h): a lossless queue
// holds back what its ring refuses, charged and in order, and never drops
// it; a lossy queue drops it as egress_queue_full. The rings of a real
// config are sized from the buffer within a memory budget, so here one
// queue's ring is swapped for a 16-slot one: a buffer far larger than the
// queue, as a 20-port ToR with 1 KB frames has.
#include <rte_ring.h>

#include "dataplane/stages/egress.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;  // virtual clock
constexpr unsigned kSmallRing = 16;      // 15 usable slots

using Frames = std::vector<std::vector<uint8_t>>;

class HeldQueueTest : public StageTest {
 protected:
  // Replaces (port, prio)'s egress ring with a small one; TearDown puts the
  // switch's own back (both empty by then).
  void ShrinkRing(PortId port, int prio) {
    small_ =
        rte_ring_create("held_test_ring", kSmallRing, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    ASSERT_NE(small_, nullptr);
    port_ = port;
    prio_ = prio;
    own_ = sw_->ports[port].egress[prio];
    sw_->ports[port].egress[prio] = small_;
  }
  void TearDown() override {
    if (small_) {
      EXPECT_EQ(rte_ring_count(small_), 0u);
      sw_->ports[port_].egress[prio_] = own_;
      rte_ring_free(small_);
    }
    StageTest::TearDown();
  }
  // n frames tagged `dscp` from p0 to p3's host, seq first..first+n-1.
  void Send(uint8_t dscp, uint16_t first, uint16_t n) {
    Frames f;
    for (uint16_t i = 0; i < n; i++)
      f.push_back(Frame({.in_port = 0,
                         .dst_ip = Ip(10, 0, 3, 2),
                         .dscp = dscp,
                         .seq = static_cast<uint16_t>(first + i)}));
    Ingress(0, f, kT0);
  }
  // Egress rounds of p3, each followed by the worker's end-of-round move of
  // what waits, until nothing is sent; returns the sequence numbers sent.
  std::vector<uint16_t> Drain() {
    std::vector<uint16_t> seqs;
    for (int round = 0; round < 1000; round++) {
      const uint16_t sent = Egress(3, kT0 + 1000 + round);
      stages::MoveHeld(w_);
      if (sent == 0 && w_.held->packets == 0 && QueueDepth(3, prio_) == 0) break;
    }
    for (const auto& f : TakeTx(3)) seqs.push_back(SeqOf(f));
    return seqs;
  }

  rte_ring* small_ = nullptr;
  rte_ring* own_ = nullptr;
  PortId port_ = 0;
  int prio_ = 0;
};

TEST_F(HeldQueueTest, LosslessQueueHoldsWhatItsRingRefusesInOrder) {
  Start(BaseYaml());
  ShrinkRing(3, 3);  // tag 24: priority 3, lossless
  Send(24, 0, 32);
  Send(24, 32, 32);
  EXPECT_EQ(QueueDepth(3, 3), kSmallRing - 1);
  EXPECT_EQ(w_.held->packets, 64u - (kSmallRing - 1));
  // Held packets stay charged to their ingress priority group.
  EXPECT_EQ(Occ(0, 3), 64u * 128);
  // One round empties the ring; what arrives while packets wait goes
  // behind them even though the ring has room now.
  EXPECT_EQ(Egress(3, kT0 + 500), kSmallRing - 1);
  EXPECT_EQ(QueueDepth(3, 3), 0u);
  Send(24, 64, 8);
  EXPECT_EQ(QueueDepth(3, 3), 0u);
  const std::vector<uint16_t> seqs = Drain();
  ASSERT_EQ(seqs.size(), 72u);
  for (uint16_t i = 0; i < 72; i++) EXPECT_EQ(seqs[i], i) << "position " << i;
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p3.q3.egress_queue_held"), 72u - (kSmallRing - 1));
  EXPECT_EQ(c.at("p3.q3.tx_packets"), 72u);
  EXPECT_EQ(c.at("p0.q3.drop.egress_queue_full"), 0u);
  EXPECT_EQ(Occ(0, 3), 0u);
  EXPECT_EQ(w_.held->packets, 0u);
}

TEST_F(HeldQueueTest, LossyQueueDropsWhatItsRingRefuses) {
  Start(BaseYaml());
  ShrinkRing(3, 1);  // tag 10: priority 1, lossy
  Send(10, 0, 32);
  EXPECT_EQ(QueueDepth(3, 1), kSmallRing - 1);
  EXPECT_EQ(w_.held->packets, 0u);
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p0.q1.drop.egress_queue_full"), 32u - (kSmallRing - 1));
  EXPECT_EQ(c.at("p3.q1.egress_queue_held"), 0u);
  EXPECT_EQ(Drain().size(), kSmallRing - 1);
}

// The watchdog's drop and DCFIT's break discard a queue whole: its held
// tail too, each packet counted and its charge released.
TEST_F(HeldQueueTest, DiscardingAQueueTakesItsHeldTail) {
  Start(BaseYaml());
  ShrinkRing(3, 3);
  Send(24, 0, 32);
  ASSERT_EQ(w_.held->packets, 32u - (kSmallRing - 1));
  EXPECT_EQ(stages::DiscardQueue(w_, 3, 3, DropReason::kPfcwdStorm), 32u);
  EXPECT_EQ(w_.held->packets, 0u);
  EXPECT_EQ(QueueDepth(3, 3), 0u);
  EXPECT_EQ(Occ(0, 3), 0u);
  EXPECT_EQ(Snapshot(*sw_).at("p0.q3.drop.pfcwd_storm"), 32u);
  stages::MoveHeld(w_);  // forgets the emptied queue
  EXPECT_TRUE(w_.held->waiting.empty());
}

}  // namespace
}  // namespace pfc::stagetest
