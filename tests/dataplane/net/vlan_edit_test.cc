// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of VlanSetPcp: only the three PCP bits change, for every PCP
// and every value of the other bits (DEI, VID), and the return value says
// whether the byte changed.
#include "dataplane/net/vlan_edit.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

TEST(VlanEdit, SetsPcpKeepsDeiAndVid) {
  for (unsigned hi = 0; hi < 256; ++hi) {  // every PCP/DEI/VID-high combination
    for (uint8_t lo : {0x00, 0x01, 0x7f, 0xff}) {
      for (uint8_t pcp = 0; pcp < 8; ++pcp) {
        uint8_t tci[2] = {static_cast<uint8_t>(hi), lo};
        const bool changed = net::VlanSetPcp(tci, pcp);
        EXPECT_EQ(tci[0] >> 5, pcp) << hi << "/" << int{pcp};
        EXPECT_EQ(tci[0] & 0x1f, hi & 0x1f) << "DEI and VID bits 8..11 kept";
        EXPECT_EQ(tci[1], lo) << "VID bits 0..7 kept";
        EXPECT_EQ(changed, (hi >> 5) != pcp);
        EXPECT_EQ(net::VlanPcp(static_cast<uint16_t>(tci[0] << 8 | tci[1])), pcp);
      }
    }
  }
}

TEST(VlanEdit, PriorityTagStaysPriorityTag) {
  uint8_t tci[2] = {0x00, 0x00};  // PCP 0, VID 0
  EXPECT_TRUE(net::VlanSetPcp(tci, 4));
  EXPECT_EQ(tci[0], 0x80);
  EXPECT_EQ(tci[1], 0x00);
}

TEST(VlanEdit, OnlyThreeBitsOfPcp) {
  uint8_t tci[2] = {0x12, 0x34};
  net::VlanSetPcp(tci, 0xfb);  // & 7 = 3
  EXPECT_EQ(tci[0], 0x72);
  EXPECT_EQ(tci[1], 0x34);
}

}  // namespace
}  // namespace pfc
