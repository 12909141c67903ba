// SPDX-License-Identifier: BSD-3-Clause
// The control thread's link watch (switch/link_watch.h) on a device port:
// net_ring ports report the link rte_eth_dev_set_link_down/up sets, as a NIC
// reports its cable. A port whose link goes down ends the pause it received
// at its owner's next round (stages/worker.cc LinkChanged), counted; one
// whose link stays up keeps its pause.
#include "dataplane/switch/link_watch.h"

#include <rte_ethdev.h>

#include <string>
#include <vector>

#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000;

TEST_F(StageTest, DeviceLinkDownEndsTheReceivedPauseAndIsCounted) {
  Start(BaseYaml());
  sw::LinkWatch watch(*sw_);
  EXPECT_TRUE(watch.Poll().empty()) << "every ring port starts up";

  // Eight packets for p1's queue 4 (tag 24 rewritten to 26); p1's peer
  // pauses priority 4 for 65535 quanta, p2's peer too.
  std::vector<std::vector<uint8_t>> burst;
  for (uint16_t i = 0; i < 8; i++)
    burst.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 24, .seq = i}));
  Ingress(1, {PfcFrame(1, 1u << 4, 0xffff)}, kT0);
  Ingress(2, {PfcFrame(2, 1u << 4, 0xffff)}, kT0);
  Ingress(0, burst, kT0 + 10);
  EXPECT_EQ(Egress(1, kT0 + 100), 0) << "paused";
  EXPECT_EQ(QueueDepth(1, 4), 8u);

  const uint16_t dev = sw_->ports[1].io.dpdk_port;
  ASSERT_EQ(rte_eth_dev_set_link_down(dev), 0);
  EXPECT_EQ(watch.Poll(), std::vector<std::string>{"port p1: link down"});
  EXPECT_TRUE(watch.Poll().empty()) << "a change is reported once";
  EXPECT_FALSE(sw_->ports[1].owner_state->dev_link_up.load());

  // The owner's next round sees it: the pause ends, the queue goes.
  EXPECT_EQ(Egress(1, kT0 + 200), 8);
  EXPECT_EQ(TakeTx(1).size(), 8u);
  EXPECT_EQ(Egress(2, kT0 + 200), 0);
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p1.link_down_events"), 1u);
  EXPECT_EQ(c.at("p1.pause_cleared_link_down"), 1u);
  EXPECT_EQ(c.at("p1.q4.paused_now"), 0u);
  EXPECT_EQ(c.at("p2.link_down_events"), 0u);
  EXPECT_EQ(c.at("p2.q4.paused_now"), 1u) << "p2's link stayed up: its pause runs";

  ASSERT_EQ(rte_eth_dev_set_link_up(dev), 0);
  EXPECT_EQ(watch.Poll(), std::vector<std::string>{"port p1: link up"});
  EXPECT_EQ(Egress(1, kT0 + 300), 0);
  EXPECT_EQ(Snapshot(*sw_).at("p1.link_down_events"), 1u) << "coming back up is no link-down";
}

}  // namespace
}  // namespace pfc::stagetest
