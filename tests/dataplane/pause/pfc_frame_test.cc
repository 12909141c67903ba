// SPDX-License-Identifier: BSD-3-Clause
// PFC / PAUSE frame codec: exact bytes of a built frame, round trips, and
// every kind of frame the switch must refuse.
#include "dataplane/pause/pfc_frame.h"

#include <gtest/gtest.h>

#include <vector>

namespace pfc {
namespace {

constexpr std::array<uint8_t, 6> kSrc = {0x02, 0x00, 0x00, 0xaa, 0xbb, 0x01};

std::vector<uint8_t> Build(const pause::PauseRequest& r) {
  std::vector<uint8_t> f(pause::kPfcFrameLen);
  EXPECT_EQ(pause::BuildPfcFrame(kSrc, r, f.data(), f.size()), pause::kPfcFrameLen);
  return f;
}

TEST(PfcFrame, BuildsTheExactBytes) {
  pause::PauseRequest r;
  r.class_enable = 0x09;  // priorities 0 and 3
  r.quanta[0] = 0xffff;
  r.quanta[3] = 0x1234;
  const std::vector<uint8_t> want = {
      0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,              // dst
      0x02, 0x00, 0x00, 0xaa, 0xbb, 0x01,              // src
      0x88, 0x08,                                      // MAC control
      0x01, 0x01,                                      // opcode PFC
      0x00, 0x09,                                      // class-enable vector
      0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,  // time[0..3]
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // time[4..7]
  };
  std::vector<uint8_t> f = Build(r);
  ASSERT_EQ(f.size(), 60u);
  EXPECT_EQ(std::vector<uint8_t>(f.begin(), f.begin() + 34), want);
  for (size_t i = 34; i < 60; ++i) EXPECT_EQ(f[i], 0) << "padding byte " << i;
}

TEST(PfcFrame, RefusesASmallBuffer) {
  uint8_t buf[59];
  EXPECT_EQ(pause::BuildPfcFrame(kSrc, pause::PauseRequest{}, buf, sizeof buf), 0u);
  EXPECT_EQ(pause::BuildPfcFrame(kSrc, pause::PauseRequest{}, nullptr, 100), 0u);
}

TEST(PfcFrame, ParsesWhatItBuildsWithAndWithoutFcs) {
  pause::PauseRequest r;
  r.class_enable = 0xa5;
  for (int i = 0; i < 8; ++i) r.quanta[i] = static_cast<uint16_t>(0x1111 * i + 7);
  std::vector<uint8_t> f = Build(r);
  for (size_t len : {size_t{60}, size_t{64}}) {
    f.resize(len, 0xee);  // a kept FCS is just 4 more bytes
    pause::PauseRequest got;
    ASSERT_EQ(pause::ParseMacControl(f.data(), f.size(), &got), pause::MacCtlKind::kPfc) << len;
    EXPECT_EQ(got.class_enable, 0xa5);
    EXPECT_EQ(got.quanta, r.quanta);
  }
}

TEST(PfcFrame, HonoursButReportsTheReservedOctetOfTheVector) {
  pause::PauseRequest r;
  r.class_enable = 0x10;
  r.quanta[4] = 100;
  std::vector<uint8_t> f = Build(r);
  pause::PauseRequest got;
  ASSERT_EQ(pause::ParseMacControl(f.data(), f.size(), &got), pause::MacCtlKind::kPfc);
  EXPECT_EQ(got.reserved_octet, 0) << "our own frames keep the reserved octet zero";
  for (uint8_t reserved : {0xff, 0x01, 0x80}) {
    f[16] = reserved;  // 802.1Qbb: reserved, ignored on receipt
    got = pause::PauseRequest{};
    ASSERT_EQ(pause::ParseMacControl(f.data(), f.size(), &got), pause::MacCtlKind::kPfc)
        << int{reserved};
    EXPECT_EQ(got.class_enable, 0x10) << "the eight defined classes are honoured as sent";
    EXPECT_EQ(got.quanta, r.quanta);
    EXPECT_EQ(got.reserved_octet, reserved) << "reported so the switch can count it";
  }
  // A clean frame parsed into a request that held reserved bits clears them.
  f[16] = 0;
  ASSERT_EQ(pause::ParseMacControl(f.data(), f.size(), &got), pause::MacCtlKind::kPfc);
  EXPECT_EQ(got.reserved_octet, 0);
  // Building ignores the field: the reserved octet is always sent as zero.
  r.reserved_octet = 0xff;
  EXPECT_EQ(Build(r)[16], 0);
}

TEST(PfcFrame, ClassicPauseMeansAllPriorities) {
  pause::PauseRequest r;
  std::vector<uint8_t> f = Build(r);
  f[14] = 0x00;
  f[15] = 0x01;  // opcode PAUSE
  f[16] = 0x02;
  f[17] = 0x00;  // pause_time 0x0200
  pause::PauseRequest got;
  got.reserved_octet = 0x55;
  ASSERT_EQ(pause::ParseMacControl(f.data(), f.size(), &got), pause::MacCtlKind::kPause);
  EXPECT_EQ(got.class_enable, 0xff);
  EXPECT_EQ(got.reserved_octet, 0) << "PAUSE has no vector, so no reserved bits";
  for (uint16_t q : got.quanta) EXPECT_EQ(q, 0x0200);
  // 802.3 Annex 31B lets a PAUSE be addressed to the port's own MAC.
  const std::array<uint8_t, 6> port = {0x02, 0, 0, 0, 0, 0x42};
  std::copy(port.begin(), port.end(), f.begin());
  EXPECT_EQ(pause::ParseMacControl(f.data(), f.size(), &got), pause::MacCtlKind::kMalformed);
  EXPECT_EQ(pause::ParseMacControl(f.data(), f.size(), &got, &port), pause::MacCtlKind::kPause);
  // ... but a PFC frame must go to the reserved group address.
  f[14] = 0x01;
  f[15] = 0x01;
  EXPECT_EQ(pause::ParseMacControl(f.data(), f.size(), &got, &port), pause::MacCtlKind::kMalformed);
}

TEST(PfcFrame, MalformedFrames) {
  pause::PauseRequest r;
  r.class_enable = 1;
  r.quanta[0] = 5;
  const std::vector<uint8_t> good = Build(r);
  pause::PauseRequest got;
  auto kind = [&](std::vector<uint8_t> f) {
    return pause::ParseMacControl(f.data(), f.size(), &got);
  };
  ASSERT_EQ(kind(good), pause::MacCtlKind::kPfc);

  EXPECT_EQ(kind(std::vector<uint8_t>(good.begin(), good.begin() + 59)),
            pause::MacCtlKind::kMalformed);
  EXPECT_EQ(kind(std::vector<uint8_t>(good.begin(), good.begin() + 34)),
            pause::MacCtlKind::kMalformed);
  std::vector<uint8_t> f = good;
  f.resize(65);
  EXPECT_EQ(kind(f), pause::MacCtlKind::kMalformed);  // MAC control frames are minimum size
  f = good;
  f[5] = 0x02;  // 01:80:c2:00:00:02 (slow protocols), not the PAUSE address
  EXPECT_EQ(kind(f), pause::MacCtlKind::kMalformed);
  f = good;
  f[0] = 0x02;  // unicast
  EXPECT_EQ(kind(f), pause::MacCtlKind::kMalformed);
  f = good;
  f[13] = 0x09;  // ethertype 0x8809
  EXPECT_EQ(kind(f), pause::MacCtlKind::kMalformed);
  for (uint16_t op : {0x0000, 0x0002, 0x0100, 0x0102, 0x0201, 0xffff}) {
    f = good;
    f[14] = static_cast<uint8_t>(op >> 8);
    f[15] = static_cast<uint8_t>(op);
    EXPECT_EQ(kind(f), pause::MacCtlKind::kMalformed) << "opcode " << op;
  }
  // VLAN-tagged MAC control: never valid.
  f = good;
  const uint8_t tag[] = {0x81, 0x00, 0x60, 0x01};
  f.insert(f.begin() + 12, tag, tag + 4);
  EXPECT_EQ(kind(f), pause::MacCtlKind::kMalformed);
  EXPECT_EQ(pause::ParseMacControl(nullptr, 60, &got), pause::MacCtlKind::kMalformed);
}

}  // namespace
}  // namespace pfc
