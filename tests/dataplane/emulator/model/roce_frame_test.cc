// SPDX-License-Identifier: BSD-3-Clause
// RoCEv2 CNP frames (emulator/model/roce_frame.h): byte for byte against a
// frame built independently (Python's struct and zlib, following Annex
// A17's ICRC rules), the ICRC surviving what switches may change (ECN
// marks, DSCP, TTL) and catching what they may not, and the parser.
#include "dataplane/emulator/model/roce_frame.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <vector>

#include "dataplane/net/ipv4_edit.h"

namespace pfc::emulator {
namespace {

CnpSpec Spec() {
  CnpSpec s;
  s.dst_mac = {0x02, 0, 0, 0, 0, 0xfe};
  s.src_mac = {0x02, 0, 0, 0, 0, 0x01};
  s.src_ip = 0x0a000102;
  s.dst_ip = 0x0a000001;
  s.dscp = 48;
  s.src_port = 0xc007;
  s.dest_qp = 7;
  return s;
}

// The same CNP built by a short Python script with struct and zlib (8 x
// 0xff, then IPv4 with TOS/TTL/checksum, UDP checksum and the BTH's
// reserved byte all ones, then the rest; CRC-32 stored little-endian).
const std::vector<uint8_t> kIndependent = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45,
    0xc0, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x24, 0xef, 0x0a, 0x00, 0x01, 0x02,
    0x0a, 0x00, 0x00, 0x01, 0xc0, 0x07, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff,
    0xff, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24, 0x9b, 0x46, 0x80};

TEST(RoceFrame, CnpMatchesAnIndependentBuild) {
  std::vector<uint8_t> f(kCnpFrameLen);
  ASSERT_EQ(BuildCnp(Spec(), f.data()), kCnpFrameLen);
  EXPECT_EQ(f, kIndependent);
  EXPECT_TRUE(net::Ipv4ChecksumOk(f.data() + 14, 20));
  RoceHeader h;
  ASSERT_TRUE(ParseRoce(f.data(), kCnpFrameLen, &h));
  EXPECT_EQ(h.opcode, kBthOpCnp);
  EXPECT_EQ(h.dest_qp, 7u);
  EXPECT_TRUE(h.icrc_ok);
}

TEST(RoceFrame, IcrcCoversOnlyTheInvariantFields) {
  std::vector<uint8_t> f(kCnpFrameLen);
  BuildCnp(Spec(), f.data());
  net::Ipv4SetDscp(f.data() + 14, 26);  // a switch's rewrite
  f[15] |= net::kEcnCe;                 // an ECN mark
  f[22] = 3;                            // TTL
  f[40] = 0x12;                         // UDP checksum
  f[46] = 0x80;                         // BTH reserved byte (FECN)
  RoceHeader h;
  ASSERT_TRUE(ParseRoce(f.data(), kCnpFrameLen, &h));
  EXPECT_TRUE(h.icrc_ok) << "what the path may change is masked";
  f[49] = 8;  // the destination QP
  ASSERT_TRUE(ParseRoce(f.data(), kCnpFrameLen, &h));
  EXPECT_FALSE(h.icrc_ok);
}

TEST(RoceFrame, ParserRefusesWhatIsNotRoceV2) {
  std::vector<uint8_t> f(kCnpFrameLen);
  BuildCnp(Spec(), f.data());
  RoceHeader h;
  EXPECT_FALSE(ParseRoce(f.data(), 40, &h)) << "too short for a BTH";
  f[37] = 0xb8;  // UDP port 4792
  EXPECT_FALSE(ParseRoce(f.data(), kCnpFrameLen, &h));
}

TEST(RoceFrame, WriteFirstCarriesRethPaddingAndStamp) {
  RoceWrite w;
  w.opcode = kBthOpWriteFirst;
  w.psn = 0x123456;
  w.payload = 1001;  // padded to 1004
  w.va = 0x10000;
  w.rkey = 0x42;
  w.dma_len = 5000;
  w.stamp_ns = 987654321;
  RoceAddr a = Spec();
  a.ecn = 2;
  std::vector<uint8_t> f(kRoceMaxFrameLen);
  const uint32_t len = BuildWrite(a, w, f.data(), static_cast<uint32_t>(f.size()));
  ASSERT_EQ(len, 54u + 16 + 1004 + 4);
  EXPECT_EQ(len, RoceWriteLen(kBthOpWriteFirst, 1001));
  EXPECT_TRUE(net::Ipv4ChecksumOk(f.data() + 14, 20));
  EXPECT_EQ(f[15] & 3, 2) << "ECT(0) as asked";
  EXPECT_EQ(f[43] >> 4 & 3, 3) << "PadCnt";
  RoceHeader h;
  ASSERT_TRUE(ParseRoce(f.data(), len, &h));
  EXPECT_TRUE(h.complete);
  EXPECT_TRUE(h.icrc_ok);
  EXPECT_EQ(h.opcode, kBthOpWriteFirst);
  EXPECT_EQ(h.psn, 0x123456u);
  EXPECT_FALSE(h.ack_req);
  EXPECT_EQ(h.payload, 1001u);
  ASSERT_TRUE(h.has_stamp);
  EXPECT_EQ(h.stamp_ns, 987654321u);
  EXPECT_EQ(h.src_ip, a.src_ip);
  EXPECT_EQ(h.ecn, 2);
  EXPECT_EQ(BuildWrite(a, w, f.data(), len - 1), 0u) << "a buffer too small";
  // Cut short: still RoCEv2, but not complete.
  ASSERT_TRUE(ParseRoce(f.data(), 54 + 10 + 4, &h));
  EXPECT_FALSE(h.complete);
}

TEST(RoceFrame, IcrcMatchesZlibOverTheMaskedFrame) {
  // ISA-L's CRC against zlib's (the reference), over a 1,000-byte WRITE.
  RoceWrite w;
  w.opcode = kBthOpWriteMiddle;
  w.payload = 1000;
  w.stamp_ns = 42;
  std::vector<uint8_t> f(kRoceMaxFrameLen);
  const uint32_t len = BuildWrite(Spec(), w, f.data(), static_cast<uint32_t>(f.size()));
  for (uint8_t v : {0, 0x5a}) {  // zeros, then a payload byte set
    f[500] = v;
    uLong slow = crc32(0L, Z_NULL, 0);
    uint8_t hdr[8 + 20 + 8 + 12];
    std::memset(hdr, 0xff, 8);
    std::memcpy(hdr + 8, f.data() + 14, 40);
    hdr[8 + 1] = hdr[8 + 8] = hdr[8 + 10] = hdr[8 + 11] = 0xff;
    hdr[8 + 26] = hdr[8 + 27] = hdr[8 + 32] = 0xff;
    slow = crc32(slow, hdr, sizeof hdr);
    slow = crc32(slow, f.data() + 54, len - 54 - 4);
    EXPECT_EQ(RoceIcrc(f.data(), len), static_cast<uint32_t>(slow)) << int{v};
  }
}

TEST(RoceFrame, WriteLastAsksForAnAck) {
  RoceWrite w;
  w.opcode = kBthOpWriteLast;
  w.ack_req = true;
  w.psn = 9;
  w.payload = 4;  // too short for a stamp
  std::vector<uint8_t> f(128);
  const uint32_t len = BuildWrite(Spec(), w, f.data(), 128);
  ASSERT_EQ(len, 54u + 4 + 4);
  RoceHeader h;
  ASSERT_TRUE(ParseRoce(f.data(), len, &h));
  EXPECT_TRUE(h.ack_req);
  EXPECT_TRUE(IsLastOrOnly(h.opcode));
  EXPECT_FALSE(h.has_stamp);
  EXPECT_EQ(h.payload, 4u);
  w.opcode = 0x09;  // WRITE Last with Immediate: not one we build
  EXPECT_EQ(BuildWrite(Spec(), w, f.data(), 128), 0u);
}

TEST(RoceFrame, AckAndNakCarryAeth) {
  std::vector<uint8_t> f(kAckFrameLen);
  ASSERT_EQ(BuildAck(Spec(), kAethAck, 0xabcdef, 17, f.data()), kAckFrameLen);
  RoceHeader h;
  ASSERT_TRUE(ParseRoce(f.data(), kAckFrameLen, &h));
  EXPECT_TRUE(h.complete && h.icrc_ok && h.has_aeth);
  EXPECT_EQ(h.opcode, kBthOpAck);
  EXPECT_EQ(h.psn, 0xabcdefu);
  EXPECT_EQ(h.syndrome, kAethAck);
  EXPECT_EQ(h.msn, 17u);
  EXPECT_EQ(f[15] & 3, 0) << "an ACK is Not-ECT";
  BuildAck(Spec(), kAethNakPsnSeq, 5, 0, f.data());
  ASSERT_TRUE(ParseRoce(f.data(), kAckFrameLen, &h));
  EXPECT_EQ(h.syndrome, kAethNakPsnSeq);
  EXPECT_EQ(h.psn, 5u);
}

}  // namespace
}  // namespace pfc::emulator
