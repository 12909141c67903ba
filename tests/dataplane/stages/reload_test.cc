// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of reloads (Switch::ApplyConfig through the harness's Reload,
// as /pfcswitch/reload does it): configured neighbours are part of the
// published snapshot, so a reload leaves exactly the file's neighbours
// (removed ones are gone) and a reload that fails changes nothing; the
// packet path counts drops under the lossy priority of the current
// snapshot, not of the config the switch started with.
#include <string>

#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
using Frames = std::vector<std::vector<uint8_t>>;

std::string NeighborLine(int port, const std::string& host, const std::string& mac) {
  return "  - { ip: 10.0." + std::to_string(port) + "." + host + ", mac: \"" + mac + "\", port: p" +
         std::to_string(port) + " }\n";
}

// A MAC control frame with an opcode that is neither PFC nor PAUSE: dropped
// as pfc_malformed, counted under the lossy priority.
std::vector<uint8_t> UnknownMacControl() {
  std::vector<uint8_t> f(60, 0);
  const uint8_t head[] = {0x01, 0x80, 0xc2, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x88, 0x08, 0, 9};
  std::copy(std::begin(head), std::end(head), f.begin());
  return f;
}

TEST_F(StageTest, ReloadLeavesExactlyTheFilesNeighbours) {
  Start(BaseYaml());
  // The file drops 10.0.1.2 (the gateway to 10.9/16) and keeps 10.0.3.2.
  const std::string update = "neighbors:\n" + NeighborLine(0, "2", "02:00:00:00:00:02") +
                             NeighborLine(3, "2", "02:00:00:00:03:02");
  std::string err;
  const uint64_t gen = sw_->generation();
  ASSERT_TRUE(Reload(update, &err)) << err;
  EXPECT_EQ(sw_->generation(), gen + 1);

  Ingress(2,
          {Frame({.in_port = 2, .dst_ip = Ip(10, 9, 0, 1), .dscp = 24, .seq = 1}),
           Frame({.in_port = 2, .dst_ip = Ip(10, 0, 3, 2), .dscp = 24, .seq = 2})},
          kT0);
  // The removed neighbour is unknown now: an ARP request, not a forward.
  EXPECT_EQ(Egress(1, kT0 + 1000), 1);
  const Frames arp = TakeTx(1);
  ASSERT_EQ(arp.size(), 1u);
  EXPECT_EQ(EtherTypeOf(arp[0]), 0x0806);
  EXPECT_EQ(Egress(3, kT0 + 1000), 1);
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(SeqOf(out[0]), 2);
  ExpectCounters({{"p2.rx_packets", 2},
                  {"p2.rx_bytes", 120},
                  {"p2.rx_bursts", 1},
                  {"p2.q3.rx_packets", 2},
                  {"p2.q3.rx_bytes", 120},
                  {"p2.q3.drop.neighbor_miss", 1},
                  {"p1.arp_request_tx", 1},
                  {"p1.tx_packets", 1},
                  {"p1.tx_bytes", 60},
                  {"p3.tx_packets", 1},
                  {"p3.tx_bytes", 60},
                  {"p3.q3.tx_packets", 1},
                  {"p3.q3.tx_bytes", 60}});
}

TEST_F(StageTest, FailedReloadChangesNothing) {
  Start(BaseYaml());
  // Valid qos and routes, a new MAC for 10.0.1.2, then 10.0.1.2 again: the
  // whole file is refused, naming the field.
  const std::string update =
      "qos:\n"
      "  tag_map: { 24: 3, 26: 4, 10: 1, 46: 5 }\n"
      "  lossless: [3, 4]\n"
      "  lossy_priority: 2\n"
      "routes:\n"
      "  - { prefix: 10.9.0.0/16, port: p3, via: 10.0.3.2 }\n"
      "neighbors:\n" +
      NeighborLine(1, "2", "02:00:00:00:00:99") + NeighborLine(1, "2", "02:00:00:00:00:98");
  std::string err;
  const uint64_t gen = sw_->generation();
  EXPECT_FALSE(Reload(update, &err));
  EXPECT_NE(err.find("neighbors[1].ip"), std::string::npos) << err;
  EXPECT_NE(err.find("neighbors[0]"), std::string::npos) << err;
  EXPECT_EQ(sw_->generation(), gen);

  // Still the old route, the old MAC and the old lossy priority.
  Ingress(
      0,
      {Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 10, .seq = 7}), UnknownMacControl()},
      kT0);
  EXPECT_EQ(Egress(1, kT0 + 1000), 1);
  const Frames out = TakeTx(1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(SeqOf(out[0]), 7);
  const auto old_mac = HostMac(1);
  EXPECT_TRUE(std::equal(old_mac.begin(), old_mac.end(), out[0].begin()));
  ExpectCounters({{"p0.rx_packets", 2},
                  {"p0.rx_bytes", 120},
                  {"p0.rx_bursts", 1},
                  {"p0.q1.rx_packets", 1},
                  {"p0.q1.rx_bytes", 60},
                  {"p0.q0.drop.pfc_malformed", 1},
                  {"p1.tx_packets", 1},
                  {"p1.tx_bytes", 60},
                  {"p1.q1.tx_packets", 1},
                  {"p1.q1.tx_bytes", 60}});
}

TEST_F(StageTest, DropsCountUnderTheReloadedLossyPriority) {
  Start(BaseYaml());
  std::string err;
  ASSERT_TRUE(
      Reload("qos:\n"
             "  tag_map: { 24: 3, 26: 4, 10: 1, 46: 5 }\n"
             "  lossless: [3, 4]\n"
             "  lossy_priority: 2\n",
             &err))
      << err;
  // A malformed MAC control frame (pfc stage), an ARP the switch does not
  // handle (local stage) and a runt (ingress): all under the new lossy
  // priority 2, none under the startup config's 0.
  std::vector<uint8_t> rarp = UnknownMacControl();
  const uint8_t arp_head[] = {0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 3};
  std::copy(std::begin(arp_head), std::end(arp_head), rarp.begin() + 12);
  std::fill(rarp.begin(), rarp.begin() + 6, 0xff);
  Ingress(0, {UnknownMacControl(), rarp, std::vector<uint8_t>(10, 0xee)}, kT0);
  ExpectCounters({{"p0.rx_packets", 3},
                  {"p0.rx_bytes", 130},
                  {"p0.rx_bursts", 1},
                  {"p0.arp_rx", 1},
                  {"p0.q2.drop.pfc_malformed", 1},
                  {"p0.q2.drop.arp_unsupported", 1},
                  {"p0.q2.drop.runt", 1}});
}

}  // namespace
}  // namespace pfc::stagetest
