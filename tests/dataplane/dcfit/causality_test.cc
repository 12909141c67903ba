// SPDX-License-Identifier: BSD-3-Clause
// DCFIT causality structure: the traffic mapping clears exactly when the last
// packet of an (in, out, prio) leaves, δ, the port bits and RESUME tag, and
// its memory for a 64-port switch (DCFIT §5 says about 1 KB).
#include "dataplane/dcfit/causality.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

namespace pfc::dcfit {
namespace {

constexpr int kP = 3;

Causality Make(int ports, uint8_t mask = 1 << kP) {
  Causality c;
  std::string err;
  EXPECT_TRUE(c.Configure(ports, mask, &err)) << err;
  return c;
}

TEST(DcfitCausality, Fig1TrafficMapping) {
  // Fig. 1: E4 holds f1 from I1; E5 holds packets from I2 and I3, which
  // pause their upstream: a message arriving on E5 goes to I2 and I3.
  Causality c = Make(6);
  c.OnEnqueue(1, 4, kP);
  c.OnEnqueue(2, 5, kP);
  c.OnEnqueue(3, 5, kP);
  c.OnEnqueue(3, 5, kP);
  c.SetPausingUp(2, kP, true);
  c.SetPausingUp(3, kP, true);
  EXPECT_EQ(c.Xi(4, kP), 0b000010u);
  EXPECT_EQ(c.Xi(5, kP), 0b001100u);
  EXPECT_EQ(c.Delta(5, kP), 0b001100u);
  EXPECT_EQ(c.Delta(4, kP), 0u);
  EXPECT_EQ(c.WaitsOn(3, kP), 0b100000u);
  EXPECT_EQ(c.queued(3, 5, kP), 2u);
  // The bit clears only with the last packet from I3.
  c.OnDequeue(3, 5, kP);
  EXPECT_EQ(c.Xi(5, kP), 0b001100u);
  c.OnDequeue(3, 5, kP);
  EXPECT_EQ(c.Xi(5, kP), 0b000100u);
  EXPECT_EQ(c.WaitsOn(3, kP), 0u);
  c.OnDequeue(3, 5, kP);  // unbalanced: counted, nothing wraps
  EXPECT_EQ(c.dequeue_underflows(), 1u);
  EXPECT_EQ(c.queued(3, 5, kP), 0u);
  c.OnEnqueue(3, 5, kP, 2);
  c.OnDequeue(3, 5, kP, 5);  // a run longer than what is queued: 3 missing
  EXPECT_EQ(c.dequeue_underflows(), 4u);
  EXPECT_EQ(c.queued(3, 5, kP), 0u);
  EXPECT_EQ(c.Xi(5, kP), 0b000100u);
  // Lossy priorities and out-of-range ports are not tracked.
  c.OnEnqueue(1, 4, 0);
  c.OnEnqueue(6, 4, kP);
  c.OnEnqueue(1, 64, kP);
  EXPECT_EQ(c.Xi(4, 0), 0u);
  EXPECT_EQ(c.Xi(4, kP), 0b000010u);
  EXPECT_EQ(c.stored(1, 0), nullptr);
}

TEST(DcfitCausality, MatchesAReferenceUnderRandomTraffic) {
  Causality c = Make(64, 0b00011000);
  std::mt19937 rng(7);
  std::vector<std::vector<std::vector<int>>> ref(
      2, std::vector<std::vector<int>>(64, std::vector<int>(64)));
  for (int step = 0; step < 200000; ++step) {
    const PortId in = rng() % 64, out = rng() % 64;
    const int prio = 3 + static_cast<int>(rng() % 2);
    int& r = ref[prio - 3][out][in];
    if (rng() % 2 || r == 0) {
      c.OnEnqueue(in, out, prio);
      ++r;
    } else if (rng() % 4) {
      c.OnDequeue(in, out, prio);
      --r;
    } else {  // a run of several, as the egress stage passes them
      const int k = 1 + static_cast<int>(rng() % static_cast<unsigned>(r));
      c.OnDequeue(in, out, prio, static_cast<uint32_t>(k));
      r -= k;
    }
    if (step % 997 == 0) {
      for (int p = 3; p <= 4; ++p)
        for (PortId o = 0; o < 64; ++o) {
          PortMask want = 0, want_w = 0;
          for (PortId i = 0; i < 64; ++i) {
            if (ref[p - 3][o][i]) want |= PortMask{1} << i;
            if (ref[p - 3][i][o]) want_w |= PortMask{1} << i;
          }
          ASSERT_EQ(c.Xi(o, p), want) << "step " << step;
          ASSERT_EQ(c.WaitsOn(o, p), want_w) << "step " << step;
        }
    }
  }
  EXPECT_EQ(c.dequeue_underflows(), 0u);
}

TEST(DcfitCausality, PortBitsAndResumeTag) {
  Causality c = Make(4);
  MsgSlot* s = c.stored(2, kP);
  ASSERT_NE(s, nullptr);
  s->valid = true;
  s->msg.gen_sw = 7;
  c.OnPeerPaused(2, kP);
  EXPECT_EQ(c.paused(kP), 0b0100u);
  EXPECT_FALSE(c.resume_tag(2, kP));
  c.OnPeerResumed(2, kP);
  EXPECT_EQ(c.paused(kP), 0u);
  EXPECT_TRUE(c.resume_tag(2, kP));
  EXPECT_FALSE(c.stored(2, kP)->valid);  // §3.2: removed on resume
  c.OnPeerPaused(2, kP);
  EXPECT_FALSE(c.resume_tag(2, kP));  // 0 again once paused in a new episode
  c.SetPausingUp(1, kP, true);
  EXPECT_EQ(c.pausing_up(kP), 0b0010u);
  c.SetPausingUp(1, kP, false);
  EXPECT_EQ(c.pausing_up(kP), 0u);
}

TEST(DcfitCausality, ConfigureErrorsNameTheField) {
  Causality c;
  std::string err;
  EXPECT_FALSE(c.Configure(0, 1, &err));
  EXPECT_NE(err.find("num_ports = 0, expected 1..64"), std::string::npos) << err;
  EXPECT_FALSE(c.Configure(65, 1, &err));
  EXPECT_FALSE(c.Configure(4, 0, &err));
  EXPECT_NE(err.find("lossless_mask = 0"), std::string::npos) << err;
}

// The memory of a 64-port switch per lossless priority. The paper's ~1 KB
// is the traffic mapping (64 x 64 bits) plus the per-port messages; here the
// mapping is kept in both directions (so both queries are one load) and the
// per-(in, out) packet counts that make clearing exact come on top.
TEST(DcfitCausality, MemoryFor64Ports) {
  const Causality one = Make(64);
  const CausalityMemory m = one.Memory();
  EXPECT_EQ(m.bitmaps, 2u * 64 * 8);  // 1 KiB: xi and WaitsOn
  EXPECT_EQ(m.port_bits, 3u * 8);     // pausing-up, paused, RESUME
  EXPECT_EQ(m.counts, 64u * 64 * 4);  // 16 KiB of uint32 counts
  EXPECT_EQ(m.messages, 2u * 64 * sizeof(MsgSlot));
  std::printf(
      "RESULT dcfit_memory_64ports_per_prio bitmaps=%zu port_bits=%zu messages=%zu "
      "counts=%zu total=%zu (paper-comparable without counts: %zu bytes)\n",
      m.bitmaps, m.port_bits, m.messages, m.counts, m.total(), m.total() - m.counts);
  const Causality two = Make(64, 0b00011000);
  EXPECT_EQ(two.Memory().total(), 2 * m.total());
}

}  // namespace
}  // namespace pfc::dcfit
