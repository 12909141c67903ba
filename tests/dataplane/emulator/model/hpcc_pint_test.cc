// SPDX-License-Identifier: BSD-3-Clause
// HPCC-PINT's reaction point (emulator/model/hpcc_pint.h) against
// sequences worked by hand from that header: the first ACK only marks,
// fast reactions change the rate from the reference, a per-RTT update
// commits it, additive steps under MI_THRESH, the floor, the window, and
// PINT_PROB's sampling; and AckCc's wiring of the mode (trailer kind, the
// echo it reads).
#include "dataplane/emulator/model/hpcc_pint.h"

#include <gtest/gtest.h>

#include <cmath>

#include "dataplane/emulator/model/ack_cc.h"
#include "dataplane/net/int_trailer.h"

namespace pfc::emulator {
namespace {

constexpr uint64_t kLine = 100'000'000'000;
constexpr uint64_t kWin = 153'000;

HpccParams Hand() {
  HpccParams p;  // run.py's: U_TARGET 0.95, MI_THRESH 0, RATE_AI 40M, MIN_RATE 1G, base 1.01
  p.line_bps = kLine;
  return p;
}

// Powers of 1.01 and what they cut 100G to: U = 1.01^p / 512, c = U /
// 0.95, trunc(100G / c) + 40M.
constexpr uint16_t kP691 = 691;  // U = 1.89147
constexpr uint64_t kCut691 = 50'265'501'569;
constexpr uint16_t kP650 = 650;  // U = 1.25783
constexpr uint64_t kCut650 = 75'566'717'065;

TEST(HpccPint, FirstAckOnlyMarks) {
  HpccPintRp rp(Hand(), kWin, 1);
  rp.OnAck(0, 1'000, 10'000, kP691);
  EXPECT_EQ(rp.rate_bps(), kLine);
  EXPECT_EQ(rp.last_update_seq(), 10'000u);
  EXPECT_EQ(rp.counters().first, 1u);
}

TEST(HpccPint, FastReactionLeavesTheReference) {
  HpccPintRp rp(Hand(), kWin, 1);
  rp.OnAck(0, 1'000, 10'000, 0);
  rp.OnAck(0, 2'000, 20'000, kP691);  // 2,000 <= 10,000: fast
  EXPECT_EQ(rp.rate_bps(), kCut691);
  EXPECT_EQ(rp.ref_rate_bps(), kLine);
  EXPECT_EQ(rp.last_update_seq(), 10'000u);
  // Another fast one starts again from the reference, not the rate.
  rp.OnAck(0, 3'000, 20'000, kP650);
  EXPECT_EQ(rp.rate_bps(), kCut650);
  EXPECT_EQ(rp.counters().fast_reacts, 2u);
}

TEST(HpccPint, PerRttUpdateCommits) {
  HpccPintRp rp(Hand(), kWin, 1);
  rp.OnAck(0, 1'000, 10'000, 0);
  rp.OnAck(0, 11'000, 30'000, kP691);  // past 10,000: per RTT
  EXPECT_EQ(rp.rate_bps(), kCut691);
  EXPECT_EQ(rp.ref_rate_bps(), kCut691);
  EXPECT_EQ(rp.last_update_seq(), 30'000u);
  // The next cut is from the committed reference.
  rp.OnAck(0, 31'000, 40'000, kP691);
  const double c = std::pow(1.01, 691) / 512 / 0.95;
  EXPECT_EQ(rp.rate_bps(), uint64_t(double(kCut691) / c) + 40'000'000);
  EXPECT_EQ(rp.counters().mi, 2u);
  // A low utilisation (c < 1) with MI_THRESH 0 is still multiplicative:
  // the rate rises past the line and is held there.
  rp.OnAck(0, 41'000, 50'000, 0);
  EXPECT_EQ(rp.rate_bps(), kLine);
}

TEST(HpccPint, AdditiveUnderMiThreshAndTheFloor) {
  HpccParams p = Hand();
  p.mi_thresh = 2;
  HpccPintRp rp(p, kWin, 1);
  rp.OnAck(0, 1'000, 10'000, 0);
  rp.OnAck(0, 11'000, 20'000, kP691);  // c >= 1: multiplicative, stage 0
  EXPECT_EQ(rp.ref_rate_bps(), kCut691);
  rp.OnAck(0, 21'000, 30'000, 600);  // U 0.7648, c < 1, stage 0 < 2: + AI
  EXPECT_EQ(rp.ref_rate_bps(), kCut691 + 40'000'000);
  EXPECT_EQ(rp.inc_stage(), 1u);
  rp.OnAck(0, 31'000, 40'000, 600);
  EXPECT_EQ(rp.inc_stage(), 2u);
  rp.OnAck(0, 41'000, 50'000, 600);  // stage 2: multiplicative again
  EXPECT_EQ(rp.inc_stage(), 0u);
  EXPECT_EQ(rp.counters().ai, 2u);
  // A huge utilisation stops at MIN_RATE.
  rp.OnAck(0, 51'000, 60'000, 2000);
  EXPECT_EQ(rp.rate_bps(), 1'000'000'000u);
}

TEST(HpccPint, AnyPowerOnTheWireIsARate) {
  // The largest power decodes to an infinite utilisation: the rate falls
  // to MIN_RATE, never below, never NaN.
  HpccPintRp rp(Hand(), kWin, 1);
  rp.OnAck(0, 1'000, 10'000, 0);
  rp.OnAck(0, 11'000, 20'000, 0xffff);
  EXPECT_EQ(rp.rate_bps(), 1'000'000'000u);
  EXPECT_EQ(rp.window_bytes(),
            uint64_t(static_cast<unsigned __int128>(kWin) * 1'000'000'000 / kLine));
  rp.OnAck(0, 21'000, 30'000, 0);  // and recovers from there
  EXPECT_EQ(rp.rate_bps(), kLine);
}

TEST(HpccPint, WindowScalesWithTheRate) {
  HpccPintRp rp(Hand(), kWin, 1);
  EXPECT_EQ(rp.window_bytes(), kWin);
  rp.OnAck(0, 1'000, 10'000, 0);
  rp.OnAck(0, 11'000, 30'000, kP691);
  EXPECT_EQ(rp.window_bytes(), uint64_t(static_cast<unsigned __int128>(kWin) * kCut691 / kLine));
  EXPECT_EQ(rp.pace_bps(), kCut691);
}

TEST(HpccPint, PintProbSamplesTheAcks) {
  HpccParams p = Hand();
  p.pint_prob = 0.25;
  HpccPintRp rp(p, kWin, 42);
  for (int i = 0; i < 4000; i++) rp.OnAck(0, 1'000 + i, 10'000, kP691);
  EXPECT_EQ(rp.counters().acks, 4000u);
  EXPECT_NEAR(double(rp.counters().sampled_out), 3000, 150);
  HpccPintRp all(Hand(), kWin, 42);
  for (int i = 0; i < 100; i++) all.OnAck(0, 1'000 + i, 10'000, kP691);
  EXPECT_EQ(all.counters().sampled_out, 0u) << "PINT_PROB 1 uses every ACK";
}

TEST(HpccPint, AckCcReadsThePintEcho) {
  AckCcParams p;
  AckCc cc(AckCcMode::kHpccPint, p, kLine, 12'000, kWin, 1000, 3);
  EXPECT_EQ(cc.trailer_kind(), net::kIntPint);
  EXPECT_STREQ(AckCcName(cc.mode()), "hpcc_pint");
  uint8_t t[net::kIntHopsBytes] = {};
  net::WriteIntTrailer(t, net::kIntPintEcho, 1);
  net::RaiseIntPintPower(t, kP691);
  cc.OnAck(0, 1'000, 10'000, t, false);
  cc.OnAck(0, 11'000, 30'000, t, false);
  EXPECT_EQ(cc.pace_bps(), kCut691);
  // A data frame's trailer (not an echo) or none: counted, ignored.
  net::WriteIntTrailer(t, net::kIntPint, 1);
  cc.OnAck(0, 31'000, 40'000, t, false);
  cc.OnAck(0, 41'000, 50'000, nullptr, false);
  EXPECT_EQ(cc.acks_without_echo(), 2u);
  EXPECT_EQ(cc.hpcc_pint()->counters().acks, 2u);
}

}  // namespace
}  // namespace pfc::emulator
