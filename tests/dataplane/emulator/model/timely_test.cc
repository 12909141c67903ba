// SPDX-License-Identifier: BSD-3-Clause
// TIMELY's reaction point (emulator/model/timely.h) against sequences
// computed by hand from the algorithm in that header: the first ACK only
// records, one update per window of sequence, additive and hyper increase
// below T_LOW, the decrease above T_HIGH, the gradient region with its EWMA
// (a falling RTT can still decrease), a factor below 0, MIN_RATE and the
// line rate, the boundaries, the window, and the defaults.
#include "dataplane/emulator/model/timely.h"

#include <gtest/gtest.h>

#include <string>

namespace pfc::emulator {
namespace {

constexpr uint64_t kUs = 1'000;
constexpr uint64_t kLine = 10'000'000'000;  // 10 Gb/s

// Round numbers so each step can be checked by hand: alpha = beta = 1/2,
// T_LOW 50 us, T_HIGH 400 us, MIN_RTT 20 us, AI 100 Mb/s, HAI 500 Mb/s
// after 2 increases in a row, MIN_RATE 1 Gb/s.
TimelyParams Hand() {
  TimelyParams p;
  p.alpha = 0.5;
  p.beta = 0.5;
  p.t_low_ns = 50 * kUs;
  p.t_high_ns = 400 * kUs;
  p.min_rtt_ns = 20 * kUs;
  p.rate_ai_bps = 100'000'000;
  p.rate_hai_bps = 500'000'000;
  p.min_rate_bps = 1'000'000'000;
  p.hai_thresh = 2;
  return p;
}

// Feeds one ACK per window: the i-th (from 0) acknowledges 1000 + 10000 i
// bytes with snd_nxt 10000 (i + 1), so each is beyond the window the one
// before it recorded, and measures `rtt`.
class Flow {
 public:
  explicit Flow(TimelyRp* rp) : rp_(rp) {}
  void Ack(uint64_t rtt) {
    rp_->OnAck(t_ + rtt, t_, 1'000 + 10'000 * i_, 10'000 * (i_ + 1));
    ++i_;
    t_ += 10'000 * kUs;
  }

 private:
  TimelyRp* rp_;
  uint64_t i_ = 0, t_ = 0;
};

TEST(TimelyRp, FirstAckRecordsThenOneUpdatePerWindow) {
  TimelyRp rp(Hand(), kLine);
  EXPECT_EQ(rp.rate_bps(), kLine);
  // rtt 100 us, acknowledging 1000 of the 10000 bytes sent: only recorded.
  rp.OnAck(100 * kUs, 0, 1'000, 10'000);
  EXPECT_EQ(rp.rate_bps(), kLine);
  EXPECT_EQ(rp.last_rtt_ns(), 100 * kUs);
  EXPECT_EQ(rp.counters().decreases + rp.counters().ai, 0u);
  // Up to 10000 (the recorded snd_nxt) nothing changes, however long the
  // RTT: the simulator's fast react does nothing for TIMELY.
  rp.OnAck(2'000 * kUs, 1'000 * kUs, 5'000, 12'000);
  rp.OnAck(3'000 * kUs, 2'000 * kUs, 10'000, 14'000);
  EXPECT_EQ(rp.rate_bps(), kLine);
  EXPECT_EQ(rp.last_rtt_ns(), 100 * kUs);
  EXPECT_EQ(rp.counters().in_window, 2u);
  // Beyond it: rtt 800 us > T_HIGH: x (1 - 1/2 (1 - 400/800)) = x 0.75.
  rp.OnAck(4'800 * kUs, 4'000 * kUs, 10'001, 20'000);
  EXPECT_EQ(rp.rate_bps(), 7'500'000'000u);
  EXPECT_EQ(rp.counters().above_t_high, 1u);
  EXPECT_EQ(rp.counters().acks, 4u);
  // The EWMA: 1/2 x 0 + 1/2 x (800 - 100) us.
  EXPECT_DOUBLE_EQ(rp.rtt_diff_ns(), 350'000.0);
  // A NAK rewinds snd_nxt to what it acknowledges: 20001 is recorded, and
  // the next ACK beyond it updates again (rtt 30 us < T_LOW: + AI).
  rp.OnAck(5'030 * kUs, 5'000 * kUs, 20'001, 20'001);
  EXPECT_EQ(rp.rate_bps(), 7'600'000'000u);
  rp.OnAck(6'030 * kUs, 6'000 * kUs, 20'002, 30'000);
  EXPECT_EQ(rp.rate_bps(), 7'700'000'000u);
}

TEST(TimelyRp, HandComputedSequence) {
  TimelyRp rp(Hand(), kLine);
  Flow f(&rp);
  f.Ack(100 * kUs);  // recorded
  // 800 us > T_HIGH: 10G x 0.75 = 7.5G. rtt_diff = 1/2 x 700 us = 350 us.
  f.Ack(800 * kUs);
  EXPECT_EQ(rp.rate_bps(), 7'500'000'000u);
  EXPECT_EQ(rp.increases_in_a_row(), 0u);
  // 30 us < T_LOW: increase, whatever the gradient (rtt_diff = 175 - 385
  // = -210 us). Two additive steps, then hyper ones (2 in a row before).
  f.Ack(30 * kUs);
  EXPECT_EQ(rp.rate_bps(), 7'600'000'000u);
  EXPECT_DOUBLE_EQ(rp.rtt_diff_ns(), -210'000.0);
  f.Ack(30 * kUs);  // rtt_diff -105 us
  EXPECT_EQ(rp.rate_bps(), 7'700'000'000u);
  f.Ack(30 * kUs);  // the third in a row: + HAI; rtt_diff -52.5 us
  EXPECT_EQ(rp.rate_bps(), 8'200'000'000u);
  // 40 us: rtt_diff = -26.25 + 5 = -21.25 us; + HAI.
  f.Ack(40 * kUs);
  EXPECT_EQ(rp.rate_bps(), 8'700'000'000u);
  EXPECT_DOUBLE_EQ(rp.rtt_diff_ns(), -21'250.0);
  EXPECT_EQ(rp.counters().below_t_low, 4u);
  EXPECT_EQ(rp.counters().ai, 2u);
  EXPECT_EQ(rp.counters().hai, 2u);
  // The gradient region, 50..400 us. 100 us: rtt_diff = -10.625 + 30 =
  // 19.375 us, gradient 19.375 / 20 = 0.96875 > 0: x (1 - 0.96875 / 2) =
  // x 0.515625: 8.7G -> 4,485,937,500.
  f.Ack(100 * kUs);
  EXPECT_EQ(rp.rate_bps(), 4'485'937'500u);
  EXPECT_EQ(rp.increases_in_a_row(), 0u);
  // 90 us: the RTT fell, but rtt_diff = 9.6875 - 5 = 4.6875 us is still
  // positive: gradient 0.234375, x 0.8828125 = 3,960,241,699.21875,
  // rounded down.
  f.Ack(90 * kUs);
  EXPECT_DOUBLE_EQ(rp.rtt_diff_ns(), 4'687.5);
  EXPECT_EQ(rp.rate_bps(), 3'960'241'699u);
  // 80 us: rtt_diff = 2.34375 - 5 = -2.65625 us < 0: + AI (the count
  // restarted at the decrease).
  f.Ack(80 * kUs);
  EXPECT_EQ(rp.rate_bps(), 4'060'241'699u);
  // 80 us twice: rtt_diff -1.328125, then -0.6640625 us: + AI, + HAI.
  f.Ack(80 * kUs);
  EXPECT_EQ(rp.rate_bps(), 4'160'241'699u);
  f.Ack(80 * kUs);
  EXPECT_DOUBLE_EQ(rp.rtt_diff_ns(), -664.0625);
  EXPECT_EQ(rp.rate_bps(), 4'660'241'699u);
  EXPECT_EQ(rp.counters().ai, 4u);
  EXPECT_EQ(rp.counters().hai, 3u);
  EXPECT_EQ(rp.counters().decreases, 3u);
  EXPECT_EQ(rp.counters().above_t_high, 1u);
}

// A steep gradient makes the factor negative: it is taken as 0, and the
// rate falls to MIN_RATE, not below; the increases start from there.
TEST(TimelyRp, FloorAtMinRate) {
  TimelyRp rp(Hand(), kLine);
  Flow f(&rp);
  f.Ack(100 * kUs);
  // 200 us: rtt_diff 50 us, gradient 2.5, 1 - 2.5 / 2 < 0.
  f.Ack(200 * kUs);
  EXPECT_EQ(rp.rate_bps(), 1'000'000'000u);
  f.Ack(30 * kUs);
  EXPECT_EQ(rp.rate_bps(), 1'100'000'000u);
}

// At the line rate an increase changes nothing but still counts toward
// hyper increase. RTTs of exactly T_LOW and T_HIGH are in the gradient
// region (the tests are strict); a gradient of exactly 0 increases.
TEST(TimelyRp, CeilingAndBoundaries) {
  {
    TimelyRp rp(Hand(), kLine);
    Flow f(&rp);
    f.Ack(50 * kUs);
    f.Ack(50 * kUs);  // not < T_LOW; rtt_diff 0, gradient 0: increase
    f.Ack(50 * kUs);
    EXPECT_EQ(rp.rate_bps(), kLine);
    EXPECT_EQ(rp.counters().ai, 2u);
    EXPECT_EQ(rp.counters().below_t_low, 0u);
    EXPECT_EQ(rp.increases_in_a_row(), 2u);
  }
  {
    TimelyRp rp(Hand(), kLine);
    Flow f(&rp);
    f.Ack(400 * kUs);
    f.Ack(400 * kUs);  // not > T_HIGH; gradient 0: increase
    EXPECT_EQ(rp.rate_bps(), kLine);
    EXPECT_EQ(rp.counters().above_t_high, 0u);
    EXPECT_EQ(rp.counters().decreases, 0u);
    // 401 us > T_HIGH: x (1 - 1/2 (1 - 400/401)) = x 0.99875311..., so
    // 10G -> 9,987,531,172.069..., rounded down.
    f.Ack(401 * kUs);
    EXPECT_EQ(rp.rate_bps(), 9'987'531'172u);
    EXPECT_EQ(rp.counters().above_t_high, 1u);
  }
}

// VAR_WIN: the window follows the rate, win x rate / line rounded down,
// at least 1.
TEST(TimelyRp, Window) {
  TimelyParams p = Hand();
  EXPECT_EQ(TimelyRp(p, kLine, 100'000).window_bytes(), 0u) << "HAS_WIN 0: none";
  p.has_win = true;
  EXPECT_EQ(TimelyRp(p, kLine, 100'000).window_bytes(), 100'000u) << "VAR_WIN 0: fixed";
  p.var_win = true;
  EXPECT_EQ(TimelyRp(p, kLine, 0).window_bytes(), 0u) << "no window given";
  TimelyRp rp(p, kLine, 100'000), tiny(p, kLine, 5);
  EXPECT_EQ(rp.window_bytes(), 100'000u);
  Flow f(&rp), g(&tiny);
  f.Ack(100 * kUs);
  f.Ack(800 * kUs);  // 7.5G, as above
  EXPECT_EQ(rp.window_bytes(), 75'000u);
  // 100 us: rtt_diff = 175 - 350 us < 0: + AI, 7.6G.
  f.Ack(100 * kUs);
  EXPECT_EQ(rp.window_bytes(), 76'000u);
  g.Ack(100 * kUs);
  g.Ack(800 * kUs);  // 5 x 7.5G / 10G = 3.75: 3
  EXPECT_EQ(tiny.window_bytes(), 3u);
  // 100 us: + AI, 7.6G; 300 us: rtt_diff = -87.5 + 100 us, gradient
  // 0.625: x 0.6875 = 5,225,000,000; 5 x 5.225G / 10G = 2.6125: 2.
  g.Ack(100 * kUs);
  g.Ack(300 * kUs);
  EXPECT_EQ(tiny.rate_bps(), 5'225'000'000u);
  EXPECT_EQ(tiny.window_bytes(), 2u);
  // 1200 us > T_HIGH: x (1 - 1/2 (1 - 400/1200)) = x 2/3 each time:
  // 3.48G, 2.32G, 1.55G, 1.03G, then MIN_RATE: 5 x 1G / 10G = 0.5 rounds
  // to 0, and is 1.
  for (int i = 0; i < 5; ++i) g.Ack(1'200 * kUs);
  EXPECT_EQ(tiny.rate_bps(), 1'000'000'000u);
  EXPECT_EQ(tiny.window_bytes(), 1u);
}

// The simulator's values: run.py --cc timely --bw 100 and the attributes.
// The 6th increase in a row is the first hyper one (its constant 5).
TEST(TimelyRp, Defaults) {
  const TimelyParams p;
  TimelyRp rp(p, 100'000'000'000);
  Flow f(&rp);
  f.Ack(100 * kUs);
  // 1000 us > T_HIGH 500: x (1 - 0.8 (1 - 1/2)) = x 0.6: 60G.
  f.Ack(1'000 * kUs);
  EXPECT_EQ(rp.rate_bps(), 60'000'000'000u);
  EXPECT_DOUBLE_EQ(rp.rtt_diff_ns(), 0.875 * 900'000);
  for (int i = 0; i < 5; ++i) f.Ack(30 * kUs);  // + 100M each
  EXPECT_EQ(rp.rate_bps(), 60'500'000'000u);
  f.Ack(30 * kUs);  // + 500M
  EXPECT_EQ(rp.rate_bps(), 61'000'000'000u);
  EXPECT_EQ(rp.counters().hai, 1u);
  const std::string t = ParamsTable(TimelyParamTable());
  EXPECT_NE(t.find("| `rate_ai` | rate | 100M |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `rate_hai` | rate | 500M |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `min_rate` | rate | 1G |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `t_low` | time > 0 | 50us |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `t_high` | time > 0 | 500us |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `min_rtt` | time > 0 | 20us |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `alpha` | 0..1 | 0.875 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `beta` | 0..1 | 0.8 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `hai_thresh` | 0..1000 | 5 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `has_win` | bool | false |"), std::string::npos) << t;
}

}  // namespace
}  // namespace pfc::emulator
