// SPDX-License-Identifier: BSD-3-Clause
// HPCC's reaction point (emulator/model/hpcc.h) against sequences computed
// by hand from the algorithm in that header: the first ACK, a cut by
// u / U_TARGET, multiplicative and additive steps and MI_THRESH, u's EWMA
// over tau / T, fast reactions that leave the reference alone, the INT
// counters' wraparound, the window, MULTI_RATE, SAMPLE_FEEDBACK, the floor
// and the ceiling.
#include "dataplane/emulator/model/hpcc.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace pfc::emulator {
namespace {

// Round numbers: a 100G NIC and 100G hops, T = 10.24 us, win = the BDP,
// 100G x 10.24 us / 8 = 128,000 bytes; INT multi 1. Then a hop's u is
//   bytes units (128 B) x 1024 / tau / 100G  =  10.24 x units / tau (ns)
// + queue units (80 B) x 80 / 128,000       =  units / 1,600,
// so over tau = 10,240 ns, 1,200 byte units are u = 1.2.
// Defaults otherwise (run.py's): U_TARGET 0.95, MI_THRESH 0, RATE_AI 40M,
// MIN_RATE 1G.
constexpr uint64_t kLine = 100'000'000'000;
constexpr uint64_t kRtt = 10'240;
constexpr uint64_t kWin = 128'000;
// The rate after one cut at u = 1.2 from the line: c = 1.2 / 0.95, 100G / c
// = 79,166,666,666.67, truncated, + 40M.
constexpr uint64_t kCut12 = 79'206'666'666;

HpccParams Hand() {
  HpccParams p;
  p.line_bps = kLine;
  return p;
}

// A 100G hop's record: time (ns mod 2^24), bytes (128 B units mod 2^20),
// queue (80 B units).
net::IntHop Hop(uint32_t time, uint32_t bytes, uint32_t qlen = 0) {
  net::IntHop h;
  h.rate = 2;
  h.time = time;
  h.bytes = bytes;
  h.qlen = qlen;
  return h;
}

// One flow's ACKs, 10 KB sent before each: Rtt() acknowledges past
// last_update_seq (the first ACK, then per-RTT updates), Fast() does not
// (a fast reaction).
struct Flow {
  explicit Flow(const HpccParams& p, uint64_t win = kWin) : rp(p, kRtt, win) {}
  void Rtt(std::initializer_list<net::IntHop> h) { Ack(rp.last_update_seq() + 1, h); }
  void Fast(std::initializer_list<net::IntHop> h) { Ack(rp.last_update_seq(), h); }
  void Ack(uint64_t seq, std::initializer_list<net::IntHop> h) {
    nxt += 10'000;
    rp.OnAck(nxt, seq, nxt, h.begin(), static_cast<int>(h.size()), 1);
  }
  HpccRp rp;
  uint64_t nxt = 0;
};

TEST(HpccRp, FirstAckOnlyRecords) {
  Flow f(Hand());
  EXPECT_EQ(f.rp.rate_bps(), kLine);
  // A record that would read as a heavy queue: nothing changes yet.
  f.Rtt({Hop(0, 0, 64'000)});
  EXPECT_EQ(f.rp.rate_bps(), kLine);
  EXPECT_EQ(f.rp.ref_rate_bps(), kLine);
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.0);
  EXPECT_EQ(f.rp.last_update_seq(), 10'000u) << "snd_nxt at the first ACK";
  EXPECT_EQ(f.rp.counters().first, 1u);
  EXPECT_EQ(f.rp.counters().updates, 0u);
  // It was recorded: the next ACK's queue term is min(64,000, 0) = 0, its
  // tx term 10.24 x 1,200 / 10,240 = 1.2: the cut at 1.2.
  f.Rtt({Hop(10'240, 1'200, 0)});
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.last_update_seq(), 20'000u);
  EXPECT_EQ(f.rp.last_ack_ns(), 20'000u);
}

// u = 1.0 from the bytes + 0.2 from the queue: min(640, 320) = 320 units,
// 320 / 1,600 = 0.2 (the newer queue alone would be 0.4). tau = T, so u
// takes the sample whole: 1.2. c = 1.2 / 0.95 >= 1: multiplicative,
// 100G / c + 40M = 79,206,666,666, stage 0.
TEST(HpccRp, AboveTargetCutsByUOverTarget) {
  Flow f(Hand());
  f.Rtt({Hop(0, 0, 320)});
  f.Rtt({Hop(10'240, 1'000, 640)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.2);
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.ref_rate_bps(), kCut12);
  EXPECT_EQ(f.rp.inc_stage(), 0u);
  EXPECT_EQ(f.rp.counters().updates, 1u);
  EXPECT_EQ(f.rp.counters().mi, 1u);
}

// MI_THRESH 0 (run.py's): below the target the step is multiplicative too,
// rate = ref x 0.95 / u + 40M, up to the line.
TEST(HpccRp, BelowTargetWithMiThreshZeroIsMultiplicativeUpToTheLine) {
  Flow f(Hand());
  f.Rtt({Hop(0, 0)});
  f.Rtt({Hop(10'240, 1'200)});
  ASSERT_EQ(f.rp.rate_bps(), kCut12);
  // u = 900 units / 1,000 = 0.9: 79,206,666,666 x 0.95 / 0.9 =
  // 83,607,037,036.33 -> 83,607,037,036 + 40M.
  f.Rtt({Hop(20'480, 2'100)});
  EXPECT_EQ(f.rp.rate_bps(), 83'647'037'036u);
  EXPECT_EQ(f.rp.counters().mi, 2u);
  EXPECT_EQ(f.rp.counters().ai, 0u);
  // u = 0.5: x 1.9 = 158.9G: the line.
  f.Rtt({Hop(30'720, 2'600)});
  EXPECT_EQ(f.rp.rate_bps(), kLine);
  EXPECT_EQ(f.rp.window_bytes(), kWin);
}

// MI_THRESH 2: below the target (c < 1), two additive steps of RATE_AI,
// then a multiplicative one, which restarts the stage.
TEST(HpccRp, AdditiveIncreaseUntilMiThresh) {
  HpccParams p = Hand();
  p.mi_thresh = 2;
  Flow f(p);
  f.Rtt({Hop(0, 0)});
  f.Rtt({Hop(10'240, 1'200)});  // u 1.2, c >= 1: multiplicative, stage 0
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  f.Rtt({Hop(20'480, 1'700)});  // u 0.5, stage 0 < 2: + 40M, stage 1
  EXPECT_EQ(f.rp.rate_bps(), 79'246'666'666u);
  EXPECT_EQ(f.rp.inc_stage(), 1u);
  f.Rtt({Hop(30'720, 2'200)});  // u 0.5, stage 1 < 2: + 40M, stage 2
  EXPECT_EQ(f.rp.rate_bps(), 79'286'666'666u);
  EXPECT_EQ(f.rp.inc_stage(), 2u);
  // u 0.9, stage 2 >= 2: 79,286,666,666 x 0.95 / 0.9 = 83,691,481,480.78
  // -> 83,691,481,480 + 40M, stage 0.
  f.Rtt({Hop(40'960, 3'100)});
  EXPECT_EQ(f.rp.rate_bps(), 83'731'481'480u);
  EXPECT_EQ(f.rp.inc_stage(), 0u);
  f.Rtt({Hop(51'200, 4'000)});  // u 0.9, stage 0: additive again
  EXPECT_EQ(f.rp.rate_bps(), 83'771'481'480u);
  EXPECT_EQ(f.rp.inc_stage(), 1u);
  EXPECT_EQ(f.rp.counters().mi, 2u);
  EXPECT_EQ(f.rp.counters().ai, 3u);
}

// Two hops: hop 0 at u 0.5 over 10,240 ns, hop 1 at 10.24 x 550 / 2,560 =
// 2.2 over 2,560 ns. U is the larger, 2.2, weighted by ITS tau:
// u = (1 x (10,240 - 2,560) + 2.2 x 2,560) / 10,240 = 1.3; 100G x 0.95 /
// 1.3 = 73,076,923,076.92 -> + 40M.
TEST(HpccRp, UIsAnEwmaOverTauOfTheBusiestHop) {
  Flow f(Hand());
  f.Rtt({Hop(0, 0), Hop(0, 0)});
  f.Rtt({Hop(10'240, 500), Hop(2'560, 550)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.3);
  EXPECT_EQ(f.rp.rate_bps(), 73'116'923'076u);
  // tau past T weighs T: hop 1 at 10.24 x 2,000 / 20,480 = 1.0 over
  // 20,480 ns replaces u (hop 0 idle: 0). 73,116,923,076 x 0.95 =
  // 69,461,076,922.2 -> + 40M.
  f.Rtt({Hop(30'720, 500), Hop(23'040, 2'550)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.0);
  EXPECT_EQ(f.rp.rate_bps(), 69'501'076'922u);
}

// A sample with u = 0 on every hop leaves dt at 0: u stays 1.2 and the
// step repeats from the reference: 79,206,666,666 x 0.95 / 1.2 =
// 62,705,277,777.25 -> + 40M. (The simulator's: an idle path does not
// lower u.)
TEST(HpccRp, AnIdleSampleLeavesUAlone) {
  Flow f(Hand());
  f.Rtt({Hop(0, 0)});
  f.Rtt({Hop(10'240, 1'200)});
  f.Rtt({Hop(20'480, 1'200)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.2);
  EXPECT_EQ(f.rp.rate_bps(), 62'745'277'777u);
}

// ACKs within the RTT change the sending rate from the committed
// reference, which only a per-RTT update moves. u and the records move on
// every ACK (as in the simulator).
TEST(HpccRp, FastReactionsDoNotCommitTheReference) {
  Flow f(Hand());
  f.Rtt({Hop(0, 0)});  // last_update_seq 10,000
  f.Fast({Hop(10'240, 1'200)});
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.ref_rate_bps(), kLine);
  EXPECT_EQ(f.rp.last_update_seq(), 10'000u);
  EXPECT_EQ(f.rp.counters().fast_reacts, 1u);
  // Again u 1.2, from the uncommitted reference 100G: the same rate (from
  // the cut rate it would be 62,745,277,777).
  f.Fast({Hop(20'480, 2'400)});
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  // u carries: 2.2 over 2,560 ns from u = 1.2: (1.2 x 7,680 + 2.2 x
  // 2,560) / 10,240 = 1.45; 100G x 0.95 / 1.45 = 65,517,241,379.31 -> + 40M.
  f.Fast({Hop(23'040, 2'950)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.45);
  EXPECT_EQ(f.rp.rate_bps(), 65'557'241'379u);
  EXPECT_EQ(f.rp.ref_rate_bps(), kLine);
  EXPECT_EQ(f.rp.inc_stage(), 0u);
  // A per-RTT update at u 1.2 commits: 100G -> kCut12, last_update_seq
  // to snd_nxt.
  f.Rtt({Hop(33'280, 4'150)});
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.ref_rate_bps(), kCut12);
  EXPECT_EQ(f.rp.last_update_seq(), 50'000u);
  // Now a fast reaction starts from kCut12: x 0.95 / 1.2 + 40M.
  f.Fast({Hop(43'520, 5'350)});
  EXPECT_EQ(f.rp.rate_bps(), 62'745'277'777u);
  EXPECT_EQ(f.rp.ref_rate_bps(), kCut12);
  EXPECT_EQ(f.rp.counters().updates, 1u);
  EXPECT_EQ(f.rp.counters().fast_reacts, 4u);
}

// FAST_REACT off: an ACK within the RTT is ignored, its records too, so
// the next update measures from the record before it: 2,400 units over
// 20,480 ns = 1.2, tau weighed as T. (Had the ignored record (10,240,
// 5,000) been kept, the bytes would have wrapped to ~2^20 units.)
TEST(HpccRp, WithoutFastReactAcksWithinTheRttAreIgnored) {
  HpccParams p = Hand();
  p.fast_react = false;
  Flow f(p);
  f.Rtt({Hop(0, 0)});
  f.Fast({Hop(10'240, 5'000)});
  EXPECT_EQ(f.rp.rate_bps(), kLine);
  EXPECT_EQ(f.rp.counters().no_react, 1u);
  EXPECT_EQ(f.rp.counters().fast_reacts, 0u);
  f.Rtt({Hop(20'480, 2'400)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.2);
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
}

// The record's time wraps at 2^24 ns and its bytes at 2^20 units:
// from (2^24 - 1,000, 2^20 - 200) to (9,240, 1,000) is 10,240 ns and
// 1,200 units: u 1.2.
TEST(HpccRp, TimeAndBytesCountersWrap) {
  Flow f(Hand());
  f.Rtt({Hop((1u << 24) - 1'000, (1u << 20) - 200)});
  f.Rtt({Hop(9'240, 1'000)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 1.2);
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
}

// VAR_WIN: win x rate / line, rounded down: 128,000 x 79,206,666,666 /
// 100G = 101,384.53 -> 101,384. Without VAR_WIN the BDP; without HAS_WIN
// no window. RATE_BOUND off paces at the line whatever the rate.
TEST(HpccRp, WindowFollowsTheRate) {
  HpccParams fixed = Hand(), none = Hand(), unbound = Hand();
  fixed.var_win = false;
  none.has_win = false;
  unbound.rate_bound = false;
  Flow v(Hand()), x(fixed), n(none), u(unbound);
  for (Flow* f : {&v, &x, &n, &u}) {
    EXPECT_EQ(f->rp.window_bytes(), f == &n ? 0u : kWin);
    f->Rtt({Hop(0, 0)});
    f->Rtt({Hop(10'240, 1'200)});
    EXPECT_EQ(f->rp.rate_bps(), kCut12) << "the window does not change the rate";
  }
  EXPECT_EQ(v.rp.window_bytes(), 101'384u);
  EXPECT_EQ(x.rp.window_bytes(), kWin);
  EXPECT_EQ(n.rp.window_bytes(), 0u);
  EXPECT_TRUE(v.rp.rate_bound());
  EXPECT_EQ(v.rp.pace_bps(), kCut12);
  EXPECT_FALSE(u.rp.rate_bound());
  EXPECT_EQ(u.rp.pace_bps(), kLine);
}

// A 50-byte window: one queue unit (80 B) reads as u = 80 / 50 = 1.6, 100
// units as 160: 100G x 0.95 / 160 + 40M = 633.75M, below MIN_RATE: 1G.
// The window, 50 x 1G / 100G = 0.5, rounds to 0 and is kept at 1.
TEST(HpccRp, WindowNeverShuts) {
  Flow f(Hand(), 50);
  f.Rtt({Hop(0, 0, 100)});
  f.Rtt({Hop(10'240, 0, 100)});
  EXPECT_EQ(f.rp.rate_bps(), 1'000'000'000u);
  EXPECT_EQ(f.rp.window_bytes(), 1u);
}

// MULTI_RATE: each hop its own reference; the flow at the least.
//  1: hop 0 u 1.2 -> kCut12; hop 1 u 0.5 -> 190G -> the line. Flow kCut12.
//  2: hop 0 u 0.5 -> kCut12 x 1.9 -> the line; hop 1 u 1.2 -> from ITS
//     reference 100G: kCut12. Flow kCut12, where one rate at u 1.2 would
//     step from kCut12 to 62,745,277,777.
//  3: hop 0 at 2.2 over 2,560 ns: its u (0.5 x 7,680 + 2.2 x 2,560) /
//     10,240 = 0.925 -> the line; hop 1 u 1.2 from kCut12: 62,745,277,777.
TEST(HpccRp, MultiRateTakesTheLeastHop) {
  HpccParams p = Hand();
  p.multi_rate = true;
  Flow f(p), one(Hand());
  for (Flow* g : {&f, &one}) {
    g->Rtt({Hop(0, 0), Hop(0, 0)});
    g->Rtt({Hop(10'240, 1'200), Hop(10'240, 500)});
    EXPECT_EQ(g->rp.rate_bps(), kCut12);
    g->Rtt({Hop(20'480, 1'700), Hop(20'480, 1'700)});
  }
  EXPECT_EQ(one.rp.rate_bps(), 62'745'277'777u);
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.hop_ref_rate_bps(0), kLine);
  EXPECT_EQ(f.rp.hop_ref_rate_bps(1), kCut12);
  EXPECT_DOUBLE_EQ(f.rp.hop_u(0), 0.5);
  EXPECT_DOUBLE_EQ(f.rp.hop_u(1), 1.2);
  f.Rtt({Hop(23'040, 2'250), Hop(30'720, 2'900)});
  EXPECT_DOUBLE_EQ(f.rp.hop_u(0), 0.925);
  EXPECT_EQ(f.rp.hop_ref_rate_bps(0), kLine);
  EXPECT_EQ(f.rp.rate_bps(), 62'745'277'777u);
  EXPECT_EQ(f.rp.counters().mi, 6u) << "two hops, three updates";
}

// A full queue (2^17 - 1 units, 10,485,680 B) on both records: u =
// 131,071 / 1,600 = 81.919375. 100G x 0.95 / u = 1,159,676,816.38 -> +
// 40M = 1,199,676,816; the next step, ~54M, stops at MIN_RATE 1G.
TEST(HpccRp, NeverBelowMinRate) {
  Flow f(Hand());
  f.Rtt({Hop(0, 0, 131'071)});
  f.Rtt({Hop(10'240, 0, 131'071)});
  EXPECT_EQ(f.rp.rate_bps(), 1'199'676'816u);
  f.Rtt({Hop(20'480, 0, 131'071)});
  EXPECT_EQ(f.rp.rate_bps(), 1'000'000'000u);
  EXPECT_EQ(f.rp.ref_rate_bps(), 1'000'000'000u);
}

// SAMPLE_FEEDBACK: a fast reaction skips hops with an empty queue and
// keeps their records.
//  fast: hop 0 (queue 0) skipped; hop 1, queue 1,920 units on both
//        records: u 1.2 -> kCut12.
//  fast: both queues empty: nothing.
//  rtt:  hop 0 from its first record: 1,200 units over 20,480 ns = 0.6;
//        hop 1 queue min(0, 1,920) = 0: u 0. U 0.6, tau weighed as T:
//        u 0.6, from the reference 100G: the line. (Had hop 0's record
//        moved, U would be 0, u would stay 1.2 and the rate kCut12.)
TEST(HpccRp, SampleFeedbackSkipsEmptyQueuesWithinTheRtt) {
  HpccParams p = Hand();
  p.sample_feedback = true;
  Flow f(p);
  f.Rtt({Hop(0, 0, 0), Hop(0, 0, 1'920)});
  f.Fast({Hop(10'240, 1'200, 0), Hop(10'240, 0, 1'920)});
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.counters().sampled_out, 1u);
  f.Fast({Hop(15'000, 1'200, 0), Hop(15'000, 0, 0)});
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.counters().sampled_out, 3u);
  f.Rtt({Hop(20'480, 1'200, 0), Hop(20'480, 0, 0)});
  EXPECT_DOUBLE_EQ(f.rp.u(), 0.6);
  EXPECT_EQ(f.rp.rate_bps(), kLine);
}

// Where the simulator's arithmetic breaks: a record with no time since the
// last is ignored and kept (u would be infinite), and more than 5 hops
// (records rotated over the path) leave the rate alone; both still move
// last_update_seq.
TEST(HpccRp, UnusableRecordsAreIgnored) {
  Flow f(Hand());
  f.Rtt({Hop(0, 0)});
  f.Rtt({Hop(0, 1'200)});
  EXPECT_EQ(f.rp.rate_bps(), kLine);
  EXPECT_EQ(f.rp.counters().zero_tau, 1u);
  EXPECT_EQ(f.rp.last_update_seq(), 20'000u);
  f.Rtt({Hop(10'240, 1'200)});  // from (0, 0): u 1.2
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  const net::IntHop rotated[5] = {Hop(20'480, 9'000), Hop(20'480, 9'000), Hop(20'480, 9'000),
                                  Hop(20'480, 9'000), Hop(20'480, 9'000)};
  f.nxt += 10'000;
  f.rp.OnAck(0, f.rp.last_update_seq() + 1, f.nxt, rotated, 6, 1);
  EXPECT_EQ(f.rp.rate_bps(), kCut12);
  EXPECT_EQ(f.rp.counters().too_many_hops, 1u);
  EXPECT_EQ(f.rp.last_update_seq(), 40'000u);
  EXPECT_EQ(f.rp.counters().updates, 3u);
}

// The unit multiplier scales bytes and queue alike: at multi 4, 300 byte
// units are the 1,200 of multi 1.
TEST(HpccRp, IntMultiScalesTheUnits) {
  HpccRp rp(Hand(), kRtt, kWin);
  const net::IntHop a = Hop(0, 0), b = Hop(10'240, 300);
  rp.OnAck(0, 1, 10'000, &a, 1, 4);
  rp.OnAck(0, 10'001, 20'000, &b, 1, 4);
  EXPECT_DOUBLE_EQ(rp.u(), 1.2);
  EXPECT_EQ(rp.rate_bps(), kCut12);
}

TEST(HpccParams, TableNamesTheSimulatorsDefaults) {
  const std::string t = ParamsTable(HpccParamTable());
  EXPECT_NE(t.find("| `u_target` | 0.01..1 | 0.95 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `mi_thresh` | 0..1000 | 0 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `rate_ai` | rate | 40M |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `min_rate` | rate | 1G |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `fast_react` | bool | true |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `multi_rate` | bool | false |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `int_multi` | 1..255 | 4 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `pint_log_base` | 1.0002..16 | 1.01 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `pint_prob` | 0..1 | 1 |"), std::string::npos) << t;
  EXPECT_EQ(HpccParamTable().size(), 14u);
}

}  // namespace
}  // namespace pfc::emulator
