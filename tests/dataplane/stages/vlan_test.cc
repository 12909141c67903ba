// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of 802.1Q frames: a forwarded tagged frame keeps its tag (VID
// and DEI) and leaves with the PCP of the priority it was queued at, i.e. of
// its NEW tag after a Tagger rewrite, so that a PCP-trusting next hop agrees
// with the DSCP; priority-tagged frames (VID 0) alike; non-IP tagged frames
// (L2 mode) leave with the lossy priority's PCP; stacked tags are dropped as
// vlan_unsupported; an ARP request that came tagged is answered tagged; an
// ARP for another hardware type is arp_unsupported, not truncated.
#include <cstring>

#include "dataplane/net/ipv4_edit.h"
#include "tests/dataplane/net/frame_builder.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
using Frames = std::vector<std::vector<uint8_t>>;

// `f` (untagged) with an 802.1Q tag carrying `tci` inserted after the MACs.
std::vector<uint8_t> Tagged(std::vector<uint8_t> f, uint16_t tci, uint16_t tpid = 0x8100) {
  const uint8_t tag[4] = {static_cast<uint8_t>(tpid >> 8), static_cast<uint8_t>(tpid),
                          static_cast<uint8_t>(tci >> 8), static_cast<uint8_t>(tci)};
  f.insert(f.begin() + 12, tag, tag + 4);
  return f;
}

uint16_t Tci(int pcp, int dei, int vid) {
  return static_cast<uint16_t>(pcp << 13 | dei << 12 | vid);
}
uint16_t TciOf(const std::vector<uint8_t>& f) {
  return static_cast<uint16_t>(f.at(14) << 8 | f.at(15));
}

// What a correct switch sends for the tagged frame `in`: MACs of the hop,
// the tag with PCP `pcp` (DEI and VID as received), TTL - 1, DSCP `dscp`
// with ECN kept, and a header checksum computed from scratch.
std::vector<uint8_t> RoutedTagged(std::vector<uint8_t> f, int out, const std::array<uint8_t, 6>& nh,
                                  uint8_t dscp, int pcp) {
  const auto src = SwitchMac(out);
  std::memcpy(f.data(), nh.data(), 6);
  std::memcpy(f.data() + 6, src.data(), 6);
  f[14] = static_cast<uint8_t>(pcp << 5 | (f[14] & 0x1f));
  uint8_t* ip = f.data() + 18;
  ip[1] = static_cast<uint8_t>(dscp << 2 | (ip[1] & 3));
  ip[8]--;
  const uint16_t c = net::Ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &c, 2);
  return f;
}

TEST_F(StageTest, TaggedFrameLeavesWithPcpOfItsEgressPriority) {
  Start(BaseYaml());
  // Tag 24 (prio 3) from p0 to p1: Tagger rewrites it to 26 (prio 4), so the
  // PCP must become 4, whatever it was (3 here, DEI set, VID 0x123).
  const auto to_p1 =
      Tagged(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 24, .ecn = 2, .seq = 1}),
             Tci(3, 1, 0x123));
  // Tag 24 from p0 to p3: no rewrite, prio 3; the PCP already says 3.
  const auto to_p3 = Tagged(Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 24, .seq = 2}),
                            Tci(3, 0, 0x7ff));
  // Priority-tagged (VID 0) with PCP 0, tag 24 to p3: PCP becomes 3, VID stays 0.
  const auto prio_tag =
      Tagged(Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 24, .seq = 3}), Tci(0, 0, 0));
  // Unmapped tag 7 with PCP 5 (which would be a lossless class to a PCP
  // peer): lossy, rewritten to the lossy tag 0, so PCP 0.
  const auto unmapped =
      Tagged(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 2), .dscp = 7, .seq = 4}), Tci(5, 0, 10));
  // Tag 46 (prio 5) with no rule to p1: rewritten to the lossy tag, queue 0, PCP 0.
  const auto no_rule = Tagged(
      Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 3), .dscp = 46, .seq = 5}), Tci(5, 1, 4094));
  Ingress(0, {to_p1, to_p3, prio_tag, unmapped, no_rule}, kT0);
  EXPECT_EQ(QueueDepth(1, 4), 1u);
  EXPECT_EQ(QueueDepth(1, 0), 2u);
  EXPECT_EQ(QueueDepth(3, 3), 2u);

  EXPECT_EQ(Egress(1, kT0 + 1000), 3);
  EXPECT_EQ(Egress(3, kT0 + 1000), 2);
  const Frames o1 = TakeTx(1), o3 = TakeTx(3);
  ASSERT_EQ(o1.size(), 3u);
  ASSERT_EQ(o3.size(), 2u);
  EXPECT_EQ(o1[0], RoutedTagged(to_p1, 1, HostMac(1), 26, 4));
  EXPECT_EQ(TciOf(o1[0]), Tci(4, 1, 0x123));
  EXPECT_EQ(o1[1], RoutedTagged(unmapped, 1, HostMac(1), 0, 0));
  EXPECT_EQ(o1[2], RoutedTagged(no_rule, 1, HostMac(1), 0, 0));
  EXPECT_EQ(TciOf(o1[2]), Tci(0, 1, 4094));
  EXPECT_EQ(o3[0], RoutedTagged(to_p3, 3, HostMac(3), 24, 3));
  EXPECT_EQ(o3[1], RoutedTagged(prio_tag, 3, HostMac(3), 24, 3));
  EXPECT_EQ(TciOf(o3[1]), Tci(3, 0, 0));
  for (const auto& f : {o1[0], o1[1], o1[2], o3[0], o3[1]}) {
    EXPECT_EQ(f.size(), 64u) << "the tag is kept";
    EXPECT_TRUE(net::Ipv4ChecksumOk(f.data() + 18, 20));
  }
  ExpectCounters(
      {{"p0.rx_packets", 5},        {"p0.rx_bytes", 5 * 64},   {"p0.rx_bursts", 1},
       {"p0.pcp_rewrites", 4},      {"p0.q3.rx_packets", 3},   {"p0.q3.rx_bytes", 3 * 64},
       {"p0.q3.rewrites", 1},       {"p0.q0.rx_packets", 1},   {"p0.q0.rx_bytes", 64},
       {"p0.q0.lossy_fallback", 1}, {"p0.q0.rewrites", 1},     {"p0.q0.to_lossy_tag", 1},
       {"p0.q5.rx_packets", 1},     {"p0.q5.rx_bytes", 64},    {"p0.q5.rewrites", 1},
       {"p0.q5.to_lossy_tag", 1},   {"p1.tx_packets", 3},      {"p1.tx_bytes", 3 * 64},
       {"p1.q4.tx_packets", 1},     {"p1.q4.tx_bytes", 64},    {"p1.q0.tx_packets", 2},
       {"p1.q0.tx_bytes", 2 * 64},  {"p3.tx_packets", 2},      {"p3.tx_bytes", 2 * 64},
       {"p3.q3.tx_packets", 2},     {"p3.q3.tx_bytes", 2 * 64}});
}

TEST_F(StageTest, StackedTagsAreDroppedAsVlanUnsupported) {
  Start(BaseYaml());
  const auto ip = Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 24});
  const Frames in = {
      Tagged(Tagged(ip, Tci(3, 0, 20)), Tci(3, 0, 10)),          // QinQ with two 0x8100 tags
      Tagged(Tagged(ip, Tci(3, 0, 20)), Tci(3, 0, 10), 0x88a8),  // 802.1ad S-tag + C-tag
      Tagged(ip, Tci(3, 0, 10), 0x88a8),                         // S-tag alone
      Tagged(Tagged(ip, Tci(3, 0, 20)), Tci(3, 0, 10), 0x9100),  // pre-standard QinQ
  };
  Ingress(0, in, kT0);
  for (PortId p = 0; p < kPorts; p++) EXPECT_EQ(Egress(p, kT0 + 1000), 0) << "p" << p;
  for (PortId p = 0; p < kPorts; p++) EXPECT_TRUE(TakeTx(p).empty());
  ExpectCounters({{"p0.rx_packets", 4},
                  {"p0.rx_bytes", 68 + 68 + 64 + 68},
                  {"p0.rx_bursts", 1},
                  {"p0.q0.drop.vlan_unsupported", 4}});
}

// An ARP request for the switch's address as the host on p0 sends it.
std::vector<uint8_t> ArpRequest(bool vlan, uint16_t tci) {
  test::FrameSpec e;
  std::memset(e.dst, 0xff, 6);
  const auto src = HostMac(0);
  std::memcpy(e.src, src.data(), 6);
  e.vlan = vlan;
  e.tci = tci;
  std::vector<uint8_t> f = test::ArpFrame(e, 1, Ip(10, 0, 0, 77), Ip(10, 0, 0, 1));
  return f;
}

TEST_F(StageTest, TaggedArpRequestIsAnsweredInItsVlan) {
  Start(BaseYaml());
  Ingress(0, {ArpRequest(true, Tci(2, 0, 42)), ArpRequest(false, 0)}, kT0);
  EXPECT_EQ(Egress(0, kT0 + 1000), 2);
  const Frames o = TakeTx(0);
  ASSERT_EQ(o.size(), 2u);
  const auto sw = SwitchMac(0);
  const uint8_t host_sha[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};  // ArpFrame()'s sender
  for (int k = 0; k < 2; k++) {
    const bool tagged = k == 0;
    const std::vector<uint8_t>& f = o[k];
    const size_t l3 = tagged ? 18 : 14;
    // Tagged: 64 bytes, so still a minimum-size frame once a bridge strips the tag.
    ASSERT_EQ(f.size(), tagged ? 64u : 60u);
    std::vector<uint8_t> want(f.size(), 0);
    std::memcpy(want.data(), host_sha, 6);
    std::memcpy(want.data() + 6, sw.data(), 6);
    if (tagged) {
      test::Put16(want, 12, 0x8100);
      test::Put16(want, 14, Tci(2, 0, 42));
    }
    test::Put16(want, l3 - 2, 0x0806);
    test::Put16(want, l3, 1);
    test::Put16(want, l3 + 2, 0x0800);
    want[l3 + 4] = 6;
    want[l3 + 5] = 4;
    test::Put16(want, l3 + 6, 2);  // reply
    std::memcpy(want.data() + l3 + 8, sw.data(), 6);
    test::Put32(want, l3 + 14, Ip(10, 0, 0, 1));
    std::memcpy(want.data() + l3 + 18, host_sha, 6);
    test::Put32(want, l3 + 24, Ip(10, 0, 0, 77));
    EXPECT_EQ(f, want) << (tagged ? "tagged" : "untagged");
  }
  ExpectCounters({{"p0.rx_packets", 2},
                  {"p0.rx_bytes", 46 + 42},
                  {"p0.rx_bursts", 1},
                  {"p0.arp_rx", 2},
                  {"p0.arp_reply_tx", 2},
                  {"p0.tx_packets", 2},
                  {"p0.tx_bytes", 64 + 60}});
}

TEST_F(StageTest, ArpForAnotherHardwareIsArpUnsupportedNotTruncated) {
  Start(BaseYaml());
  // Hardware type 6 (IEEE 802) as scapy's ARP(hwtype=6) sends it: hlen 0,
  // plen 4, a complete 16-byte body in a 30-byte frame.
  const std::vector<uint8_t> ieee802 = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0,    0,    0,
                                        0,    0x02, 0x08, 0x06, 0x00, 0x06, 0x08, 0x00, 0x00, 0x04,
                                        0x00, 0x01, 0x0a, 0x00, 0x00, 0x4d, 0x0a, 0x00, 0x00, 0x01};
  // Hardware type 6 with 6-byte addresses: a full 28-byte body.
  std::vector<uint8_t> ieee802_full = ArpRequest(false, 0);
  ieee802_full[15] = 6;
  // Ethernet/IPv4 but opcode 3 (RARP request): the parser passes it, the ARP
  // handler refuses it.
  std::vector<uint8_t> op3 = ArpRequest(false, 0);
  op3[21] = 3;
  Ingress(0, {ieee802, ieee802_full, op3}, kT0);
  for (PortId p = 0; p < kPorts; p++) EXPECT_EQ(Egress(p, kT0 + 1000), 0) << "p" << p;
  ExpectCounters({{"p0.rx_packets", 3},
                  {"p0.rx_bytes", 30 + 42 + 42},
                  {"p0.rx_bursts", 1},
                  {"p0.arp_rx", 1},
                  {"p0.q0.drop.arp_unsupported", 3}});
}

// L2 mode: frames switched by MAC with no TTL change. A tagged non-IP frame
// is queued at the lossy priority (2 here) and its PCP says so; tagged IPv4
// gets its new tag's priority as PCP.
TEST_F(StageTest, L2TaggedFramesLeaveWithTheirQueuesPcp) {
  std::string y =
      "switch: { mode: l2, workers: 1, idle_sleep_us: 0, burst: 32 }\n"
      "ports:\n";
  for (int i = 0; i < kPorts; i++)
    y += "  - { name: p" + std::to_string(i) + ", device: net_ring_s" + std::to_string(i) +
         ", speed: 10G }\n";
  y += "l2_table:\n"
       "  - { mac: \"02:00:00:00:01:02\", port: p1 }\n"
       "qos: { tag_map: { 24: 3, 26: 4 }, lossless: [3, 4], lossy_priority: 2 }\n"
       "buffer:\n"
       "  total_bytes: 256K\n"
       "  lossy: { reserved: 0, limit: 64K }\n"
       "  lossless: { reserved: 0, xoff: 32K, headroom: 16K, xon_hysteresis: 4K }\n"
       "rewrite:\n"
       "  rules: [ { tag: 24, in: [p0], out: [p1], new_tag: 26 } ]\n";
  Start(y);
  const auto h1 = HostMac(1);
  std::vector<uint8_t> ip = Frame({.in_port = 0, .dst_ip = Ip(10, 0, 1, 2), .dscp = 24, .seq = 1});
  std::memcpy(ip.data(), h1.data(), 6);
  ip = Tagged(ip, Tci(3, 0, 100));
  std::vector<uint8_t> other(60, 0x5a);  // ethertype 0x88b5 (local experimental) in a tag
  std::memcpy(other.data(), h1.data(), 6);
  other[12] = 0x88;
  other[13] = 0xb5;
  other = Tagged(other, Tci(6, 0, 100));
  Ingress(0, {ip, other}, kT0);
  EXPECT_EQ(QueueDepth(1, 4), 1u);
  EXPECT_EQ(QueueDepth(1, 2), 1u);
  EXPECT_EQ(Egress(1, kT0 + 1000), 2);
  const Frames o = TakeTx(1);
  ASSERT_EQ(o.size(), 2u);
  std::vector<uint8_t> want_ip = ip;
  want_ip[14] = static_cast<uint8_t>(4 << 5 | (want_ip[14] & 0x1f));
  want_ip[19] = static_cast<uint8_t>(26 << 2 | (want_ip[19] & 3));
  const uint16_t c = net::Ipv4HeaderChecksum(want_ip.data() + 18, 20);
  std::memcpy(want_ip.data() + 28, &c, 2);
  EXPECT_EQ(o[0], want_ip) << "PCP 4 and DSCP 26, TTL and MACs untouched";
  std::vector<uint8_t> want_other = other;
  want_other[14] = static_cast<uint8_t>(2 << 5 | (want_other[14] & 0x1f));
  EXPECT_EQ(o[1], want_other) << "PCP 6 -> 2, the lossy priority it was queued at";
  ExpectCounters({{"p0.rx_packets", 2},
                  {"p0.rx_bytes", 64 + 64},
                  {"p0.rx_bursts", 1},
                  {"p0.non_ip", 1},
                  {"p0.pcp_rewrites", 2},
                  {"p0.q3.rx_packets", 1},
                  {"p0.q3.rx_bytes", 64},
                  {"p0.q3.rewrites", 1},
                  {"p0.q2.rx_packets", 1},
                  {"p0.q2.rx_bytes", 64},
                  {"p1.tx_packets", 2},
                  {"p1.tx_bytes", 128},
                  {"p1.q4.tx_packets", 1},
                  {"p1.q4.tx_bytes", 64},
                  {"p1.q2.tx_packets", 1},
                  {"p1.q2.tx_bytes", 64}});
}

}  // namespace
}  // namespace pfc::stagetest
