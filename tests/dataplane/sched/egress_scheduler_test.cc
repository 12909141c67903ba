// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the egress scheduler with an injected (virtual) clock:
// strict priority, DWRR byte shares, pause masks, and the shaper's rate and
// wake-up times.
#include "dataplane/sched/egress_scheduler.h"

#include <gtest/gtest.h>

#include <array>
#include <random>

namespace pfc {
namespace {

// Always-backlogged queues with random packet sizes, served the way the
// egress stage does: pick, send at least one packet, stop once the budget is
// used, then report the bytes.
struct Sim {
  sched::EgressScheduler s;
  std::array<uint64_t, 8> bytes{};
  std::mt19937 rng{7};
  uint32_t min_len = 64, max_len = 1500;

  uint32_t NextLen() { return min_len + rng() % (max_len - min_len + 1); }
  // One Pick/Sent round at now; returns the queue or -1 (ready in *ready).
  int Round(uint8_t nonempty, uint8_t paused, uint64_t now, uint64_t* ready = nullptr) {
    uint32_t budget = 0;
    uint64_t r = 0;
    const int q = s.Pick(nonempty, paused, now, &budget, &r);
    if (ready) *ready = r;
    if (q < 0) return q;
    EXPECT_TRUE((nonempty >> q) & 1);
    EXPECT_FALSE((paused >> q) & 1);
    EXPECT_GT(budget, 0u);
    uint64_t sent = 0;
    int pkts = 0;
    do {
      sent += NextLen();
      ++pkts;
    } while (sent < budget && pkts < 32);
    bytes[q] += sent;
    s.Sent(q, static_cast<uint32_t>(sent), now);
    return q;
  }
};

TEST(EgressScheduler, StrictServesHighestUnpausedPriority) {
  sched::EgressScheduler s;
  s.Configure(sched::SchedConfig{}, 0);
  uint32_t budget = 0;
  uint64_t ready = 123;
  EXPECT_EQ(s.Pick(0b1010'0101, 0, 0, &budget, &ready), 7);
  EXPECT_EQ(budget, 0xffffffffu);  // no shaper: no byte limit
  EXPECT_EQ(s.Pick(0b1010'0101, 0b1000'0000, 0, &budget, &ready), 5);
  EXPECT_EQ(s.Pick(0b1010'0101, 0b1010'0000, 0, &budget, &ready), 2);
  EXPECT_EQ(s.Pick(0b0000'0001, 0, 0, &budget, &ready), 0);
  // Everything paused or empty: nothing to do, and no shaper wake-up.
  EXPECT_EQ(s.Pick(0b1010'0101, 0b1010'0101, 0, &budget, &ready), -1);
  EXPECT_EQ(ready, kNever);
  EXPECT_EQ(s.Pick(0, 0, 0, &budget, nullptr), -1);
}

TEST(EgressScheduler, StrictStarvesLowerPriorities) {
  Sim sim;
  sim.s.Configure(sched::SchedConfig{}, 0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(sim.Round(0b0100'1001, 0, 0), 6);
  EXPECT_EQ(sim.bytes[0] + sim.bytes[3], 0u);
}

// Long-run byte shares are proportional to the quanta.
void ExpectShares(const std::array<uint32_t, 8>& quantum, uint8_t nonempty, uint8_t paused,
                  uint32_t min_len, uint32_t max_len, double tol) {
  Sim sim;
  sim.min_len = min_len;
  sim.max_len = max_len;
  sched::SchedConfig c;
  c.mode = sched::SchedMode::kDwrr;
  c.quantum = quantum;
  sim.s.Configure(c, 0);
  for (int i = 0; i < 200000; ++i) ASSERT_GE(sim.Round(nonempty, paused, 0), 0);
  const uint8_t served = nonempty & ~paused;
  uint64_t total = 0, qsum = 0;
  for (int q = 0; q < 8; ++q) {
    if ((served >> q) & 1) {
      total += sim.bytes[q];
      qsum += quantum[q] ? quantum[q] : sched::EgressScheduler::kDefaultQuantum;
    } else {
      EXPECT_EQ(sim.bytes[q], 0u) << "queue " << q << " is empty or paused";
    }
  }
  for (int q = 0; q < 8; ++q) {
    if (!((served >> q) & 1)) continue;
    const double want = static_cast<double>(quantum[q] ? quantum[q] : 1500) / qsum;
    const double got = static_cast<double>(sim.bytes[q]) / total;
    EXPECT_NEAR(got, want, want * tol) << "queue " << q;
  }
}

TEST(EgressScheduler, DwrrByteSharesFollowQuanta) {
  ExpectShares({1500, 3000, 4500, 0, 9000, 1500, 1500, 1500}, 0b0001'1111, 0, 64, 1500, 0.01);
}

TEST(EgressScheduler, DwrrPausedQueueGetsNothingOthersShare) {
  ExpectShares({2000, 2000, 6000, 2000, 2000, 2000, 2000, 2000}, 0b0000'0111, 0b0000'0010, 64, 1500,
               0.01);
}

TEST(EgressScheduler, DwrrJumboPacketsAgainstSmallQuanta) {
  // Each 9000-byte packet overdraws the deficit for many rounds; the debt is
  // repaid (fast-forwarded) and the shares stay exact.
  ExpectShares({100, 300, 1, 1, 1, 1, 1, 1}, 0b0000'0011, 0, 9000, 9000, 0.01);
  ExpectShares({64, 640, 6400, 1, 1, 1, 1, 1}, 0b0000'0111, 0, 64, 9000, 0.02);
}

TEST(EgressScheduler, DwrrIdleQueueDoesNotSaveCredit) {
  sched::SchedConfig c;
  c.mode = sched::SchedMode::kDwrr;
  c.quantum.fill(1000);
  sched::EgressScheduler s;
  s.Configure(c, 0);
  uint32_t budget = 0;
  // Queue 0 is picked with one quantum, sends 100 bytes and goes empty.
  ASSERT_EQ(s.Pick(0b01, 0, 0, &budget, nullptr), 0);
  EXPECT_EQ(budget, 1000u);
  s.Sent(0, 100, 0);
  // Queue 1 alone for a while: queue 0's leftover 900 is forfeited.
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(s.Pick(0b10, 0, 0, &budget, nullptr), 1);
    s.Sent(1, budget, 0);
  }
  EXPECT_EQ(s.deficit(0), 0);
  ASSERT_EQ(s.Pick(0b01, 0, 0, &budget, nullptr), 0);
  EXPECT_EQ(budget, 1000u);  // a fresh quantum, not 1900
}

TEST(EgressScheduler, DwrrBudgetIsTheDeficit) {
  sched::SchedConfig c;
  c.mode = sched::SchedMode::kDwrr;
  c.quantum = {0, 0, 0, 4000, 0, 0, 0, 0};
  sched::EgressScheduler s;
  s.Configure(c, 0);
  uint32_t budget = 0;
  ASSERT_EQ(s.Pick(0b1000, 0, 0, &budget, nullptr), 3);
  EXPECT_EQ(budget, 4000u);
  s.Sent(3, 1500, 0);
  ASSERT_EQ(s.Pick(0b1000, 0, 0, &budget, nullptr), 3);  // same turn
  EXPECT_EQ(budget, 2500u);
  s.Sent(3, 3000, 0);                                    // overdraw by 500
  ASSERT_EQ(s.Pick(0b1000, 0, 0, &budget, nullptr), 3);  // next turn repays
  EXPECT_EQ(budget, 3500u);
}

// Serves always-backlogged queues for one virtual second; the shaper must
// hold the byte count within 1% of the rate (the bucket depth is the only
// allowed excess).
uint64_t ShapedBytes(uint64_t bps, uint32_t burst, uint32_t min_len, uint32_t max_len,
                     sched::SchedMode mode) {
  Sim sim;
  sim.min_len = min_len;
  sim.max_len = max_len;
  sched::SchedConfig c;
  c.mode = mode;
  c.shaper_bps = bps;
  c.shaper_burst = burst;
  sim.s.Configure(c, 1000);
  uint64_t now = 1000;
  const uint64_t end = now + 1'000'000'000;
  int waits = 0;
  while (now < end) {
    uint64_t ready = 0;
    if (sim.Round(0b1111'1111, 0b0000'1000, now, &ready) < 0) {
      if (ready <= now) {
        ADD_FAILURE() << "shaper wake-up " << ready << " not after now " << now;
        break;
      }
      now = ready;
      ++waits;
    }
  }
  EXPECT_GT(waits, 100);
  uint64_t total = 0;
  for (uint64_t b : sim.bytes) total += b;
  return total;
}

TEST(EgressScheduler, ShaperHoldsRateOverOneVirtualSecond) {
  struct Case {
    uint64_t bps;
    uint32_t burst, min_len, max_len;
    sched::SchedMode mode;
  };
  for (const Case& k : {Case{10'000'000'000, 16384, 64, 1500, sched::SchedMode::kStrict},
                        Case{25'000'000'000, 65536, 1500, 1500, sched::SchedMode::kDwrr},
                        Case{1'000'000'000, 3000, 64, 64, sched::SchedMode::kStrict},
                        Case{100'000'000'000, 9216 * 4, 64, 9216, sched::SchedMode::kDwrr},
                        Case{3'333'333'333, 4096, 100, 1400, sched::SchedMode::kDwrr}}) {
    const double want = k.bps / 8.0;
    const double got =
        static_cast<double>(ShapedBytes(k.bps, k.burst, k.min_len, k.max_len, k.mode));
    EXPECT_NEAR(got, want, want * 0.01) << k.bps << " bit/s";
    EXPECT_GE(got, want - k.max_len);  // and not under-delivering either
  }
}

TEST(EgressScheduler, ReadyNsIsTheFirstInstantWithTokens) {
  for (uint64_t bps : {10'000'000'000ull, 1'000'000'000ull, 7'000'000'000ull, 999'999ull}) {
    sched::SchedConfig c;
    c.shaper_bps = bps;
    c.shaper_burst = 2000;
    sched::EgressScheduler s;
    s.Configure(c, 5000);
    uint32_t budget = 0;
    uint64_t ready = 0;
    ASSERT_EQ(s.Pick(1, 0, 5000, &budget, &ready), 0);
    EXPECT_EQ(budget, 2000u);      // the bucket starts full
    s.Sent(0, 2000 + 1517, 5000);  // last packet overdraws by 1517
    EXPECT_EQ(s.tokens(), -1517);
    ASSERT_EQ(s.Pick(1, 0, 5000, &budget, &ready), -1);
    // 1518 bytes of credit: ceil(1518 x 8e9 / bps) ns.
    const uint64_t expect = 5000 + (1518ull * 8'000'000'000ull + bps - 1) / bps;
    EXPECT_EQ(ready, expect) << bps;
    // One ns early is still too early (a fresh scheduler, same history).
    sched::EgressScheduler t;
    t.Configure(c, 5000);
    t.Sent(0, 2000 + 1517, 5000);
    EXPECT_EQ(t.Pick(1, 0, ready - 1, &budget, nullptr), -1) << bps;
    EXPECT_EQ(s.Pick(1, 0, ready, &budget, nullptr), 0) << bps;
    EXPECT_EQ(budget, 1u);
  }
}

TEST(EgressScheduler, RefillCarriesFractionsWithoutDrift) {
  // 1 Gb/s = one byte per 8 ns. Refilling every 3 ns must not lose the
  // fractions: after 8 x 3000 ns exactly 3000 bytes have accrued.
  sched::SchedConfig c;
  c.shaper_bps = 1'000'000'000;
  c.shaper_burst = 1 << 20;
  sched::EgressScheduler s;
  s.Configure(c, 0);
  s.Sent(0, 1 << 20, 0);
  EXPECT_EQ(s.tokens(), 0);
  uint32_t budget;
  uint64_t now = 0;
  for (int i = 0; i < 8000; ++i) {
    now += 3;
    s.Pick(0, 0, now, &budget, nullptr);  // nothing eligible: no refill needed
    s.Sent(0, 0, now);                    // Sent refills
  }
  EXPECT_EQ(s.tokens(), 3000);
}

TEST(EgressScheduler, LongIdleFillsBucketWithoutOverflow) {
  sched::SchedConfig c;
  c.shaper_bps = 400'000'000'000ull;
  c.shaper_burst = 100000;
  sched::EgressScheduler s;
  s.Configure(c, 0);
  s.Sent(0, 100000, 0);
  uint32_t budget = 0;
  ASSERT_EQ(s.Pick(1, 0, 1'000'000'000'000'000'000ull, &budget, nullptr), 0);
  EXPECT_EQ(budget, 100000u);
  // A clock that steps back does not add or remove tokens.
  ASSERT_EQ(s.Pick(1, 0, 5, &budget, nullptr), 0);
  EXPECT_EQ(budget, 100000u);
}

TEST(EgressScheduler, DefaultsFillZeroQuantaAndBurst) {
  sched::SchedConfig c;
  c.mode = sched::SchedMode::kDwrr;
  c.shaper_bps = 10'000'000'000;
  sched::EgressScheduler s;
  s.Configure(c, 0);
  EXPECT_EQ(s.config().quantum[5], sched::EgressScheduler::kDefaultQuantum);
  EXPECT_EQ(s.config().shaper_burst, sched::EgressScheduler::kDefaultShaperBurst);
  EXPECT_EQ(s.tokens(), sched::EgressScheduler::kDefaultShaperBurst);
}

}  // namespace
// The egress stage often sends less than the whole budget per Pick (one MTU
// frame of a 3000-byte deficit). A queue whose turn ends must hand a fresh
// quantum to the next queue; this once spun forever on the second queue.
TEST(EgressScheduler, DwrrPartialBudgetTurnsPassToEveryQueue) {
  sched::EgressScheduler s;
  sched::SchedConfig c;
  c.mode = sched::SchedMode::kDwrr;
  c.quantum.fill(1500);
  s.Configure(c, 0);
  std::array<uint64_t, 8> sent{};
  for (int i = 0; i < 1000; ++i) {
    uint32_t budget = 0;
    const int q = s.Pick(0b1000'0001, 0, 0, &budget, nullptr);
    ASSERT_TRUE(q == 0 || q == 7) << "iteration " << i;
    ASSERT_GT(budget, 0u);
    s.Sent(q, 1000, 0);
    sent[q] += 1000;
  }
  EXPECT_NEAR(static_cast<double>(sent[0]) / sent[7], 1.0, 0.01);
}

}  // namespace pfc
