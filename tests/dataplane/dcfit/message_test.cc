// SPDX-License-Identifier: BSD-3-Clause
// DCFIT checking-message codec: the exact bytes, round trips in both frame
// forms, frames that stay valid PFC frames, and every kind of bad input.
#include "dataplane/dcfit/message.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/dataplane/dcfit/sample_msg.h"

namespace pfc::dcfit {
namespace {

constexpr std::array<uint8_t, 6> kSrc = {0x02, 0x00, 0x00, 0x00, 0x00, 0x05};

CheckMsg Sample() { return SampleMsg(); }

TEST(DcfitMessage, EncodesTheDocumentedBytes) {
  uint8_t b[kMsgLen];
  ASSERT_EQ(EncodeMsg(Sample(), b, sizeof b), kMsgLen);
  const std::vector<uint8_t> want_head = {
      0x44, 0x43, 0x46, 0x54,  // magic "DCFT"
      0x01, 0x06, 0x03, 0x04,  // version, flags, prio, hops
      0x12, 0x34, 63,   7,     // S_gen-ini, P_gen-ini, P_tri
      0x0a, 0x0b,              // S_tri
      0xa1, 0xb2, 0xc3, 0xd4,  // Seq
  };
  EXPECT_EQ(std::vector<uint8_t>(b, b + 18), want_head);
  // The Internet checksum: the 16-bit ones' complement sum of all ten words
  // (checksum included) is 0xffff.
  uint32_t sum = 0;
  for (size_t i = 0; i < kMsgLen; i += 2) sum += b[i] << 8 | b[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  EXPECT_EQ(sum, 0xffffu);
}

TEST(DcfitMessage, RoundTripsEveryField) {
  uint8_t b[kMsgLen];
  const CheckMsg m = Sample();
  ASSERT_EQ(EncodeMsg(m, b, sizeof b), kMsgLen);
  CheckMsg got;
  ASSERT_EQ(DecodeMsg(b, sizeof b, &got), MsgStatus::kOk);
  EXPECT_EQ(got, m);
  CheckMsg z;  // all zero but valid
  ASSERT_EQ(EncodeMsg(z, b, sizeof b), kMsgLen);
  ASSERT_EQ(DecodeMsg(b, sizeof b, &got), MsgStatus::kOk);
  EXPECT_EQ(got, z);
}

TEST(DcfitMessage, PiggybackedOnAPfcFrameThatStaysValid) {
  pause::PauseRequest r;
  r.class_enable = 0x08;
  r.quanta[3] = 0xffff;
  uint8_t f[64] = {};
  ASSERT_EQ(BuildPfcWithMsg(kSrc, r, Sample(), f, 60), pause::kPfcFrameLen);
  // The PFC part is byte for byte what BuildPfcFrame writes.
  uint8_t plain[pause::kPfcFrameLen];
  ASSERT_EQ(pause::BuildPfcFrame(kSrc, r, plain, sizeof plain), pause::kPfcFrameLen);
  EXPECT_EQ(std::vector<uint8_t>(f, f + kMsgOffset), std::vector<uint8_t>(plain, plain + 34));
  for (size_t i = kMsgOffset + kMsgLen; i < pause::kPfcFrameLen; ++i) EXPECT_EQ(f[i], 0) << i;
  // A receiver without DCFIT sees the same pause.
  pause::PauseRequest seen;
  ASSERT_EQ(pause::ParseMacControl(f, 60, &seen), pause::MacCtlKind::kPfc);
  EXPECT_EQ(seen.class_enable, 0x08);
  EXPECT_EQ(seen.quanta, r.quanta);
  // With DCFIT, the message too, with or without the FCS.
  for (size_t len : {size_t{60}, size_t{64}}) {
    CheckMsg got;
    pause::PauseRequest req;
    ASSERT_EQ(ParseFrameMsg(f, len, &req, &got), MsgStatus::kOk);
    EXPECT_EQ(got, Sample());
    EXPECT_EQ(req.class_enable, 0x08);
  }
  // An ordinary PFC frame has no message, and that is not an error.
  CheckMsg got;
  pause::PauseRequest req;
  EXPECT_EQ(ParseFrameMsg(plain, sizeof plain, &req, &got), MsgStatus::kNone);
}

TEST(DcfitMessage, StandaloneCheckingPacketPausesNothing) {
  uint8_t f[pause::kPfcFrameLen];
  ASSERT_EQ(BuildCheckingPacket(kSrc, Sample(), f, sizeof f), pause::kPfcFrameLen);
  pause::PauseRequest req;
  ASSERT_EQ(pause::ParseMacControl(f, sizeof f, &req), pause::MacCtlKind::kPfc);
  EXPECT_EQ(req.class_enable, 0);  // "no change" for every priority
  for (uint16_t q : req.quanta) EXPECT_EQ(q, 0);
  CheckMsg got;
  ASSERT_EQ(ParseFrameMsg(f, sizeof f, &req, &got), MsgStatus::kOk);
  EXPECT_EQ(got, Sample());
}

TEST(DcfitMessage, RejectsBadMagicTruncationCorruptionAndFields) {
  uint8_t b[kMsgLen];
  ASSERT_EQ(EncodeMsg(Sample(), b, sizeof b), kMsgLen);
  CheckMsg got;
  // Truncated: every length short of 20 with the magic there.
  for (size_t len = 4; len < kMsgLen; ++len)
    EXPECT_EQ(DecodeMsg(b, len, &got), MsgStatus::kTruncated) << len;
  EXPECT_EQ(DecodeMsg(b, 3, &got), MsgStatus::kNone);
  EXPECT_EQ(DecodeMsg(nullptr, 20, &got), MsgStatus::kNone);
  // Bad magic.
  for (int i = 0; i < 4; ++i) {
    uint8_t c[kMsgLen];
    std::copy(b, b + kMsgLen, c);
    c[i] ^= 0x20;
    EXPECT_EQ(DecodeMsg(c, sizeof c, &got), MsgStatus::kNone) << i;
  }
  // Any single flipped bit after the magic is caught (version or checksum).
  for (size_t i = 4; i < kMsgLen; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      uint8_t c[kMsgLen];
      std::copy(b, b + kMsgLen, c);
      c[i] ^= static_cast<uint8_t>(1 << bit);
      const MsgStatus st = DecodeMsg(c, sizeof c, &got);
      EXPECT_TRUE(st == (i == 4 ? MsgStatus::kBadVersion : MsgStatus::kBadChecksum))
          << "byte " << i << " bit " << bit << ": " << MsgStatusName(st);
    }
  }
  // Fields out of range are refused by the encoder and, with a correct
  // checksum, by the decoder.
  for (int which = 0; which < 4; ++which) {
    CheckMsg m = Sample();
    if (which == 0) m.prio = 8;
    if (which == 1) m.gen_port = 64;
    if (which == 2) m.tri_port = 200;
    if (which == 3) m.flags = 0x10;  // the first bit above kAllFlags
    EXPECT_EQ(EncodeMsg(m, b, sizeof b), 0u) << which;
    ASSERT_EQ(EncodeMsg(Sample(), b, sizeof b), kMsgLen);
    const size_t at[] = {6, 10, 11, 5};
    const uint8_t val[] = {8, 64, 200, 0x10};
    b[at[which]] = val[which];
    b[18] = b[19] = 0;
    uint32_t sum = 0;
    for (size_t i = 0; i < 18; i += 2) sum += b[i] << 8 | b[i + 1];
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    b[18] = static_cast<uint8_t>(~sum >> 8);
    b[19] = static_cast<uint8_t>(~sum);
    EXPECT_EQ(DecodeMsg(b, sizeof b, &got), MsgStatus::kBadField) << which;
  }
  EXPECT_EQ(EncodeMsg(Sample(), b, kMsgLen - 1), 0u);
  uint8_t f[pause::kPfcFrameLen];
  EXPECT_EQ(BuildPfcWithMsg(kSrc, pause::PauseRequest{}, Sample(), f, 59), 0u);
  // Not a PFC frame at all: a PAUSE, or a runt.
  ASSERT_EQ(BuildCheckingPacket(kSrc, Sample(), f, sizeof f), pause::kPfcFrameLen);
  f[15] = 0x01 ^ 0x01;  // opcode 0x0100
  pause::PauseRequest req;
  EXPECT_EQ(ParseFrameMsg(f, sizeof f, &req, &got), MsgStatus::kNotPfc);
  EXPECT_EQ(ParseFrameMsg(f, 20, &req, &got), MsgStatus::kNotPfc);
}

}  // namespace
}  // namespace pfc::dcfit
