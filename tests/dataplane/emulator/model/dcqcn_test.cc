// SPDX-License-Identifier: BSD-3-Clause
// DCQCN's reaction and notification points (emulator/model/dcqcn.h)
// against sequences computed by hand from the algorithm in that header:
// the first CNP, alpha's decay, a cut, fast recovery, additive and hyper
// increase, the target clamped on a later cut, the minimum rate, timers due
// at one instant in the order they were scheduled (as ns-3 runs them), and
// the receiver's CNP spacing.
#include "dataplane/emulator/model/dcqcn.h"

#include <gtest/gtest.h>

namespace pfc::emulator {
namespace {

constexpr uint64_t kUs = 1'000;

// Round numbers so each step can be checked by hand: 10 Gb/s, g = 1/2,
// alpha every 10 us, a decrease check every 40 us, increases every 100 us
// after a cut, one fast-recovery step, AI 100 Mb/s, HAI 1 Gb/s.
DcqcnParams Hand() {
  DcqcnParams p;
  p.line_bps = 10'000'000'000;
  p.ewma_gain = 0.5;
  p.alpha_resume_interval_ns = 10 * kUs;
  p.rate_decrease_interval_ns = 40 * kUs;
  p.rp_timer_ns = 100 * kUs;
  p.fast_recovery_times = 1;
  p.rate_ai_bps = 100'000'000;
  p.rate_hai_bps = 1'000'000'000;
  p.min_rate_bps = 100'000'000;
  return p;
}

TEST(DcqcnRp, LineRateAndNoTimersUntilTheFirstCnp) {
  DcqcnRp rp(Hand());
  EXPECT_EQ(rp.rate_bps(), 10'000'000'000u);
  EXPECT_FALSE(rp.active());
  EXPECT_EQ(rp.NextEventNs(), kNever);
  rp.Advance(1'000'000'000);
  EXPECT_EQ(rp.rate_bps(), 10'000'000'000u);
}

TEST(DcqcnRp, HandComputedSequence) {
  DcqcnRp rp(Hand());
  // t = 0: the first CNP. alpha = 1, not counted again; timers start:
  // alpha at 10 us, the decrease check at 40 us + 1 ns.
  rp.OnCnp(0);
  EXPECT_TRUE(rp.active());
  EXPECT_EQ(rp.NextEventNs(), 10 * kUs);
  // Alpha at 10, 20, 30, 40 us, no CNP since: 1/2, 1/4, 1/8, 1/16.
  rp.Advance(40 * kUs);
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.0625);
  EXPECT_EQ(rp.rate_bps(), 10'000'000'000u) << "the cut waits for the check";
  // 40 us + 1 ns: the check sees the first CNP. Stage 0, no clamp: the
  // target stays 10G; rate = 10G x (1 - 0.0625 / 2) = 9.6875G.
  rp.Advance(40 * kUs + 1);
  EXPECT_EQ(rp.rate_bps(), 9'687'500'000u);
  EXPECT_EQ(rp.target_bps(), 10'000'000'000u);
  EXPECT_EQ(rp.counters().cuts, 1u);
  // Checks at 80 and 120 us find no CNP. 140 us + 1 ns: the first increase,
  // stage 0 < 1: fast recovery, (9.6875G + 10G) / 2 = 9.84375G.
  rp.Advance(140 * kUs + 1);
  EXPECT_EQ(rp.counters().cuts, 1u);
  EXPECT_EQ(rp.rate_bps(), 9'843'750'000u);
  EXPECT_EQ(rp.counters().recoveries, 1u);
  // Alpha has halved every 10 us since: 0.0625 / 2^11 at 150 us.
  // t = 150 us: a CNP, after that instant's alpha update.
  rp.OnCnp(150 * kUs);
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.0625 / 2048);
  // 160 us: alpha = 1/2 x 0.0625/2048 + 1/2 = 0.5000152587890625.
  rp.Advance(160 * kUs);
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.5000152587890625);
  // 160 us + 1 ns: a cut after an increase (stage 1): the target clamps
  // to the rate, 9.84375G; rate = 9.84375G x (1 - alpha / 2), rounded down.
  rp.Advance(160 * kUs + 1);
  EXPECT_EQ(rp.target_bps(), 9'843'750'000u);
  EXPECT_EQ(rp.rate_bps(), 7'382'737'398u);
  // 260 us + 1 ns: fast recovery, 7382737398/2 + 9843750000/2.
  rp.Advance(260 * kUs + 1);
  EXPECT_EQ(rp.rate_bps(), 8'613'243'699u);
  // 360 us + 1 ns: stage 1 = FAST_RECOVERY_TIMES: additive increase, the
  // target up by 100M first: 9.94375G; rate 4306621849 + 4971875000.
  rp.Advance(360 * kUs + 1);
  EXPECT_EQ(rp.target_bps(), 9'943'750'000u);
  EXPECT_EQ(rp.rate_bps(), 9'278'496'849u);
  EXPECT_EQ(rp.counters().ai, 1u);
  // 460 us + 1 ns: hyper increase, the target up by 1G but not past the
  // line: 10G; rate 4639248424 + 5000000000.
  rp.Advance(460 * kUs + 1);
  EXPECT_EQ(rp.target_bps(), 10'000'000'000u);
  EXPECT_EQ(rp.rate_bps(), 9'639'248'424u);
  EXPECT_EQ(rp.counters().hai, 1u);
  EXPECT_EQ(rp.counters().cnps, 2u);
  EXPECT_EQ(rp.counters().cuts, 2u);
}

// RP_TIMER a multiple of RATE_DECREASE_INTERVAL (the simulator's run.py
// values, 300 and 4 us, are): an increase and a decrease check fall due at
// one instant, and run as ns-3 runs them, in the order they were
// scheduled: the increase (scheduled by the cut) before the check
// (scheduled 4 us before). g = 0 keeps alpha at 1, so a cut halves.
TEST(DcqcnRp, TimersAtOneInstantRunInTheOrderScheduled) {
  DcqcnParams p = Hand();
  p.ewma_gain = 0;
  p.alpha_resume_interval_ns = 1 * kUs;
  p.rate_decrease_interval_ns = 4 * kUs;
  p.rp_timer_ns = 8 * kUs;
  p.fast_recovery_times = 5;
  p.clamp_target_rate = false;
  DcqcnRp rp(p);
  rp.OnCnp(0);
  // 4 us + 1 ns: the first cut, stage 0, no clamp: target 10G, rate 5G;
  // the increase timer now due at 12 us + 1 ns.
  rp.Advance(4 * kUs + 1);
  EXPECT_EQ(rp.rate_bps(), 5'000'000'000u);
  // 8 us + 1 ns: a check with no CNP, rescheduled for 12 us + 1 ns too.
  rp.Advance(8 * kUs + 1);
  rp.OnCnp(10 * kUs);
  // 12 us + 1 ns: first the increase (fast recovery: (5G + 10G) / 2 =
  // 7.5G, stage 1), then the check: the CNP cuts after an increase, so the
  // target clamps to 7.5G, and the rate halves to 3.75G. (The check
  // first would have cut 5G to 2.5G with the target left at 10G.)
  rp.Advance(12 * kUs + 1);
  EXPECT_EQ(rp.counters().recoveries, 1u);
  EXPECT_EQ(rp.counters().cuts, 2u);
  EXPECT_EQ(rp.target_bps(), 7'500'000'000u);
  EXPECT_EQ(rp.rate_bps(), 3'750'000'000u);
  // The cut restarted the increase timer: due 8 us later.
  EXPECT_EQ(rp.NextEventNs(), 13 * kUs);  // alpha's, every 1 us
  rp.Advance(20 * kUs);
  EXPECT_EQ(rp.counters().recoveries, 1u) << "no increase before 20 us + 1 ns";
  rp.Advance(20 * kUs + 1);
  EXPECT_EQ(rp.counters().recoveries, 2u);
}

// g = 0 keeps alpha at 1: every cut halves, never below MIN_RATE.
TEST(DcqcnRp, NeverBelowTheMinimumRate) {
  DcqcnParams p = Hand();
  p.ewma_gain = 0;
  p.min_rate_bps = 3'000'000'000;
  DcqcnRp rp(p);
  rp.OnCnp(0);
  rp.Advance(40 * kUs + 1);
  EXPECT_EQ(rp.rate_bps(), 5'000'000'000u);
  rp.OnCnp(50 * kUs);
  rp.Advance(80 * kUs + 1);
  EXPECT_EQ(rp.rate_bps(), 3'000'000'000u) << "2.5G is below MIN_RATE";
}

// With the byte counter on, bytes sent are increase events too, and the
// phase follows the paper's rule on both counts (before the event):
// max(T, BC) < F fast recovery, min(T, BC) > F hyper, else additive.
TEST(DcqcnRp, ByteCounterHandComputed) {
  DcqcnParams p = Hand();
  p.ewma_gain = 0;  // alpha stays 1: a cut halves the rate
  p.rate_on_first_cnp = 0.5;
  p.byte_counter_bytes = 1'000'000;
  DcqcnRp rp(p);
  rp.OnSent(5'000'000, 0);
  EXPECT_EQ(rp.counters().byte_counter, 0u) << "nothing before the first CNP";
  rp.OnCnp(0);               // rate = target = 5G
  rp.Advance(40 * kUs + 1);  // the cut: 2.5G, target 5G; T = BC = 0
  EXPECT_EQ(rp.rate_bps(), 2'500'000'000u);
  rp.OnSent(500'000, 50 * kUs);
  EXPECT_EQ(rp.rate_bps(), 2'500'000'000u) << "half a counter";
  rp.OnSent(500'000, 50 * kUs);  // BC event: T 0, BC 0: fast recovery
  EXPECT_EQ(rp.rate_bps(), 3'750'000'000u);
  rp.OnSent(1'000'000, 60 * kUs);  // T 0, BC 1: additive, target 5.1G
  EXPECT_EQ(rp.target_bps(), 5'100'000'000u);
  EXPECT_EQ(rp.rate_bps(), 4'425'000'000u);
  rp.Advance(140 * kUs + 1);  // the timer: T 0, BC 2: additive (min is 0)
  EXPECT_EQ(rp.rate_bps(), 4'812'500'000u);
  rp.OnSent(1'000'000, 150 * kUs);  // T 1, BC 2: additive (min 1 is not > F)
  EXPECT_EQ(rp.rate_bps(), 5'056'250'000u);
  rp.Advance(240 * kUs + 1);  // T 1, BC 3: additive, target 5.4G
  EXPECT_EQ(rp.rate_bps(), 5'228'125'000u);
  rp.OnSent(1'000'000, 250 * kUs);  // T 2, BC 3: hyper, target 6.4G
  EXPECT_EQ(rp.target_bps(), 6'400'000'000u);
  EXPECT_EQ(rp.rate_bps(), 5'814'062'500u);
  EXPECT_EQ(rp.counters().byte_counter, 4u);
  EXPECT_EQ(rp.counters().recoveries, 1u);
  EXPECT_EQ(rp.counters().ai, 4u);
  EXPECT_EQ(rp.counters().hai, 1u);
}

// The first CNP may cut at once (the simulator's RateOnFirstCnp).
TEST(DcqcnRp, RateOnFirstCnp) {
  DcqcnParams p = Hand();
  p.rate_on_first_cnp = 0.5;
  DcqcnRp rp(p);
  rp.OnCnp(7);
  EXPECT_EQ(rp.rate_bps(), 5'000'000'000u);
  EXPECT_EQ(rp.target_bps(), 5'000'000'000u);
}

// The same CNPs at the same times give the same rates (the emulator's
// runs repeat byte for byte).
TEST(DcqcnRp, Deterministic) {
  DcqcnParams p;  // the simulator's defaults
  p.line_bps = 40'000'000'000;
  DcqcnRp a(p), b(p);
  for (uint64_t t = 0; t < 5'000'000; t += 37'000) {
    if (t % 3 == 0) {
      a.OnCnp(t);
      b.OnCnp(t);
    }
    a.Advance(t);
    b.Advance(t);
    ASSERT_EQ(a.rate_bps(), b.rate_bps());
  }
  EXPECT_LT(a.rate_bps(), p.line_bps);
  EXPECT_GE(a.rate_bps(), p.min_rate_bps);
}

TEST(DcqcnNp, AtMostOneCnpPerInterval) {
  DcqcnNp np(50 * kUs);
  EXPECT_TRUE(np.OnCe(0));
  EXPECT_FALSE(np.OnCe(10 * kUs));
  EXPECT_FALSE(np.OnCe(50 * kUs - 1));
  EXPECT_TRUE(np.OnCe(50 * kUs));
  EXPECT_FALSE(np.OnCe(60 * kUs));
  EXPECT_TRUE(np.OnCe(1'000 * kUs));
}

}  // namespace
}  // namespace pfc::emulator
