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

// Cells of 16 bytes or less charge no frame more than its wire time: the
// sum is only rounded up to cells.
TEST(Headroom, RoundsUpToCells) {
  pause::HeadroomParams p = TenGig();
  p.cell_bytes = 16;
  pause::HeadroomBreakdown b;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
  EXPECT_EQ(b.cell_tax, 1.0);
  EXPECT_EQ(b.frames_bytes, 2u * 1520);    // 95 cells each
  EXPECT_EQ(b.total_bytes, 3840u + 3040);  // 1250 + 84 + 2500 in 240 cells
}

// The cell tax: a window of wire time full of the frames that waste the
// most of their last cell. 128-byte cells: 129-byte frames, 256 bytes
// charged for 153 on the wire; 256-byte cells: 60-byte frames, one cell for
// 84 bytes.
TEST(Headroom, CellTaxChargesTheWorstFrameLength) {
  EXPECT_EQ(pause::CellTax(1), 1.0);
  EXPECT_EQ(pause::CellTax(16), 1.0);
  EXPECT_DOUBLE_EQ(pause::CellTax(128), 256.0 / 153);
  EXPECT_DOUBLE_EQ(pause::CellTax(256), 256.0 / 84);
  pause::HeadroomParams p = TenGig();
  p.cell_bytes = 256;
  pause::HeadroomBreakdown b;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
  // (1250 + 84 + 2500) x 256/84 = 11,684.6 -> 46 cells; frames 2 x 6 cells.
  EXPECT_EQ(b.total_bytes, 46u * 256 + 2 * 1536);
  // Whatever the frame length, a window's frames fit: for every length,
  // the frames that fill (cable + pause + response) of wire time, each
  // charged in cells, never exceed the window's share of the headroom.
  for (uint32_t cell : {64u, 128u, 192u, 256u}) {
    p.cell_bytes = cell;
    ASSERT_TRUE(pause::ComputeHeadroom(p, &b, nullptr));
    const uint64_t window = b.cable_bytes + b.pause_frame_bytes + b.response_bytes;
    for (uint64_t len = 60; len <= 1518; len++) {
      const uint64_t frames = (window + len + 24 - 1) / (len + 24);  // a partial one counts whole
      const uint64_t charged = frames * ((len + cell - 1) / cell * cell);
      EXPECT_LE(charged, b.total_bytes - b.frames_bytes + (len + cell - 1) / cell * cell)
          << "cell " << cell << " frame " << len;
    }
  }
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

// A class known to carry few small frames pays that share of the tax.
TEST(Headroom, SmallPacketShareScalesTheTax) {
  pause::HeadroomParams p = TenGig();
  p.cell_bytes = 128;
  pause::HeadroomBreakdown all, none, tenth;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &all, nullptr));
  p.small_packet_share = 0;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &none, nullptr));
  p.small_packet_share = 0.1;
  ASSERT_TRUE(pause::ComputeHeadroom(p, &tenth, nullptr));
  EXPECT_DOUBLE_EQ(all.cell_tax, 256.0 / 153);
  EXPECT_EQ(none.cell_tax, 1.0);
  EXPECT_DOUBLE_EQ(tenth.cell_tax, 1 + 0.1 * (256.0 / 153 - 1));
  EXPECT_EQ(none.total_bytes, 30u * 128 + 2 * 1536);  // 3834 in cells, and the frames
  EXPECT_LT(none.total_bytes, tenth.total_bytes);
  EXPECT_LT(tenth.total_bytes, all.total_bytes);
  std::string err;
  p.small_packet_share = 1.5;
  EXPECT_FALSE(pause::ComputeHeadroom(p, &all, &err));
  EXPECT_NE(err.find("small_packet_share"), std::string::npos) << err;
}

TEST(Headroom, ConfigWrapperUsesIpMtu) {
  // IP MTU 1500 -> frames of 1522 (header, one VLAN tag, FCS); T_peer = T_self.
  EXPECT_EQ(pause::DefaultHeadroomBytes(10'000'000'000, 100, 1500, 1000), 1250u + 3044 + 84 + 2500);
  // 128-byte cells: (1250 + 84 + 2500) x 256/153 in 51 cells, 2 x 12 for the frames.
  EXPECT_EQ(pause::DefaultHeadroomBytes(10'000'000'000, 100, 1500, 1000, 128), 75u * 128);
  EXPECT_EQ(pause::DefaultHeadroomBytes(0, 100, 1500, 1000), 0u);  // invalid -> 0
}

}  // namespace
}  // namespace pfc
