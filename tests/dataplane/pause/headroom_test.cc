// SPDX-License-Identifier: BSD-3-Clause
// Default headroom: each term of the documented formula, rounding to cells,
// parameter checks, and the convenience wrapper the config uses.
#include "dataplane/pause/headroom.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pfc {
namespace {

pause::HeadroomParams TenGig() {
  pause::HeadroomParams p;
  p.port_bps = 10'000'000'000;
  p.cable_m = 100;
  p.mtu_bytes = 1518;
  p.response_ns = 1000;
  p.peer_response_ns = 1000;
  return p;
}

TEST(Headroom, TermsOfTheFormula) {
  pause::HeadroomBreakdown b;
  std::string err;
  ASSERT_TRUE(pause::ComputeHeadroom(TenGig(), &b, &err)) << err;
  EXPECT_EQ(b.cable_bytes, 1250u);      // 2 x 100 m x 5 ns/m = 1 us at 1.25 GB/s
  EXPECT_EQ(b.frames_bytes, 3036u);     // 2 x 1518
  EXPECT_EQ(b.pause_frame_bytes, 84u);  // 64 + 8 + 12
  EXPECT_EQ(b.response_bytes, 2500u);   // 2 us at 1.25 GB/s
  EXPECT_EQ(b.total_bytes, 6870u);
}

TEST(Headroom, RoundsUpToCells) {
  pause::HeadroomParams p = TenGig();
  p.cell_bytes = 256;
  pause::HeadroomBreakdown b;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
  EXPECT_EQ(b.total_bytes, 6912u);  // 27 cells
  p.cell_bytes = 6870;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
  EXPECT_EQ(b.total_bytes, 6870u);
}

TEST(Headroom, CiscoFibreFigure) {
  // Cisco: 513 ns per 100 m of single-mode fibre = 641.25 bytes one way at
  // 10 Gb/s; both directions, rounded up.
  pause::HeadroomParams p = TenGig();
  p.ns_per_m = 5.13;
  pause::HeadroomBreakdown b;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
  EXPECT_EQ(b.cable_bytes, 1283u);
}

TEST(Headroom, ScalesWithSpeedAndDistance) {
  pause::HeadroomParams p = TenGig();
  p.port_bps = 100'000'000'000;
  p.cable_m = 300;
  p.mtu_bytes = 9238;
  p.response_ns = 2000;
  p.peer_response_ns = 0;  // same as ours
  pause::HeadroomBreakdown b;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
  EXPECT_EQ(b.cable_bytes, 37500u);  // 3 us at 12.5 GB/s
  EXPECT_EQ(b.frames_bytes, 18476u);
  EXPECT_EQ(b.response_bytes, 50000u);  // 4 us
  EXPECT_EQ(b.total_bytes, 37500u + 18476 + 84 + 50000);
  p.cable_m = 0;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
  EXPECT_EQ(b.cable_bytes, 0u);
}

TEST(Headroom, RejectsOutOfRangeParameters) {
  pause::HeadroomBreakdown b;
  std::string err;
  pause::HeadroomParams p = TenGig();
  p.port_bps = 0;
  EXPECT_FALSE(pause::ComputeHeadroom(p, &b, &err));
  EXPECT_NE(err.find("headroom.port_bps = 0"), std::string::npos) << err;
  p = TenGig();
  p.mtu_bytes = 10;
  EXPECT_FALSE(pause::ComputeHeadroom(p, &b, &err));
  EXPECT_NE(err.find("headroom.mtu_bytes = 10"), std::string::npos) << err;
  p = TenGig();
  p.cable_m = -1;
  EXPECT_FALSE(pause::ComputeHeadroom(p, &b, &err));
  EXPECT_NE(err.find("headroom.cable_m"), std::string::npos) << err;
  p.cable_m = std::nan("");
  EXPECT_FALSE(pause::ComputeHeadroom(p, &b, &err));
  p = TenGig();
  p.ns_per_m = 2;  // faster than light
  EXPECT_FALSE(pause::ComputeHeadroom(p, &b, &err));
  EXPECT_NE(err.find("headroom.ns_per_m"), std::string::npos) << err;
  p = TenGig();
  p.cell_bytes = 0;
  EXPECT_FALSE(pause::ComputeHeadroom(p, &b, &err));
  EXPECT_NE(err.find("headroom.cell_bytes = 0"), std::string::npos) << err;
  p = TenGig();
  p.response_ns = 2'000'000'000;
  EXPECT_FALSE(pause::ComputeHeadroom(p, &b, &err));
}

TEST(Headroom, ConfigWrapperUsesIpMtu) {
  // IP MTU 1500 -> frames of 1522 (header, one VLAN tag, FCS); T_peer = T_self.
  EXPECT_EQ(pause::DefaultHeadroomBytes(10'000'000'000, 100, 1500, 1000), 1250u + 3044 + 84 + 2500);
  EXPECT_EQ(pause::DefaultHeadroomBytes(10'000'000'000, 100, 1500, 1000, 128), 6912u);  // 54 cells
  EXPECT_EQ(pause::DefaultHeadroomBytes(0, 100, 1500, 1000), 0u);  // invalid -> 0
}

}  // namespace
}  // namespace pfc
