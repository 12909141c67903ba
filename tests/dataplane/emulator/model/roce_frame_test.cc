// SPDX-License-Identifier: BSD-3-Clause
// RoCEv2 CNP frames (emulator/model/roce_frame.h): byte for byte against a
// frame built independently (Python's struct and zlib, following Annex
// A17's ICRC rules), the ICRC surviving what switches may change (ECN
// marks, DSCP, TTL) and catching what they may not, and the parser.
#include "dataplane/emulator/model/roce_frame.h"

#include <gtest/gtest.h>

#include <vector>

#include "dataplane/net/ipv4_edit.h"

namespace pfc::emu {
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
  EXPECT_TRUE(Ipv4ChecksumOk(f.data() + 14, 20));
  RoceHeader h;
  ASSERT_TRUE(ParseRoce(f.data(), kCnpFrameLen, &h));
  EXPECT_EQ(h.opcode, kBthOpCnp);
  EXPECT_EQ(h.dest_qp, 7u);
  EXPECT_TRUE(h.icrc_ok);
}

TEST(RoceFrame, IcrcCoversOnlyTheInvariantFields) {
  std::vector<uint8_t> f(kCnpFrameLen);
  BuildCnp(Spec(), f.data());
  Ipv4SetDscp(f.data() + 14, 26);  // a switch's rewrite
  f[15] |= kEcnCe;                 // an ECN mark
  f[22] = 3;                       // TTL
  f[40] = 0x12;                    // UDP checksum
  f[46] = 0x80;                    // BTH reserved byte (FECN)
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

}  // namespace
}  // namespace pfc::emu
