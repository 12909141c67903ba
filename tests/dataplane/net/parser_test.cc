// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of ParseFrame / ParseArp: every DropReason the parser can
// produce, every flag, and every truncation of valid frames.
#include "dataplane/net/parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "tests/dataplane/net/frame_builder.h"

namespace pfc {
namespace {

using test::ArpFrame;
using test::FixIpChecksum;
using test::FrameSpec;
using test::Ipv4Frame;
using test::Ipv4Spec;
using test::Put16;

// Parses the first len bytes from a heap copy of exactly len bytes, so an
// over-read would hit memory outside the allocation (and ASan in fuzz builds).
net::PktKind Parse(const std::vector<uint8_t>& f, size_t len, bool verify, net::ParsedPacket* p) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[len == 0 ? 1 : len]);
  if (len) std::memcpy(copy.get(), f.data(), len);
  return net::ParseFrame(copy.get(), static_cast<uint32_t>(len), verify, p);
}
net::PktKind Parse(const std::vector<uint8_t>& f, net::ParsedPacket* p, bool verify = true) {
  return Parse(f, f.size(), verify, p);
}

TEST(Parser, ValidIpv4FillsEveryField) {
  Ipv4Spec ip;
  ip.dscp = 26;
  ip.ecn = 1;
  ip.ttl = 7;
  ip.proto = 6;
  ip.src = 0xc0a80001;
  ip.dst = 0xc0a800c7;
  const auto f = Ipv4Frame(FrameSpec{}, ip);
  net::ParsedPacket p;
  ASSERT_EQ(Parse(f, &p), net::PktKind::kIpv4);
  EXPECT_EQ(p.kind, net::PktKind::kIpv4);
  EXPECT_FALSE(p.has_vlan);
  EXPECT_FALSE(p.ip_options);
  EXPECT_FALSE(p.ip_fragment);  // DF alone is not a fragment
  EXPECT_FALSE(p.dst_broadcast);
  EXPECT_FALSE(p.dst_multicast);
  EXPECT_EQ(p.ethertype, net::kEtherTypeIpv4);
  EXPECT_EQ(p.l3_off, 14);
  EXPECT_EQ(p.ip_hdr_len, 20);
  EXPECT_EQ(p.ip_total_len, 46);
  EXPECT_EQ(p.dscp, 26);
  EXPECT_EQ(p.ttl, 7);
  EXPECT_EQ(p.ip_proto, 6);
  EXPECT_EQ(p.src_ip, 0xc0a80001u);
  EXPECT_EQ(p.dst_ip, 0xc0a800c7u);
}

TEST(Parser, VlanTaggedIpv4) {
  FrameSpec e;
  e.vlan = true;
  e.tci = 0x6123;  // PCP 3, VID 0x123
  const auto f = Ipv4Frame(e, Ipv4Spec{});
  net::ParsedPacket p;
  ASSERT_EQ(Parse(f, &p), net::PktKind::kIpv4);
  EXPECT_TRUE(p.has_vlan);
  EXPECT_EQ(p.vlan_tci, 0x6123);
  EXPECT_EQ(p.ethertype, net::kEtherTypeIpv4);
  EXPECT_EQ(p.l3_off, 18);
  EXPECT_EQ(p.dst_ip, Ipv4Spec{}.dst);
}

TEST(Parser, Runt) {
  const auto f = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
  for (size_t len = 0; len < 14; ++len) {
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, len, true, &p), net::PktKind::kBad) << len;
    EXPECT_EQ(p.bad, DropReason::kRunt) << len;
  }
  net::ParsedPacket p;
  EXPECT_EQ(net::ParseFrame(nullptr, 0, true, &p), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kRunt);
}

TEST(Parser, TruncatedVlanTag) {
  FrameSpec e;
  e.vlan = true;
  const auto f = Ipv4Frame(e, Ipv4Spec{});
  for (size_t len = 14; len < 18; ++len) {
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, len, true, &p), net::PktKind::kBad) << len;
    EXPECT_EQ(p.bad, DropReason::kTruncated) << len;
  }
}

TEST(Parser, TruncatedIpv4HeaderAndPayload) {
  Ipv4Spec ip;
  ip.ihl = 6;  // 24-byte header: truncation inside the options too
  ip.payload = 10;
  const auto f = Ipv4Frame(FrameSpec{}, ip);
  ASSERT_EQ(f.size(), 14u + 24 + 10);
  for (size_t len = 14; len < f.size(); ++len) {
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, len, true, &p), net::PktKind::kBad) << len;
    EXPECT_EQ(p.bad, DropReason::kTruncated) << len;
  }
  net::ParsedPacket p;
  EXPECT_EQ(Parse(f, &p), net::PktKind::kIpv4);
}

TEST(Parser, IhlBeyondFrameIsTruncated) {
  Ipv4Spec ip;
  ip.payload = 20;
  auto f = Ipv4Frame(FrameSpec{}, ip);
  f[14] = 0x4f;  // IHL 15 = 60 bytes, but only 40 bytes of IP follow
  net::ParsedPacket p;
  for (bool verify : {false, true}) {  // the length check comes before the checksum
    EXPECT_EQ(Parse(f, &p, verify), net::PktKind::kBad);
    EXPECT_EQ(p.bad, DropReason::kTruncated);
  }
}

TEST(Parser, BadVersion) {
  for (uint8_t version : {0, 1, 5, 6, 15}) {
    auto f = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
    f[14] = static_cast<uint8_t>((version << 4) | 5);
    FixIpChecksum(f, 14);
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, &p), net::PktKind::kBad) << int{version};
    EXPECT_EQ(p.bad, DropReason::kBadIpHeader) << int{version};
  }
}

TEST(Parser, IhlBelowFive) {
  for (uint8_t ihl = 0; ihl < 5; ++ihl) {
    auto f = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
    f[14] = static_cast<uint8_t>(0x40 | ihl);
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, &p, false), net::PktKind::kBad) << int{ihl};
    EXPECT_EQ(p.bad, DropReason::kBadIpHeader) << int{ihl};
  }
}

TEST(Parser, TotalLengthBelowHeaderLength) {
  Ipv4Spec ip;
  ip.ihl = 7;
  for (uint16_t total : {0, 19, 20, 27}) {
    auto f = Ipv4Frame(FrameSpec{}, ip);
    Put16(f, 16, total);
    FixIpChecksum(f, 14);
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, &p), net::PktKind::kBad) << total;
    EXPECT_EQ(p.bad, DropReason::kBadIpHeader) << total;
  }
}

TEST(Parser, TotalLengthBeyondFrame) {
  auto f = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14 + 1));
  FixIpChecksum(f, 14);
  net::ParsedPacket p;
  EXPECT_EQ(Parse(f, &p), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kTruncated);
  Put16(f, 16, 0xffff);
  FixIpChecksum(f, 14);
  EXPECT_EQ(Parse(f, &p), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kTruncated);
}

TEST(Parser, EthernetPaddingAfterIpIsAccepted) {
  Ipv4Spec ip;
  ip.payload = 0;  // 20-byte IP packet in a 60-byte frame
  auto f = Ipv4Frame(FrameSpec{}, ip);
  f.resize(60, 0);
  net::ParsedPacket p;
  ASSERT_EQ(Parse(f, &p), net::PktKind::kIpv4);
  EXPECT_EQ(p.ip_total_len, 20);
}

TEST(Parser, ChecksumVerifiedOnlyWhenAsked) {
  auto f = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
  f[14 + 10] ^= 0x01;
  net::ParsedPacket p;
  EXPECT_EQ(Parse(f, &p, true), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kBadIpChecksum);
  EXPECT_EQ(Parse(f, &p, false), net::PktKind::kIpv4);
  // A corrupted address (not the checksum field) is caught the same way.
  auto g = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
  g[14 + 19] ^= 0x80;
  EXPECT_EQ(Parse(g, &p, true), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kBadIpChecksum);
}

TEST(Parser, ChecksumCoversOptions) {
  Ipv4Spec ip;
  ip.ihl = 8;
  auto f = Ipv4Frame(FrameSpec{}, ip);
  net::ParsedPacket p;
  ASSERT_EQ(Parse(f, &p), net::PktKind::kIpv4);
  f[14 + 30] ^= 0x10;  // inside the options
  EXPECT_EQ(Parse(f, &p), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kBadIpChecksum);
}

TEST(Parser, OptionsFlagged) {
  for (uint8_t ihl = 5; ihl <= 15; ++ihl) {
    Ipv4Spec ip;
    ip.ihl = ihl;
    const auto f = Ipv4Frame(FrameSpec{}, ip);
    net::ParsedPacket p;
    ASSERT_EQ(Parse(f, &p), net::PktKind::kIpv4) << int{ihl};
    EXPECT_EQ(p.ip_options, ihl > 5) << int{ihl};
    EXPECT_EQ(p.ip_hdr_len, ihl * 4) << int{ihl};
  }
}

TEST(Parser, FragmentsFlagged) {
  struct Case {
    uint16_t frag;
    bool fragment;
  } cases[] = {{0x0000, false}, {0x4000, false}, {0x2000, true}, {0x0001, true},
               {0x1fff, true},  {0x6000, true},  {0x4010, true}};
  for (const Case& c : cases) {
    Ipv4Spec ip;
    ip.frag = c.frag;
    const auto f = Ipv4Frame(FrameSpec{}, ip);
    net::ParsedPacket p;
    ASSERT_EQ(Parse(f, &p), net::PktKind::kIpv4);
    EXPECT_EQ(p.ip_fragment, c.fragment) << std::hex << c.frag;
  }
}

TEST(Parser, BroadcastAndMulticastFlags) {
  FrameSpec bc;
  for (auto& b : bc.dst) b = 0xff;
  FrameSpec mc;
  const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
  std::memcpy(mc.dst, mcast, 6);
  FrameSpec almost = bc;
  almost.dst[5] = 0xfe;  // group bit set, not broadcast
  net::ParsedPacket p;
  ASSERT_EQ(Parse(Ipv4Frame(bc, Ipv4Spec{}), &p), net::PktKind::kIpv4);
  EXPECT_TRUE(p.dst_broadcast);
  EXPECT_TRUE(p.dst_multicast);
  ASSERT_EQ(Parse(Ipv4Frame(mc, Ipv4Spec{}), &p), net::PktKind::kIpv4);
  EXPECT_FALSE(p.dst_broadcast);
  EXPECT_TRUE(p.dst_multicast);
  ASSERT_EQ(Parse(Ipv4Frame(almost, Ipv4Spec{}), &p), net::PktKind::kIpv4);
  EXPECT_FALSE(p.dst_broadcast);
  EXPECT_TRUE(p.dst_multicast);
}

TEST(Parser, ArpRequestAndReply) {
  FrameSpec bc;
  for (auto& b : bc.dst) b = 0xff;
  for (uint16_t op : {1, 2}) {
    const auto f = ArpFrame(bc, op, 0x0a000001, 0x0a0000fe);
    net::ParsedPacket p;
    ASSERT_EQ(Parse(f, &p), net::PktKind::kArp);
    EXPECT_EQ(p.ethertype, net::kEtherTypeArp);
    EXPECT_EQ(p.l3_off, 14);
    EXPECT_TRUE(p.dst_broadcast);
    net::ArpView a;
    ASSERT_TRUE(net::ParseArp(f.data(), static_cast<uint32_t>(f.size()), p, &a));
    EXPECT_EQ(a.op, op);
    EXPECT_EQ(a.spa, 0x0a000001u);
    EXPECT_EQ(a.tpa, 0x0a0000feu);
    const uint8_t sha[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
    const uint8_t tha[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
    EXPECT_EQ(std::memcmp(a.sha, sha, 6), 0);
    EXPECT_EQ(std::memcmp(a.tha, tha, 6), 0);
  }
}

TEST(Parser, VlanTaggedArp) {
  FrameSpec e;
  e.vlan = true;
  e.tci = 5;
  const auto f = ArpFrame(e, 1, 1, 2);
  net::ParsedPacket p;
  ASSERT_EQ(Parse(f, &p), net::PktKind::kArp);
  EXPECT_EQ(p.l3_off, 18);
  net::ArpView a;
  ASSERT_TRUE(net::ParseArp(f.data(), static_cast<uint32_t>(f.size()), p, &a));
  EXPECT_EQ(a.spa, 1u);
  EXPECT_EQ(a.tpa, 2u);
}

TEST(Parser, TruncatedArp) {
  const auto f = ArpFrame(FrameSpec{}, 1, 1, 2);
  for (size_t len = 14; len < f.size(); ++len) {
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, len, true, &p), net::PktKind::kBad) << len;
    EXPECT_EQ(p.bad, DropReason::kTruncated) << len;
  }
}

TEST(Parser, NonEthernetIpv4ArpIsUnsupported) {
  // htype, ptype, hlen, plen each wrong in turn; the frame holds the whole
  // body its hlen/plen declare (8 + 2 * (hlen + plen) bytes), so it is
  // complete and must not be called truncated.
  const std::pair<size_t, uint8_t> edits[] = {{15, 6}, {16, 0x86}, {18, 8}, {19, 16}, {18, 0}};
  for (auto [off, val] : edits) {
    auto f = ArpFrame(FrameSpec{}, 1, 1, 2);
    f[off] = val;
    f.resize(std::max<size_t>(f.size(), 14 + 8 + 2 * (f[18] + f[19])), 0);
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, &p), net::PktKind::kBad) << off;
    EXPECT_EQ(p.bad, DropReason::kArpUnsupported) << off;
  }
}

TEST(Parser, Ieee802ArpIsUnsupportedNotTruncated) {
  // What scapy sends for ARP(hwtype=6): hardware type 6 (IEEE 802), hlen 0,
  // plen 4, so a 16-byte body and a 30-byte frame (veth does not pad). It
  // used to be counted as truncated: shorter than an Ethernet/IPv4 ARP, but
  // complete by its own lengths.
  const std::vector<uint8_t> f = {
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0,    0, 0, 0, 0x01, 0x08, 0x06,  // Ethernet
      0x00, 0x06, 0x08, 0x00, 0x00, 0x04, 0x00, 0x01,   // 802, IPv4, 0, 4, req
      0x0a, 0x00, 0x01, 0x02, 0x0a, 0x00, 0x01, 0x01};  // spa, tpa
  ASSERT_EQ(f.size(), 30u);
  net::ParsedPacket p;
  EXPECT_EQ(Parse(f, &p), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kArpUnsupported);
  // One byte short of what its own hlen/plen declare: truncated after all.
  EXPECT_EQ(Parse(f, f.size() - 1, true, &p), net::PktKind::kBad);
  EXPECT_EQ(p.bad, DropReason::kTruncated);
  // An IEEE 802 ARP with 6-byte addresses (28-byte body), tagged or not.
  for (bool vlan : {false, true}) {
    FrameSpec e;
    e.vlan = vlan;
    auto g = ArpFrame(e, 1, 1, 2);
    g[(vlan ? 18 : 14) + 1] = 6;
    ASSERT_EQ(Parse(g, &p), net::PktKind::kBad);
    EXPECT_EQ(p.bad, DropReason::kArpUnsupported);
  }
}

TEST(Parser, TruncatedArpFixedHeader) {
  // Fewer than the 8 bytes that say what the ARP is: truncated, whatever
  // those bytes are.
  auto f = ArpFrame(FrameSpec{}, 1, 1, 2);
  f[15] = 6;
  for (size_t len = 14; len < 22; ++len) {
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, len, true, &p), net::PktKind::kBad) << len;
    EXPECT_EQ(p.bad, DropReason::kTruncated) << len;
  }
}

TEST(Parser, ParseArpRejectsBadInput) {
  auto f = ArpFrame(FrameSpec{}, 1, 1, 2);
  net::ParsedPacket p;
  ASSERT_EQ(Parse(f, &p), net::PktKind::kArp);
  net::ArpView a{};
  a.op = 77;
  // Length shorter than the body the ParsedPacket promises.
  EXPECT_FALSE(net::ParseArp(f.data(), static_cast<uint32_t>(f.size() - 1), p, &a));
  // Opcodes other than request/reply.
  for (uint16_t op : {0, 3, 4, 0x0100}) {
    Put16(f, 14 + 6, op);
    EXPECT_FALSE(net::ParseArp(f.data(), static_cast<uint32_t>(f.size()), p, &a)) << op;
  }
  EXPECT_EQ(a.op, 77);  // untouched on failure
  // A ParsedPacket of another kind.
  const auto ipf = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
  net::ParsedPacket ipp;
  ASSERT_EQ(Parse(ipf, &ipp), net::PktKind::kIpv4);
  EXPECT_FALSE(net::ParseArp(ipf.data(), static_cast<uint32_t>(ipf.size()), ipp, &a));
}

TEST(Parser, MacControl) {
  FrameSpec e;
  e.ethertype = net::kEtherTypeMacControl;
  const uint8_t pause_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
  std::memcpy(e.dst, pause_dst, 6);
  size_t l3;
  auto f = test::EthHeader(e, &l3);
  f.resize(60, 0);
  Put16(f, 14, 0x0101);  // PFC opcode; the codec, not the parser, checks it
  net::ParsedPacket p;
  ASSERT_EQ(Parse(f, &p), net::PktKind::kMacControl);
  EXPECT_EQ(p.ethertype, net::kEtherTypeMacControl);
  EXPECT_EQ(p.l3_off, 14);
  EXPECT_TRUE(p.dst_multicast);
  EXPECT_FALSE(p.dst_broadcast);
  // Even a bare header is classified by kind only.
  EXPECT_EQ(Parse(f, 14, true, &p), net::PktKind::kMacControl);
}

TEST(Parser, OtherEthertypes) {
  for (uint16_t et : {0x86dd, 0x88cc, 0x8035, 0x88e7, 0x0000, 0x05dc, 0xffff}) {
    FrameSpec e;
    e.ethertype = et;
    size_t l3;
    auto f = test::EthHeader(e, &l3);
    f.resize(60, 0x60);
    net::ParsedPacket p;
    ASSERT_EQ(Parse(f, &p), net::PktKind::kOtherL2) << std::hex << et;
    EXPECT_EQ(p.ethertype, et);
    EXPECT_FALSE(p.has_vlan);
  }
  // Non-IP inside one 802.1Q tag.
  FrameSpec v;
  v.vlan = true;
  v.ethertype = 0x86dd;
  size_t l3;
  auto f = test::EthHeader(v, &l3);
  f.resize(60, 0);
  net::ParsedPacket p;
  EXPECT_EQ(Parse(f, &p), net::PktKind::kOtherL2);
  EXPECT_TRUE(p.has_vlan);
  EXPECT_EQ(p.ethertype, 0x86dd);
  EXPECT_EQ(p.l3_off, 18);
}

TEST(Parser, PriorityTaggedFrameIsTagged) {
  // VID 0 (802.1Q priority tag) is parsed like any tag: the switch writes
  // its PCP like any other.
  FrameSpec e;
  e.vlan = true;
  e.tci = 0xa000;  // PCP 5, DEI 0, VID 0
  net::ParsedPacket p;
  ASSERT_EQ(Parse(Ipv4Frame(e, Ipv4Spec{}), &p), net::PktKind::kIpv4);
  EXPECT_TRUE(p.has_vlan);
  EXPECT_EQ(p.vlan_tci, 0xa000);
  EXPECT_EQ(p.l3_off, 18);
}

TEST(Parser, StackedTagsAreVlanUnsupported) {
  // An S-tag outside (802.1ad 0x88a8, pre-standard 0x9100) or a second tag
  // inside an 802.1Q tag: refused with their own reason, even when the frame
  // is no longer than the outer tag.
  auto expect_refused = [](const std::vector<uint8_t>& f, uint16_t et) {
    net::ParsedPacket p;
    EXPECT_EQ(Parse(f, &p), net::PktKind::kBad) << std::hex << et;
    EXPECT_EQ(p.bad, DropReason::kVlanUnsupported) << std::hex << et;
  };
  for (uint16_t outer : {0x88a8, 0x9100}) {
    FrameSpec e;
    e.ethertype = outer;
    size_t l3;
    auto f = test::EthHeader(e, &l3);
    expect_refused(f, outer);
    f.resize(64, 0);
    Put16(f, 16, 0x0800);
    expect_refused(f, outer);
  }
  for (uint16_t inner : {0x8100, 0x88a8, 0x9100}) {
    FrameSpec e;
    e.vlan = true;
    e.ethertype = inner;
    size_t l3;
    auto f = test::EthHeader(e, &l3);
    expect_refused(f, inner);
    // With a complete IPv4 packet behind the inner tag: still refused.
    f.resize(l3 + 4);
    Put16(f, l3 + 2, 0x0800);
    auto ip = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
    f.insert(f.end(), ip.begin() + 14, ip.end());
    expect_refused(f, inner);
  }
}

TEST(Parser, EveryPrefixOfValidFramesIsSafe) {
  // Each prefix of a valid frame is either rejected as runt/truncated or is
  // the whole frame (or within trailing Ethernet padding).
  std::vector<std::vector<uint8_t>> frames;
  for (bool vlan : {false, true}) {
    FrameSpec e;
    e.vlan = vlan;
    Ipv4Spec ip;
    ip.ihl = 9;
    frames.push_back(Ipv4Frame(e, ip));
    frames.push_back(ArpFrame(e, 2, 3, 4));
  }
  for (const auto& f : frames) {
    net::ParsedPacket full;
    const net::PktKind want = Parse(f, &full);
    ASSERT_NE(want, net::PktKind::kBad);
    for (size_t len = 0; len < f.size(); ++len) {
      net::ParsedPacket p;
      ASSERT_EQ(Parse(f, len, true, &p), net::PktKind::kBad) << len;
      EXPECT_TRUE(p.bad == DropReason::kRunt || p.bad == DropReason::kTruncated) << len;
    }
  }
}

// ParseFrame's inline fast path and ParseFrameFull must agree on every field
// of every frame: valid frames of many shapes, then each with random bytes
// of its header mutated (most land on the full parser's error paths, some
// still take the fast path), at every length from 0 to the frame's.
void ExpectSame(const net::ParsedPacket& a, const net::ParsedPacket& b, const std::string& what) {
  EXPECT_EQ(a.kind, b.kind) << what;
  if (a.kind == net::PktKind::kBad) {
    EXPECT_EQ(a.bad, b.bad) << what;
  }
  EXPECT_EQ(a.has_vlan, b.has_vlan) << what;
  EXPECT_EQ(a.ip_options, b.ip_options) << what;
  EXPECT_EQ(a.ip_fragment, b.ip_fragment) << what;
  EXPECT_EQ(a.dst_broadcast, b.dst_broadcast) << what;
  EXPECT_EQ(a.dst_multicast, b.dst_multicast) << what;
  EXPECT_EQ(a.ethertype, b.ethertype) << what;
  EXPECT_EQ(a.vlan_tci, b.vlan_tci) << what;
  EXPECT_EQ(a.l3_off, b.l3_off) << what;
  EXPECT_EQ(a.ip_hdr_len, b.ip_hdr_len) << what;
  EXPECT_EQ(a.ip_total_len, b.ip_total_len) << what;
  EXPECT_EQ(a.dscp, b.dscp) << what;
  EXPECT_EQ(a.ttl, b.ttl) << what;
  EXPECT_EQ(a.ip_proto, b.ip_proto) << what;
  EXPECT_EQ(a.src_ip, b.src_ip) << what;
  EXPECT_EQ(a.dst_ip, b.dst_ip) << what;
}

TEST(Parser, FastPathAgreesWithFullParser) {
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> frames;
  const uint16_t frags[] = {0, 0x4000, 0x2000, 0x0001, 0x1fff, 0x8000, 0x6000};
  for (bool vlan : {false, true}) {
    for (uint8_t ihl : {5, 6, 15}) {
      for (uint16_t frag : frags) {
        FrameSpec e;
        e.vlan = vlan;
        if (frag == 0x2000) std::memset(e.dst, 0xff, 6);
        Ipv4Spec ip;
        ip.ihl = ihl;
        ip.frag = frag;
        ip.dscp = static_cast<uint8_t>(rng() % 64);
        ip.ttl = static_cast<uint8_t>(rng());
        ip.src = static_cast<uint32_t>(rng());
        ip.dst = static_cast<uint32_t>(rng());
        frames.push_back(Ipv4Frame(e, ip));
      }
    }
    frames.push_back(ArpFrame(FrameSpec{}, 1, 2, 3));
  }
  uint64_t fast = 0, compared = 0;
  std::vector<std::vector<uint8_t>> cases;
  for (const auto& f : frames) {
    cases.push_back(f);
    for (int k = 0; k < 300; ++k) {
      std::vector<uint8_t> m = f;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < edits; ++i)
        m[rng() % std::min<size_t>(m.size(), 40)] = static_cast<uint8_t>(rng());
      if (rng() % 4 == 0) m.resize(rng() % (m.size() + 1));
      cases.push_back(m);
    }
  }
  for (const auto& f : cases) {
    for (bool verify : {true, false}) {
      net::ParsedPacket a, b;
      std::memset(&a, 0x5a, sizeof a);  // the fast path must not rely on *out's old contents
      const net::PktKind ka =
          net::ParseFrame(f.data(), static_cast<uint32_t>(f.size()), verify, &a);
      const net::PktKind kb =
          net::ParseFrameFull(f.data(), static_cast<uint32_t>(f.size()), verify, &b);
      ASSERT_EQ(ka, kb);
      ExpectSame(a, b, "frame of " + std::to_string(f.size()) + " bytes");
      ++compared;
      fast +=
          f.size() >= 34 && f[12] == 8 && f[13] == 0 && f[14] == 0x45 && ka == net::PktKind::kIpv4;
    }
  }
  EXPECT_GT(fast, compared / 20);  // both paths were really exercised
  EXPECT_GT(compared - fast, compared / 2);
}

TEST(Parser, ProducesEveryDocumentedReason) {
  // The parser's reasons, as listed in parser.h; each must be reachable.
  std::set<DropReason> seen;
  net::ParsedPacket p;
  auto ok = Ipv4Frame(FrameSpec{}, Ipv4Spec{});
  Parse(ok, 5, true, &p);
  seen.insert(p.bad);
  Parse(ok, 20, true, &p);
  seen.insert(p.bad);
  auto v6 = ok;
  v6[14] = 0x65;
  Parse(v6, &p, false);
  seen.insert(p.bad);
  auto csum = ok;
  csum[14 + 8] ^= 1;
  Parse(csum, &p, true);
  seen.insert(p.bad);
  auto arp = ArpFrame(FrameSpec{}, 1, 1, 2);
  arp[15] = 6;
  Parse(arp, &p);
  seen.insert(p.bad);
  FrameSpec qinq;
  qinq.ethertype = 0x88a8;
  Parse(Ipv4Frame(qinq, Ipv4Spec{}), &p);
  seen.insert(p.bad);
  EXPECT_EQ(seen,
            (std::set<DropReason>{DropReason::kRunt, DropReason::kTruncated,
                                  DropReason::kBadIpHeader, DropReason::kBadIpChecksum,
                                  DropReason::kArpUnsupported, DropReason::kVlanUnsupported}));
}

}  // namespace
}  // namespace pfc
