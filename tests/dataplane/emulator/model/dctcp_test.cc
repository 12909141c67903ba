// SPDX-License-Identifier: BSD-3-Clause
// DCTCP's reaction point (emulator/model/dctcp.h) against sequences
// computed by hand from the algorithm in that header: the first window
// (whose count is not reset), alpha's EWMA once per window with g, the cut
// rate (1 - alpha / 2) once per CWR, the additive increase once per window
// outside CWR, the fraction capped at 1, MIN_RATE, the line rate, the
// window following the rate, and the defaults.
#include "dataplane/emulator/model/dctcp.h"

#include <gtest/gtest.h>

#include <string>

namespace pfc::emulator {
namespace {

constexpr uint64_t kLine = 10'000'000'000;  // 10 Gb/s
constexpr uint32_t kMtu = 1'000;

// g = 1/16 (exact in binary), AI 500 Mb/s, MIN_RATE 1 Gb/s.
DctcpParams Hand() {
  DctcpParams p;
  p.rate_ai_bps = 500'000'000;
  p.min_rate_bps = 1'000'000'000;
  p.ewma_gain = 0.0625;
  return p;
}

TEST(DctcpRp, HandComputedSequence) {
  DctcpRp rp(Hand(), kLine, 100'000, kMtu);
  EXPECT_EQ(rp.rate_bps(), kLine);
  EXPECT_DOUBLE_EQ(rp.alpha(), 1.0);
  // ACK 1000, snd_nxt 10000, flagged: it opens the first window (to
  // 10000, 10000 / 1000 + 1 = 11 packets expected); alpha is 1, so the cut
  // halves: 5G; CWR until an ACK beyond 10000. No increase in CWR.
  rp.OnAck(0, 1'000, 10'000, true);
  EXPECT_EQ(rp.rate_bps(), 5'000'000'000u);
  EXPECT_TRUE(rp.in_cwr());
  EXPECT_EQ(rp.counters().ai, 0u);
  // ACK 5000, flagged: counted (2), no cut in CWR.
  rp.OnAck(0, 5'000, 14'000, true);
  EXPECT_EQ(rp.rate_bps(), 5'000'000'000u);
  // ACK 10000: not beyond the window's end nor CWR's (both 10000).
  rp.OnAck(0, 10'000, 19'000, false);
  EXPECT_TRUE(rp.in_cwr());
  EXPECT_EQ(rp.counters().alpha_updates, 0u);
  // ACK 11000, snd_nxt 20000: closes the window with 2 flagged of 11 (the
  // first ACK's flag counts: the first window's count was not reset):
  // alpha = 15/16 + 1/16 x 2/11 = 167/176. The next window: to 20000,
  // (20000 - 11000) / 1000 + 1 = 10 expected. It leaves CWR, and adds
  // AI: 5.5G.
  rp.OnAck(0, 11'000, 20'000, false);
  EXPECT_DOUBLE_EQ(rp.alpha(), 167.0 / 176);
  EXPECT_FALSE(rp.in_cwr());
  EXPECT_EQ(rp.rate_bps(), 5'500'000'000u);
  EXPECT_EQ(rp.counters().ai, 1u);
  // ACK 15000, flagged: a cut, 5.5G x (1 - 167/352) = 5.5G x 185/352 =
  // 2,890,625,000; CWR until beyond 24000.
  rp.OnAck(0, 15'000, 24'000, true);
  EXPECT_EQ(rp.rate_bps(), 2'890'625'000u);
  // ACK 21000, snd_nxt 30000: closes the window, 1 flagged of 10:
  // alpha = 15/16 x 167/176 + 1/16 x 1/10 = 12613/14080. Still in CWR
  // (21000 <= 24000): no increase.
  rp.OnAck(0, 21'000, 30'000, false);
  EXPECT_DOUBLE_EQ(rp.alpha(), 12613.0 / 14080);
  EXPECT_TRUE(rp.in_cwr());
  EXPECT_EQ(rp.rate_bps(), 2'890'625'000u);
  // ACK 25000: leaves CWR, but closes no window: no increase.
  rp.OnAck(0, 25'000, 34'000, false);
  EXPECT_FALSE(rp.in_cwr());
  EXPECT_EQ(rp.rate_bps(), 2'890'625'000u);
  // ACK 31000: closes the window, none flagged: alpha = 15/16 x
  // 12613/14080 = 37839/45056; + AI: 3,390,625,000.
  rp.OnAck(0, 31'000, 40'000, false);
  EXPECT_DOUBLE_EQ(rp.alpha(), 37839.0 / 45056);
  EXPECT_EQ(rp.rate_bps(), 3'390'625'000u);
  // ACK 35000, flagged: 3,390,625,000 x (1 - 37839/90112) = 3,390,625,000
  // x 52273/90112 = 1,966,865,019.6..., rounded down.
  rp.OnAck(0, 35'000, 44'000, true);
  EXPECT_EQ(rp.rate_bps(), 1'966'865'019u);
  const DctcpCounters& c = rp.counters();
  EXPECT_EQ(c.acks, 9u);
  EXPECT_EQ(c.ece, 4u);
  EXPECT_EQ(c.alpha_updates, 3u);
  EXPECT_EQ(c.cuts, 3u);
  EXPECT_EQ(c.ai, 2u);
}

// More flagged ACKs than the window expected (duplicate ACKs here): the
// fraction is 1, not 3.
TEST(DctcpRp, FractionCappedAtOne) {
  DctcpRp rp(Hand(), kLine, 0, kMtu);
  rp.OnAck(0, 1'000, 1'000, false);  // opens the first window, to 1000
  // Closes it, none flagged: alpha = 15/16; the next to 2000, (2000 -
  // 2000) / 1000 + 1 = 1 packet expected. At the line: AI changes nothing.
  rp.OnAck(0, 2'000, 2'000, false);
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.9375);
  EXPECT_EQ(rp.rate_bps(), kLine);
  // Three flagged duplicates: the first cuts, 10G x (1 - 15/32) = 5.3125G.
  for (int i = 0; i < 3; ++i) rp.OnAck(0, 2'000, 2'000, true);
  EXPECT_EQ(rp.rate_bps(), 5'312'500'000u);
  EXPECT_EQ(rp.counters().cuts, 1u);
  // Closes it: 3 of 1, taken as 1: alpha = 15/16 x 15/16 + 1/16 =
  // 0.94140625 (1.06640625 uncapped). Leaves CWR: + AI.
  rp.OnAck(0, 3'000, 3'000, false);
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.94140625);
  EXPECT_EQ(rp.rate_bps(), 5'812'500'000u);
}

// g = 0 keeps alpha at 1: every cut halves, never below MIN_RATE. The ACK
// that leaves CWR cuts at once when it is flagged.
TEST(DctcpRp, FloorAtMinRate) {
  DctcpParams p = Hand();
  p.ewma_gain = 0;
  p.min_rate_bps = 3'000'000'000;
  DctcpRp rp(p, kLine, 0, kMtu);
  rp.OnAck(0, 1'000, 10'000, true);
  EXPECT_EQ(rp.rate_bps(), 5'000'000'000u);
  rp.OnAck(0, 11'000, 20'000, true);  // 2.5G is below MIN_RATE
  EXPECT_EQ(rp.rate_bps(), 3'000'000'000u);
  EXPECT_EQ(rp.counters().cuts, 2u);
  EXPECT_EQ(rp.counters().ai, 0u);
}

// Increases stop at the line rate; one a window, not one an ACK.
TEST(DctcpRp, CeilingAndOneIncreaseAWindow) {
  DctcpRp rp(Hand(), kLine, 0, kMtu);
  rp.OnAck(0, 1'000, 10'000, false);  // the first window: AI, capped
  EXPECT_EQ(rp.rate_bps(), kLine);
  EXPECT_EQ(rp.counters().ai, 1u);
  // Closes it with 1 flagged of 11: alpha = 15/16 + 1/176 = 83/88, and
  // cuts: 10G x (1 - 83/176) = 10G x 93/176 = 5,284,090,909.09...
  rp.OnAck(0, 11'000, 20'000, true);
  EXPECT_DOUBLE_EQ(rp.alpha(), 83.0 / 88);
  EXPECT_EQ(rp.rate_bps(), 5'284'090'909u);
  for (uint64_t s = 21'000; s <= 30'000; s += 1'000) rp.OnAck(0, s, 30'000, false);
  // 21000 left CWR and closed a window: + AI; the rest are inside the
  // window that ACK opened (to 30000).
  EXPECT_EQ(rp.rate_bps(), 5'784'090'909u);
  EXPECT_EQ(rp.counters().ai, 2u);
  rp.OnAck(0, 30'001, 40'000, false);
  EXPECT_EQ(rp.rate_bps(), 6'284'090'909u);
  EXPECT_EQ(rp.counters().ai, 3u);
}

// VAR_WIN: the window follows the rate, win x rate / line rounded down,
// at least 1.
TEST(DctcpRp, Window) {
  DctcpParams p = Hand();
  DctcpRp rp(p, kLine, 100'000, kMtu), tiny(p, kLine, 1, kMtu);
  EXPECT_EQ(rp.window_bytes(), 100'000u);
  rp.OnAck(0, 1'000, 10'000, true);  // 5G
  tiny.OnAck(0, 1'000, 10'000, true);
  EXPECT_EQ(rp.window_bytes(), 50'000u);
  EXPECT_EQ(tiny.window_bytes(), 1u) << "1 x 5G / 10G = 0.5 rounds to 0, and is 1";
  p.var_win = false;
  EXPECT_EQ(DctcpRp(p, kLine, 100'000, kMtu).window_bytes(), 100'000u);
  p.has_win = false;
  EXPECT_EQ(DctcpRp(p, kLine, 100'000, kMtu).window_bytes(), 0u);
}

// The simulator's values: run.py --cc dctcp --bw 100.
TEST(DctcpRp, Defaults) {
  const std::string t = ParamsTable(DctcpParamTable());
  EXPECT_NE(t.find("| `rate_ai` | rate | 615M |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `min_rate` | rate | 1G |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `ewma_gain` | 0..1 | 0.0625 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `has_win` | bool | true |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `var_win` | bool | true |"), std::string::npos) << t;
  // 100G, flagged first ACK: 50G; the window closes with 1 of 11 flagged:
  // alpha = 15/16 + 1/176, + 615M.
  DctcpRp rp(DctcpParams{}, 100'000'000'000, 0, kMtu);
  rp.OnAck(0, 1'000, 10'000, true);
  rp.OnAck(0, 11'000, 20'000, false);
  EXPECT_DOUBLE_EQ(rp.alpha(), 0.9375 + 1.0 / 176);
  EXPECT_EQ(rp.rate_bps(), 50'615'000'000u);
}

}  // namespace
}  // namespace pfc::emulator
