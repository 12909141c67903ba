// SPDX-License-Identifier: BSD-3-Clause
// DCFIT causality structure: the traffic mapping clears exactly when the last
// packet of an (in, out, prio) leaves, δ, the port bits and RESUME tag, and
// its memory for a 64-port switch (DCFIT §5 says about 1 KB); with several
// workers, shards that each see only their own side of a packet's life.
#include "dataplane/dcfit/causality.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <random>
#include <thread>
#include <utility>

namespace pfc::dcfit {
namespace {

constexpr int kP = 3;

Causality Make(int ports, uint8_t mask = 1 << kP, unsigned shards = 0) {
  Causality c;
  std::string err;
  EXPECT_TRUE(c.Configure(ports, mask, &err, shards)) << err;
  return c;
}

// c's mapping (xi and WaitsOn of priorities 3 and 4) against reference
// counts ref(prio, out, in).
template <class Ref>
void ExpectMapping(const Causality& c, int ports, Ref ref, int step) {
  for (int p = 3; p <= 4; ++p)
    for (PortId o = 0; o < ports; ++o) {
      PortMask want = 0, want_w = 0;
      for (PortId i = 0; i < ports; ++i) {
        if (ref(p, o, i)) want |= PortMask{1} << i;
        if (ref(p, i, o)) want_w |= PortMask{1} << i;
      }
      EXPECT_EQ(c.Xi(o, p), want) << "step " << step;
      EXPECT_EQ(c.WaitsOn(o, p), want_w) << "step " << step;
    }
}

TEST(DcfitCausality, Fig1TrafficMapping) {
  // Fig. 1: E4 holds f1 from I1; E5 holds packets from I2 and I3, which
  // pause their upstream: a message arriving on E5 goes to I2 and I3. FIFO
  // positions (one worker, the default form).
  Causality c = Make(6, 1 << kP, 0);
  EXPECT_TRUE(c.fifo());
  c.OnQueued(1, 4, kP, 1, 1);
  c.OnQueued(2, 5, kP, 1, 1);
  c.OnQueued(3, 5, kP, 2, 2);
  c.SetPausingUp(2, kP, true);
  c.SetPausingUp(3, kP, true);
  EXPECT_EQ(c.Xi(4, kP), 0b000010u);
  EXPECT_EQ(c.Xi(5, kP), 0b001100u);
  EXPECT_EQ(c.Delta(5, kP), 0b001100u);
  EXPECT_EQ(c.Delta(4, kP), 0u);
  EXPECT_EQ(c.WaitsOn(3, kP), 0b100000u);
  EXPECT_TRUE(c.Waiting(3, 5, kP));
  // E5 sends from its head: I2's packet, then I3's two. The bit of I3
  // clears only with its last packet.
  c.OnLeft(5, kP, 1);
  EXPECT_EQ(c.Xi(5, kP), 0b001000u);
  c.OnLeft(5, kP, 1);
  EXPECT_EQ(c.Xi(5, kP), 0b001000u);
  c.OnLeft(5, kP, 1);
  EXPECT_EQ(c.Xi(5, kP), 0u);
  EXPECT_EQ(c.WaitsOn(3, kP), 0u);
  EXPECT_EQ(c.dequeue_underflows(), 0u);
  c.OnLeft(5, kP, 2);  // more than was queued: counted, nothing wraps
  EXPECT_EQ(c.dequeue_underflows(), 2u);
  c.OnQueued(3, 5, kP, 1, 1);
  EXPECT_EQ(c.Xi(5, kP), 0b001000u) << "a new packet is behind the head again";
  // A group whose last counted packet is not its last one (a rewrite moved
  // the packets after it into this priority: they are not I2's to count).
  c.OnQueued(2, 5, kP, 3, 1);
  EXPECT_EQ(c.Xi(5, kP), 0b001100u);
  c.OnLeft(5, kP, 2);
  EXPECT_EQ(c.Xi(5, kP), 0u) << "I2's counted packet left; the two behind it do not count";
  c.OnQueued(2, 5, kP, 2, 0);
  EXPECT_EQ(c.Xi(5, kP), 0u) << "a group with nothing to count";
  c.OnLeft(5, kP, 4);
  EXPECT_EQ(c.dequeue_underflows(), 2u);
  // Lossy priorities and out-of-range ports are not tracked.
  c.OnQueued(1, 4, 0, 1, 1);
  c.OnQueued(6, 4, kP, 1, 1);
  c.OnQueued(1, 64, kP, 1, 1);
  EXPECT_EQ(c.Xi(4, 0), 0u);
  EXPECT_EQ(c.Xi(4, kP), 0b000010u);
  // OnEnqueue adds as OnQueued does; OnDequeue cannot, and is counted.
  c.OnEnqueue(0, 4, kP, 2);
  EXPECT_EQ(c.Xi(4, kP), 0b000011u);
  c.OnDequeue(0, 4, kP);
  EXPECT_EQ(c.dequeue_underflows(), 3u);
}

// FIFO positions against a model of the queues: random groups (some with
// packets that do not count, as a rewrite's), random sends from the heads.
TEST(DcfitCausality, FifoMatchesQueuesUnderRandomTraffic) {
  constexpr int kN = 16;
  Causality c = Make(kN, 0b00011000, 0);
  std::mt19937 rng(5);
  // q[p - 3][out]: (in, counts) of every queued packet, head first.
  std::vector<std::vector<std::deque<std::pair<PortId, bool>>>> q(
      2, std::vector<std::deque<std::pair<PortId, bool>>>(kN));
  for (int step = 0; step < 50000; ++step) {
    const PortId in = rng() % kN, out = rng() % kN;
    const int prio = 3 + static_cast<int>(rng() % 2);
    auto& fifo = q[prio - 3][out];
    if (rng() % 2 || fifo.empty()) {
      const uint32_t n = 1 + rng() % 8;
      uint32_t k = 0;
      for (uint32_t i = 1; i <= n; i++) {
        const bool counts = rng() % 4 != 0;
        if (counts) k = i;
        fifo.emplace_back(in, counts);
      }
      c.OnQueued(in, out, prio, n, k);
    } else {
      const uint32_t m = 1 + static_cast<uint32_t>(rng() % fifo.size());
      for (uint32_t i = 0; i < m; i++) fifo.pop_front();
      c.OnLeft(out, prio, m);
    }
    if (step % 499 == 0) {
      const auto at = [&](int p, PortId o, PortId i) {
        for (const auto& [from, counts] : q[p - 3][o])
          if (from == i && counts) return true;
        return false;
      };
      ExpectMapping(c, kN, at, step);
      if (HasFailure()) return;
    }
  }
  EXPECT_EQ(c.dequeue_underflows(), 0u);
}

// Counts (one shard: what each worker's shard does).
TEST(DcfitCausality, MatchesAReferenceUnderRandomTraffic) {
  Causality c = Make(64, 0b00011000, 1);
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
      ExpectMapping(
          c, 64, [&](int p, PortId o, PortId i) { return ref[p - 3][o][i]; }, step);
      if (HasFailure()) return;
    }
  }
  EXPECT_EQ(c.dequeue_underflows(), 0u);
}

// Two workers: a packet enqueued by one and sent by the other leaves +1 in
// one shard and -1 in the other, and the mapping is their sum.
TEST(DcfitCausality, ShardsSumWhatEachWorkerMoved) {
  Causality c = Make(8, 1 << kP, 2);
  EXPECT_EQ(c.shards(), 2u);
  c.OnEnqueue(1, 4, kP, 3, /*shard=*/0);
  c.OnEnqueue(2, 4, kP, 1, /*shard=*/1);
  EXPECT_EQ(c.queued(1, 4, kP), 3u);
  EXPECT_EQ(c.Xi(4, kP), 0b0110u);
  EXPECT_EQ(c.WaitsOn(1, kP), PortMask{1} << 4);
  c.OnDequeue(1, 4, kP, 2, /*shard=*/1);
  EXPECT_EQ(c.queued(1, 4, kP), 1u);
  EXPECT_EQ(c.Xi(4, kP), 0b0110u) << "one of I1's packets is still queued";
  c.OnDequeue(1, 4, kP, 1, /*shard=*/1);
  c.OnDequeue(2, 4, kP, 1, /*shard=*/0);
  EXPECT_EQ(c.Xi(4, kP), 0u) << "the bits clear with the last packet, whoever sent it";
  EXPECT_EQ(c.WaitsOn(1, kP), 0u);
  EXPECT_EQ(c.WaitsOn(2, kP), 0u);
  // A sum caught with the dequeue ahead of the enqueue is empty, not huge.
  c.OnDequeue(5, 6, kP, 1, /*shard=*/1);
  EXPECT_EQ(c.queued(5, 6, kP), 0u);
  EXPECT_EQ(c.Xi(6, kP), 0u);
  c.OnEnqueue(5, 6, kP, 1, /*shard=*/0);
  EXPECT_EQ(c.Xi(6, kP), 0u);
  // Untracked priorities stay no-ops.
  c.OnEnqueue(1, 4, 0, 1, 0);
  EXPECT_EQ(c.Xi(4, 0), 0u);
}

// The same random traffic as above, split over three shards at random:
// the sums match the reference exactly.
TEST(DcfitCausality, ShardedMatchesTheReference) {
  Causality c = Make(16, 0b00011000, 3);
  std::mt19937 rng(11);
  std::vector<int> ref(2 * 16 * 16);
  for (int step = 0; step < 50000; ++step) {
    const PortId in = rng() % 16, out = rng() % 16;
    const int prio = 3 + static_cast<int>(rng() % 2);
    const unsigned shard = rng() % 3;
    int& r = ref[((prio - 3) * 16 + out) * 16 + in];
    if (rng() % 2 || r == 0) {
      const int k = 1 + static_cast<int>(rng() % 4);
      c.OnEnqueue(in, out, prio, static_cast<uint32_t>(k), shard);
      r += k;
    } else {
      const int k = 1 + static_cast<int>(rng() % static_cast<unsigned>(r));
      c.OnDequeue(in, out, prio, static_cast<uint32_t>(k), shard);
      r -= k;
    }
    if (step % 499 == 0) {
      const auto at = [&](int p, PortId o, PortId i) { return ref[((p - 3) * 16 + o) * 16 + i]; };
      ExpectMapping(c, 16, at, step);
      for (int p = 3; p <= 4; ++p)
        for (PortId o = 0; o < 16; ++o)
          for (PortId i = 0; i < 16; ++i)
            EXPECT_EQ(c.queued(i, o, p), static_cast<uint32_t>(at(p, o, i))) << "step " << step;
      if (HasFailure()) return;
    }
  }
}

// Two threads as two workers: one enqueues, the other dequeues what was
// enqueued, each in its own shard, while the first reads the mapping (as
// the detector does under the lock). Nothing is lost: the end is empty.
TEST(DcfitCausality, ShardsTakeConcurrentWorkers) {
  Causality c = Make(8, 1 << kP, 2);
  constexpr uint32_t kTotal = 400000;
  std::atomic<uint32_t> produced{0};
  std::thread consumer([&] {
    uint32_t done = 0;
    while (done < kTotal) {
      const uint32_t avail = produced.load(std::memory_order_acquire) - done;
      if (avail == 0) continue;
      const uint32_t k = std::min<uint32_t>(avail, 7);
      for (uint32_t i = 0; i < k; i++)
        c.OnDequeue(static_cast<PortId>((done + i) % 4), 5, kP, 1, /*shard=*/1);
      done += k;
    }
  });
  PortMask seen = 0;
  for (uint32_t i = 0; i < kTotal; i++) {
    c.OnEnqueue(static_cast<PortId>(i % 4), 5, kP, 1, /*shard=*/0);
    produced.store(i + 1, std::memory_order_release);
    if (i % 1024 == 0) seen |= c.Xi(5, kP);
  }
  consumer.join();
  EXPECT_EQ(seen & ~PortMask{0b1111}, 0u) << "only ports that sent appear";
  EXPECT_EQ(c.Xi(5, kP), 0u);
  for (PortId i = 0; i < 4; i++) EXPECT_EQ(c.queued(i, 5, kP), 0u);
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
  EXPECT_FALSE(c.Configure(4, 1, &err, 65));
  EXPECT_NE(err.find("shards = 65, expected 0 (FIFO positions) or 1..64"), std::string::npos)
      << err;
}

// The memory of a 64-port switch per lossless priority. The paper's ~1 KB
// is the traffic mapping (64 x 64 bits) plus the per-port messages; here the
// mapping is exact (a bit clears with the last packet of its pair): FIFO
// positions, one 8-byte position per (in, out) and two per queue.
TEST(DcfitCausality, MemoryFor64Ports) {
  const Causality one = Make(64);
  const CausalityMemory m = one.Memory();
  EXPECT_EQ(m.port_bits, 3u * 8);                // pausing-up, paused, RESUME
  EXPECT_EQ(m.counts, (64u * 64 + 2 * 64) * 8);  // 33 KiB of positions
  EXPECT_EQ(m.messages, 2u * 64 * sizeof(MsgSlot));
  std::printf(
      "RESULT dcfit_memory_64ports_per_prio port_bits=%zu messages=%zu positions=%zu total=%zu "
      "(paper-comparable, with a 64 x 64 bit mapping instead of positions: %zu bytes)\n",
      m.port_bits, m.messages, m.counts, m.total(), m.total() - m.counts + 64 * 8);
  const Causality two = Make(64, 0b00011000);
  EXPECT_EQ(two.Memory().total(), 2 * m.total());
  // Several workers: a shard of 4-byte counts each.
  EXPECT_GE(Make(64, 1 << kP, 2).Memory().counts, 2u * 64 * 64 * 4);
}

}  // namespace
}  // namespace pfc::dcfit
