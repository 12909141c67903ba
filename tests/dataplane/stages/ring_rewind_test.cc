// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of the rewound egress ring (stages/egress.cc, rte_ring_reset): where
// the worker alone touches its rings' positions (WorkerCtx::private_rings,
// the fabric emulator's switches), a ring the egress empties starts again
// at its first slot, so a short queue keeps to its first lines; packets
// leave in the order they came across every rewind, and elsewhere the
// positions are left to grow as DPDK has them.
#include <rte_ring.h>

#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;

class RingRewindTest : public StageTest {
 protected:
  // n frames with tag 24 (priority 3) from p0 to p3's host, seq first...
  void Send(uint16_t first, uint16_t n) {
    std::vector<std::vector<uint8_t>> f;
    for (uint16_t i = 0; i < n; i++)
      f.push_back(Frame({.in_port = 0,
                         .dst_ip = Ip(10, 0, 3, 2),
                         .dscp = 24,
                         .seq = static_cast<uint16_t>(first + i)}));
    Ingress(0, f, kT0);
  }
  const rte_ring* Ring() const { return sw_->ports[3].egress[3]; }
  // Sends `cycles` times `n` packets, each time egress until the queue is
  // empty; returns what p3 sent, in order, and each cycle's producer
  // position once the queue emptied.
  std::vector<uint16_t> Cycles(int cycles, uint16_t n, std::vector<uint32_t>* heads) {
    std::vector<uint16_t> seqs;
    for (int c = 0; c < cycles; c++) {
      Send(static_cast<uint16_t>(c * n), n);
      EXPECT_EQ(QueueDepth(3, 3), n);
      for (int r = 0; r < 100 && QueueDepth(3, 3) != 0; r++) Egress(3, kT0 + 1000 * (c + 1) + r);
      heads->push_back(uint32_t{Ring()->prod.head});
      for (const auto& f : TakeTx(3)) seqs.push_back(SeqOf(f));
    }
    return seqs;
  }
};

TEST_F(RingRewindTest, PrivateRingStartsAgainAtItsFirstSlotInOrder) {
  Start(BaseYaml());
  w_.private_rings = true;
  std::vector<uint32_t> heads;
  const std::vector<uint16_t> seqs = Cycles(4, 5, &heads);
  ASSERT_EQ(seqs.size(), 20u);
  for (uint16_t i = 0; i < 20; i++) EXPECT_EQ(seqs[i], i) << "position " << i;
  for (uint32_t h : heads) EXPECT_EQ(h, 0u);
  EXPECT_EQ(uint32_t{Ring()->cons.tail}, 0u);
}

TEST_F(RingRewindTest, SharedPositionsKeepGrowing) {
  Start(BaseYaml());
  ASSERT_FALSE(w_.private_rings);  // pfcswitch: a stats thread counts its rings
  std::vector<uint32_t> heads;
  const std::vector<uint16_t> seqs = Cycles(4, 5, &heads);
  ASSERT_EQ(seqs.size(), 20u);
  for (uint16_t i = 0; i < 20; i++) EXPECT_EQ(seqs[i], i) << "position " << i;
  EXPECT_EQ(heads, (std::vector<uint32_t>{5, 10, 15, 20}));
}

}  // namespace
}  // namespace pfc::stagetest
