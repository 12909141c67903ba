// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the ingress buffer accountant: configuration checks, lossy
// static/dynamic limits, lossless XOFF/XON/headroom, batching, and a
// concurrent charge/release run that must end at exactly zero.
#include "dataplane/buffer/accountant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace pfc {
namespace {

buffer::BufferConfig OnePort(uint64_t total) {
  buffer::BufferConfig c;
  c.total_bytes = total;
  c.num_ports = 1;
  for (auto& pg : c.pg[0]) pg.static_limit = 1;  // tiny static limits; tests override
  return c;
}

// 64 lossy PGs (8 ports x 8 priorities) of 10,000 bytes each.
buffer::BufferConfig EightLossyPorts() {
  buffer::BufferConfig c;
  c.total_bytes = 1 << 20;
  c.num_ports = 8;
  for (int p = 0; p < 8; ++p)
    for (int q = 0; q < kNumPrio; ++q) c.pg[p][q].static_limit = 10000;
  return c;
}

buffer::PgConfig Lossless(uint32_t reserved, uint32_t xoff, uint32_t headroom, uint32_t hyst) {
  buffer::PgConfig g;
  g.lossless = true;
  g.reserved = reserved;
  g.static_limit = xoff;
  g.headroom = headroom;
  g.xon_hysteresis = hyst;
  return g;
}

// Admits n packets of `bytes` on (port, prio) in one batch; returns how many
// were admitted and the reason of the last refusal.
int AdmitN(buffer::BufferAccountant& a, PortId port, int prio, int n, uint32_t bytes,
           DropReason* last_why = nullptr) {
  buffer::IngressBatch b(a, port);
  int ok = 0;
  for (int i = 0; i < n; ++i) {
    DropReason why = DropReason::kCount;
    if (b.Admit(prio, bytes, &why))
      ++ok;
    else if (last_why)
      *last_why = why;
  }
  return ok;
}

void Release(buffer::BufferAccountant& a, PortId port, int prio, uint32_t bytes) {
  buffer::ReleaseBatch r(a);
  r.Add(port, prio, bytes);
}

TEST(BufferConfigure, RejectsWhatDoesNotFitAndSaysWhy) {
  buffer::BufferAccountant a;
  std::string err;
  buffer::BufferConfig c = OnePort(10000);
  c.num_ports = 0;
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("buffer.num_ports = 0"), std::string::npos) << err;

  c = OnePort(0);
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("buffer.total_bytes = 0"), std::string::npos) << err;

  c = OnePort(buffer::BufferAccountant::kMaxTotalBytes + 1);
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("total_bytes"), std::string::npos) << err;

  // Reserved + headroom larger than the buffer: names both sums and the gap.
  c = OnePort(10000);
  c.pg[0][0].reserved = 4000;
  c.pg[0][3] = Lossless(2000, 1000, 5000, 0);
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("reserved space (6000 bytes)"), std::string::npos) << err;
  EXPECT_NE(err.find("lossless headroom (5000 bytes)"), std::string::npos) << err;
  EXPECT_NE(err.find("short by 1000 bytes"), std::string::npos) << err;
  // Exactly fitting is fine, and leaves an empty shared pool.
  c.total_bytes = 11000;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  EXPECT_EQ(a.shared_size(), 0u);

  c = OnePort(100000);
  c.pg[0][3] = Lossless(1000, 3000, 2000, 4000);
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("pg[port 0][prio 3].xon_hysteresis = 4000"), std::string::npos) << err;
  EXPECT_NE(err.find("reserved + static_limit = 4000"), std::string::npos) << err;

  c = OnePort(100000);
  c.pg[0][2] = Lossless(1000, 3000, 0, 0);
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("pg[port 0][prio 2].headroom = 0"), std::string::npos) << err;

  c = OnePort(100000);
  c.pg[0][1].headroom = 100;  // lossy
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("only applies to lossless"), std::string::npos) << err;

  c = OnePort(100000);
  c.pg[0][1].static_limit = 0;
  c.pg[0][1].alpha = 0;
  EXPECT_FALSE(a.Configure(c, &err));
  EXPECT_NE(err.find("pg[port 0][prio 1].alpha"), std::string::npos) << err;
  c.pg[0][1].alpha = 100;
  EXPECT_FALSE(a.Configure(c, &err));
}

TEST(BufferAccountant, SharedPoolIsTotalMinusReservedAndHeadroom) {
  buffer::BufferConfig c;
  c.total_bytes = 1'000'000;
  c.num_ports = 3;
  for (int p = 0; p < 3; ++p) {
    for (int q = 0; q < kNumPrio; ++q) c.pg[p][q].reserved = 1000;
    c.pg[p][5] = Lossless(2000, 10000, 7000, 100);
  }
  // PGs of ports >= num_ports are ignored.
  c.pg[3][0].reserved = 500000;
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  EXPECT_EQ(a.shared_size(), 1'000'000u - 3 * (7 * 1000 + 2000 + 7000));
}

TEST(BufferAccountant, LossyStaticLimit) {
  buffer::BufferConfig c = OnePort(100000);
  c.pg[0][0].reserved = 1000;
  c.pg[0][0].static_limit = 2000;
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  EXPECT_EQ(a.AdmitLimit(0, 0), 3000u);
  DropReason why = DropReason::kCount;
  EXPECT_EQ(AdmitN(a, 0, 0, 40, 100, &why), 30);
  EXPECT_EQ(why, DropReason::kLossyBufferFull);
  EXPECT_EQ(a.occupancy(0, 0), 3000u);
  EXPECT_EQ(a.shared_used(), 2000u);  // the first 1000 bytes are reserved
  EXPECT_EQ(a.watermark(0, 0), 3000u);
  // A packet that would cross the limit is refused even if smaller ones fit.
  Release(a, 0, 0, 150);
  EXPECT_EQ(AdmitN(a, 0, 0, 1, 200), 0);
  EXPECT_EQ(AdmitN(a, 0, 0, 1, 150), 1);
  Release(a, 0, 0, 3000);
  EXPECT_EQ(a.occupancy(0, 0), 0u);
  EXPECT_EQ(a.shared_used(), 0u);
  EXPECT_EQ(a.watermark(0, 0), 3000u);  // watermarks persist
  EXPECT_EQ(a.release_underflows(), 0u);
  // ... until cleared (pfcctl clear watermarks): from what is held now.
  EXPECT_EQ(AdmitN(a, 0, 0, 5, 100), 5);
  a.ClearWatermarks();
  EXPECT_EQ(a.watermark(0, 0), 500u);
  EXPECT_EQ(AdmitN(a, 0, 0, 2, 100), 2);
  EXPECT_EQ(a.watermark(0, 0), 700u);
  Release(a, 0, 0, 700);
  EXPECT_EQ(a.watermark(0, 0), 700u);
}

TEST(BufferAccountant, LossyDynamicLimitIsAlphaTimesFree) {
  // Shared pool 10000 bytes. With alpha a, a lone PG settles where its shared
  // use x satisfies x + 100 <= a (10000 - x) for the last admitted packet.
  for (const auto& [alpha, expect] :
       {std::pair{1.0, 5000u}, std::pair{0.5, 3300u}, std::pair{2.0, 6700u}}) {
    buffer::BufferConfig c = OnePort(10000);
    c.pg[0][1].static_limit = 0;
    c.pg[0][1].alpha = alpha;
    buffer::BufferAccountant a;
    std::string err;
    ASSERT_TRUE(a.Configure(c, &err)) << err;
    // One packet per batch, so each decision sees the published pool.
    int admitted = 0;
    for (int i = 0; i < 200; ++i) admitted += AdmitN(a, 0, 1, 1, 100);
    EXPECT_EQ(a.occupancy(0, 1), expect) << "alpha " << alpha;
    EXPECT_EQ(admitted * 100u, expect);
    // Same answer when the whole run is one burst (the batch tracks the pool).
    buffer::BufferAccountant b;
    ASSERT_TRUE(b.Configure(c, &err));
    AdmitN(b, 0, 1, 200, 100);
    EXPECT_EQ(b.occupancy(0, 1), expect) << "alpha " << alpha << " (one batch)";
  }
}

TEST(BufferAccountant, DynamicLimitsShrinkAsOthersUseThePool) {
  buffer::BufferConfig c;
  c.total_bytes = 20000;
  c.num_ports = 2;
  for (int p = 0; p < 2; ++p) {
    c.pg[p][0].static_limit = 0;
    c.pg[p][0].alpha = 1.0;
  }
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  EXPECT_EQ(a.AdmitLimit(1, 0), 20000u);
  AdmitN(a, 0, 0, 60, 100);  // port 0 takes 6000 (below its limit of 14000)
  EXPECT_EQ(a.occupancy(0, 0), 6000u);
  EXPECT_EQ(a.AdmitLimit(1, 0), 14000u);  // alpha x free = 14000
  EXPECT_EQ(a.AdmitLimit(0, 0), 14000u);
}

TEST(BufferAccountant, LosslessXoffXonHeadroom) {
  buffer::BufferConfig c = OnePort(100000);
  c.pg[0][3] = Lossless(/*reserved=*/1000, /*xoff=*/3000, /*headroom=*/2000, /*hyst=*/1500);
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  EXPECT_EQ(a.XoffThreshold(0, 3), 4000u);
  EXPECT_EQ(a.XonThreshold(0, 3), 2500u);
  EXPECT_EQ(a.AdmitLimit(0, 3), 6000u);

  DropReason why = DropReason::kCount;
  EXPECT_EQ(AdmitN(a, 0, 3, 45, 100), 45);
  EXPECT_EQ(a.headroom_used(0, 3), 500u);  // 4500 - XOFF 4000
  EXPECT_EQ(AdmitN(a, 0, 3, 20, 100, &why), 15);
  EXPECT_EQ(why, DropReason::kLosslessHeadroom);
  EXPECT_EQ(a.occupancy(0, 3), 6000u);
  EXPECT_EQ(a.headroom_used(0, 3), 2000u);
  EXPECT_EQ(a.headroom_watermark(0, 3), 2000u);
  EXPECT_EQ(a.shared_used(), 3000u);  // headroom is not shared pool

  // Releases drain the headroom first.
  Release(a, 0, 3, 500);
  EXPECT_EQ(a.headroom_used(0, 3), 1500u);
  EXPECT_EQ(a.shared_used(), 3000u);
  Release(a, 0, 3, 2000);
  EXPECT_EQ(a.headroom_used(0, 3), 0u);
  EXPECT_EQ(a.shared_used(), 2500u);
  EXPECT_EQ(a.occupancy(0, 3), 3500u);
  Release(a, 0, 3, 3500);
  EXPECT_EQ(a.shared_used(), 0u);
  EXPECT_EQ(a.watermark(0, 3), 6000u);
  EXPECT_EQ(a.headroom_watermark(0, 3), 2000u);
}

TEST(BufferAccountant, FullPoolPausesLosslessAtItsReserved) {
  // The pool (10000) is smaller than the lossless static XOFF (50000): once a
  // lossy PG has taken it all, the lossless XOFF falls to its reserved space
  // and further bytes go into headroom, not into a pool that is not there.
  buffer::BufferConfig c = OnePort(10000 + 1000 + 3000);
  c.pg[0][0].static_limit = 1'000'000;
  c.pg[0][3] = Lossless(1000, 50000, 3000, 100);
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  EXPECT_EQ(a.shared_size(), 10000u);
  EXPECT_EQ(a.XoffThreshold(0, 3), 11000u);   // capped by what the pool can give
  EXPECT_EQ(AdmitN(a, 0, 0, 200, 100), 100);  // the lossy PG fills the pool
  EXPECT_EQ(a.shared_free(), 0u);
  EXPECT_EQ(a.XoffThreshold(0, 3), 1000u);
  EXPECT_EQ(AdmitN(a, 0, 3, 50, 100), 40);  // 1000 reserved + 3000 headroom
  EXPECT_EQ(a.headroom_used(0, 3), 3000u);
  EXPECT_EQ(a.shared_used(), 10000u);
  Release(a, 0, 0, 10000);
  Release(a, 0, 3, 4000);
  EXPECT_EQ(a.shared_used(), 0u);
  EXPECT_EQ(a.headroom_used(0, 3), 0u);
}

// One port: lossy priority 0 with room to spare, lossless priority 4 with
// a dynamic XOFF of half the free pool (10,000 shared), 5,000 of headroom
// and 1,000 of hysteresis.
buffer::BufferConfig DynamicLosslessPort() {
  buffer::BufferConfig c = OnePort(10000 + 5000);
  c.pg[0][0].static_limit = 1'000'000;
  c.pg[0][4] = Lossless(0, 0, 5000, 1000);
  c.pg[0][4].alpha = 0.5;
  return c;
}

TEST(BufferAccountant, DynamicXoffFollowsFreePool) {
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(DynamicLosslessPort(), &err)) << err;
  EXPECT_EQ(a.XoffThreshold(0, 4), 5000u);  // 0.5 x 10000
  EXPECT_EQ(a.XonThreshold(0, 4), 4000u);
  AdmitN(a, 0, 0, 40, 100);                 // lossy takes 4000
  EXPECT_EQ(a.XoffThreshold(0, 4), 3000u);  // 0.5 x 6000
  EXPECT_EQ(a.XonThreshold(0, 4), 2000u);
}

// The generator's resume level is 0 while the group holds headroom bytes,
// even when a dynamic XOFF point that rose puts XON above its occupancy.
TEST(BufferAccountant, NoResumeWhileHeadroomHolds) {
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(DynamicLosslessPort(), &err)) << err;
  AdmitN(a, 0, 0, 60, 100);                 // lossy takes 6000: XOFF 0.5 x 4000
  EXPECT_EQ(AdmitN(a, 0, 4, 30, 100), 30);  // past XOFF: the rest in headroom
  const uint64_t hr = a.headroom_used(0, 4);
  ASSERT_GT(hr, 0u);
  uint64_t occ, xoff, resume;
  a.PfcLevels(0, 4, &occ, &xoff, &resume);
  EXPECT_EQ(occ, 3000u);
  EXPECT_EQ(xoff, a.XoffThreshold(0, 4));
  EXPECT_EQ(resume, 0u);
  a.Apply(0, 0, -6000);  // the lossy bytes leave: XOFF rises with the free pool
  a.PfcLevels(0, 4, &occ, &xoff, &resume);
  EXPECT_GT(a.XonThreshold(0, 4), occ);      // XON above the occupancy ...
  EXPECT_EQ(resume, 0u);                     // ... but the headroom is not empty
  a.Apply(0, 4, -static_cast<int64_t>(hr));  // the headroom bytes leave first
  EXPECT_EQ(a.headroom_used(0, 4), 0u);
  a.PfcLevels(0, 4, &occ, &xoff, &resume);
  EXPECT_EQ(occ, 3000u - hr);
  EXPECT_EQ(resume, a.XonThreshold(0, 4));
}

// A priority held lossy (the pipeline's held_lossy hook) gets no headroom:
// what would need it is refused with the holder's reason, which the
// accountant takes from the caller (it knows no feature by name).
TEST(BufferAccountant, HeldLossyRefusesHeadroomWithTheCallersReason) {
  buffer::BufferConfig c = OnePort(100000);
  c.pg[0][3] = Lossless(0, 1000, 5000, 200);
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  for (const DropReason held_why : {DropReason::kDcfitHostLossy, DropReason::kPfcwdStorm}) {
    buffer::IngressBatch b(a, 0);
    b.set_held_lossy(1u << 3, held_why);
    DropReason why = DropReason::kCount;
    int ok = 0;
    for (int i = 0; i < 20; ++i) ok += b.Admit(3, 100, &why);
    b.Flush();
    EXPECT_EQ(ok, 10);  // up to the XOFF point, none into headroom
    EXPECT_EQ(why, held_why);
    Release(a, 0, 3, 1000);
  }
  // Not held: the same packets go on into headroom.
  buffer::IngressBatch b(a, 0);
  int ok = 0;
  DropReason why;
  for (int i = 0; i < 20; ++i) ok += b.Admit(3, 100, &why);
  b.Flush();
  EXPECT_EQ(ok, 20);
}

TEST(BufferAccountant, BatchPublishesOnFlushOnly) {
  buffer::BufferConfig c = OnePort(100000);
  c.pg[0][0].static_limit = 2500;
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  buffer::IngressBatch b(a, 0);
  DropReason why;
  int ok = 0;
  for (int i = 0; i < 32; ++i) ok += b.Admit(0, 100, &why);
  EXPECT_EQ(ok, 25);                 // later packets saw the earlier ones
  EXPECT_EQ(a.occupancy(0, 0), 0u);  // nothing published yet
  b.Flush();
  EXPECT_EQ(a.occupancy(0, 0), 2500u);
  b.Flush();  // idempotent
  EXPECT_EQ(a.occupancy(0, 0), 2500u);
}

TEST(BufferAccountant, ReleaseBatchSpillsWhenManyGroups) {
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(EightLossyPorts(), &err)) << err;
  for (int p = 0; p < 8; ++p)
    for (int q = 0; q < kNumPrio; ++q) AdmitN(a, static_cast<PortId>(p), q, 3, 100);
  EXPECT_EQ(a.shared_used(), 64u * 300);
  {
    buffer::ReleaseBatch r(a);  // 64 distinct PGs > kMaxBurst entries
    for (int k = 0; k < 3; ++k)
      for (int p = 0; p < 8; ++p)
        for (int q = 0; q < kNumPrio; ++q) r.Add(static_cast<PortId>(p), q, 100);
  }
  for (int p = 0; p < 8; ++p)
    for (int q = 0; q < kNumPrio; ++q) EXPECT_EQ(a.occupancy(static_cast<PortId>(p), q), 0u);
  EXPECT_EQ(a.shared_used(), 0u);
  EXPECT_EQ(a.release_underflows(), 0u);
}

// A table the caller keeps between batches (the burst loops' SlotTable):
// every batch finds it all kNone, including one that flushed early for
// holding more PGs than kMaxBurst, and releases the same as with its own.
TEST(BufferAccountant, ReleaseBatchLeavesAKeptSlotTableClear) {
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(EightLossyPorts(), &err)) << err;
  buffer::SlotTable kept;
  const buffer::SlotTable clear;
  for (int round = 0; round < 3; ++round) {
    for (int p = 0; p < 8; ++p)
      for (int q = 0; q < kNumPrio; ++q) AdmitN(a, static_cast<PortId>(p), q, 2, 100);
    {
      buffer::ReleaseBatch r(a, nullptr, &kept);
      // Round 0: 64 distinct PGs (an early flush); then a few.
      const int ports = round == 0 ? 8 : 1;
      for (int k = 0; k < 2; ++k)
        for (int p = 0; p < ports; ++p)
          for (int q = 0; q < kNumPrio; ++q) r.Add(static_cast<PortId>(p), q, 100);
    }
    EXPECT_EQ(std::memcmp(kept.s, clear.s, sizeof kept.s), 0) << "round " << round;
    for (int p = 0; p < 8; ++p) {
      buffer::ReleaseBatch r(a);  // the rest, through a batch's own table
      for (int q = 0; q < kNumPrio; ++q) {
        const uint64_t left = a.occupancy(static_cast<PortId>(p), q);
        if (left != 0) r.Add(static_cast<PortId>(p), q, static_cast<uint32_t>(left));
      }
    }
    for (int p = 0; p < 8; ++p)
      for (int q = 0; q < kNumPrio; ++q) EXPECT_EQ(a.occupancy(static_cast<PortId>(p), q), 0u);
    EXPECT_EQ(a.shared_used(), 0u);
  }
  EXPECT_EQ(a.release_underflows(), 0u);
}

TEST(BufferAccountant, OverReleaseIsClampedAndCounted) {
  buffer::BufferConfig c = OnePort(100000);
  c.pg[0][0].static_limit = 5000;
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  AdmitN(a, 0, 0, 1, 300);
  Release(a, 0, 0, 1000);
  EXPECT_EQ(a.occupancy(0, 0), 0u);
  EXPECT_EQ(a.shared_used(), 0u);
  EXPECT_EQ(a.release_underflows(), 1u);
}

// The admission rule written out per packet, with no batching and no fast
// path: what IngressBatch must decide, packet by packet (accountant.h).
struct RefPool {
  buffer::BufferConfig c;
  uint64_t size = 0;
  int64_t used = 0;
  std::array<uint64_t, kNumPrio> occ{}, hr{};

  static uint64_t Shared(uint64_t normal, uint32_t reserved) {
    return normal > reserved ? normal - reserved : 0;
  }
  uint64_t Cap(int q, uint64_t own) const {
    const buffer::PgConfig& g = c.pg[0][q];
    const uint64_t u = used < 0 ? 0 : static_cast<uint64_t>(used);
    const uint64_t free = u >= size ? 0 : size - u;
    uint64_t lim = g.static_limit;
    if (lim == 0) lim = (free * std::max<uint64_t>(1, std::llround(g.alpha * 65536.0))) >> 16;
    return std::min(lim, own + free);
  }
  bool Admit(int q, uint32_t bytes, DropReason* why) {
    const buffer::PgConfig& g = c.pg[0][q];
    const uint64_t normal = occ[q] - hr[q], own = Shared(normal, g.reserved), cap = Cap(q, own);
    uint64_t to_hr = 0;
    if (!g.lossless) {
      if (Shared(normal + bytes, g.reserved) > cap)
        return *why = DropReason::kLossyBufferFull, false;
    } else {
      const uint64_t xoff = g.reserved + cap, room = xoff > normal ? xoff - normal : 0;
      to_hr = bytes > room ? bytes - room : 0;
      if (hr[q] + to_hr > g.headroom) return *why = DropReason::kLosslessHeadroom, false;
    }
    used += static_cast<int64_t>(Shared(normal + bytes - to_hr, g.reserved) - own);
    hr[q] += to_hr;
    occ[q] += bytes;
    return true;
  }
  void Release(int q, uint64_t bytes) {
    const uint32_t r = c.pg[0][q].reserved;
    const uint64_t before = Shared(occ[q] - hr[q], r);
    hr[q] -= std::min(bytes, hr[q]);
    occ[q] -= bytes;
    used += static_cast<int64_t>(Shared(occ[q] - hr[q], r)) - static_cast<int64_t>(before);
  }
};

// The batch's inline fast path (per-epoch budgets) and its one-packet
// path must not change a single decision: random configs (lossy and lossless, static and dynamic,
// with and without reserved space), random bursts mixing priorities and sizes, random releases
// between bursts, compared packet by packet with RefPool.
TEST(BufferAccountant, BatchDecidesExactlyAsThePerPacketRule) {
  std::mt19937 rng(12345);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const double alphas[] = {1.0 / 128, 0.25, 1.0, 2.0, 8.0};
  uint64_t decisions = 0, refusals = 0, headroom_charges = 0;
  for (int trial = 0; trial < 300; ++trial) {
    buffer::BufferConfig c;
    c.num_ports = 1;
    uint64_t carved = 0;
    for (int q = 0; q < kNumPrio; ++q) {
      buffer::PgConfig& g = c.pg[0][q];
      g.reserved = pick(0, 1) ? static_cast<uint32_t>(pick(0, 4000)) : 0;
      g.static_limit = pick(0, 1) ? static_cast<uint32_t>(pick(1000, 60000)) : 0;
      g.alpha = alphas[pick(0, 4)];
      g.lossless = q < 3;
      if (g.lossless) g.headroom = static_cast<uint32_t>(pick(1600, 12000));
      carved += g.reserved + g.headroom;
    }
    c.total_bytes = carved + static_cast<uint64_t>(pick(5, 300)) * 1000;  // the shared pool
    buffer::BufferAccountant a;
    std::string err;
    ASSERT_TRUE(a.Configure(c, &err)) << err;
    // Both ways of updating against the rule: one writer's plain stores,
    // and the read-modify-write instructions several writers need.
    a.set_single_writer(trial % 2 == 1);
    RefPool ref;
    ref.c = c;
    ref.size = a.shared_size();
    std::vector<std::pair<int, uint32_t>> held;
    for (int burst = 0; burst < 60; ++burst) {
      {
        // A third of the bursts are of one packet, told to the batch as
        // the pipeline tells it (the exact rule at once), or not.
        const int n = pick(0, 2) == 0 ? 1 : pick(1, 32), nprio = pick(1, 4);
        buffer::IngressBatch b(a, 0, nullptr, pick(0, 1) ? static_cast<uint16_t>(n) : 0);
        for (int i = 0; i < n; ++i) {
          const int q = pick(0, nprio - 1) * 2 % kNumPrio;
          const uint32_t bytes = static_cast<uint32_t>(pick(0, 3) ? 128 : pick(64, 9000));
          DropReason w1 = DropReason::kCount, w2 = DropReason::kCount;
          const uint64_t hr_before = ref.hr[q];
          const bool want = ref.Admit(q, bytes, &w1);
          ASSERT_EQ(b.Admit(q, bytes, &w2), want) << "trial " << trial << " burst " << burst;
          ASSERT_EQ(w1, w2);
          ++decisions;
          refusals += !want;
          headroom_charges += ref.hr[q] > hr_before;
          if (want) held.emplace_back(q, bytes);
        }
      }
      for (int q = 0; q < kNumPrio; ++q) {
        ASSERT_EQ(a.occupancy(0, q), ref.occ[q]);
        ASSERT_EQ(a.headroom_used(0, q), ref.hr[q]);
      }
      ASSERT_EQ(a.shared_used(), static_cast<uint64_t>(ref.used));
      // Release a random part of what is held (oldest first, like queues).
      const size_t k = static_cast<size_t>(pick(0, static_cast<int>(held.size())));
      buffer::ReleaseBatch r(a);
      for (size_t i = 0; i < k; ++i) {
        r.Add(0, held[i].first, held[i].second);
        ref.Release(held[i].first, held[i].second);
      }
      r.Flush();
      held.erase(held.begin(), held.begin() + static_cast<long>(k));
    }
  }
  // The random walk must reach every regime, or it proves little.
  EXPECT_GT(decisions, 100000u);
  EXPECT_GT(refusals, decisions / 50);
  EXPECT_GT(headroom_charges, decisions / 200);
}

// Charging threads own disjoint ingress ports (as workers do); each hands
// its admitted packets over a lock-free ring to a releasing thread that
// releases them in small batches, both running flat out so that updates of
// the same PG and of the pool really interleave. A watcher checks that no
// lossless PG ever holds more headroom than configured. At the end every
// counter must be exactly zero.
struct Pkt {
  PortId port;
  uint8_t prio;
  uint32_t bytes;
};

class SpscRing {
 public:
  bool Push(const Pkt& p) {
    const uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t - head_.load(std::memory_order_acquire) == kCap) return false;
    buf_[t % kCap] = p;
    tail_.store(t + 1, std::memory_order_release);
    return true;
  }
  bool Pop(Pkt* p) {
    const uint64_t h = head_.load(std::memory_order_relaxed);
    if (h == tail_.load(std::memory_order_acquire)) return false;
    *p = buf_[h % kCap];
    head_.store(h + 1, std::memory_order_release);
    return true;
  }
  uint64_t size() const {
    return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
  }

 private:
  static constexpr uint64_t kCap = 4096;
  std::array<Pkt, kCap> buf_{};
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
};

void ConcurrentRun(int pairs, bool slacks = false) {
  constexpr int kPorts = 4;
  constexpr int kPacketsPerThread = 300000;
  constexpr uint32_t kHeadroom = 3000;
  buffer::BufferConfig c;
  c.total_bytes = 96 * 1024;
  c.num_ports = kPorts;
  for (int p = 0; p < kPorts; ++p) {
    for (int q = 0; q < kNumPrio; ++q) {
      c.pg[p][q].reserved = 512;
      c.pg[p][q].static_limit = 0;
      c.pg[p][q].alpha = q % 2 ? 1.0 : 0.25;
    }
    c.pg[p][3] = Lossless(1024, 4096, kHeadroom, 1500);  // static XOFF
    c.pg[p][4] = Lossless(1024, 0, kHeadroom, 1500);     // dynamic XOFF
    c.pg[p][4].alpha = 0.5;
  }
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;

  std::vector<std::unique_ptr<SpscRing>> rings;
  for (int k = 0; k < pairs; ++k) rings.push_back(std::make_unique<SpscRing>());
  std::vector<std::atomic<bool>> done(pairs);
  std::atomic<bool> stop_watch{false};
  std::atomic<uint64_t> admitted{0}, dropped{0}, released{0}, hr_violations{0};

  std::vector<std::thread> threads;
  for (int k = 0; k < pairs; ++k) {
    threads.emplace_back([&, k] {
      std::mt19937 rng(1234 + k);
      static constexpr int kPrios[] = {0, 1, 3, 4};  // few PGs: more collisions
      Pkt burst[kMaxBurst];
      uint64_t ok = 0, bad = 0;
      buffer::PoolSlack slack;  // this thread's, as a worker's
      for (int sent = 0; sent < kPacketsPerThread;) {
        // This thread owns ports k, k + pairs, ...
        const PortId port = static_cast<PortId>(k + pairs * (rng() % (kPorts / pairs)));
        buffer::IngressBatch b(a, port, slacks ? &slack : nullptr);
        int n = 0;
        for (int i = 0; i < 8; ++i, ++sent) {
          const int prio = kPrios[rng() % 4];
          const uint32_t bytes = 64 + rng() % 1437;
          DropReason why;
          if (b.Admit(prio, bytes, &why)) {
            burst[n++] = {port, static_cast<uint8_t>(prio), bytes};
          } else {
            EXPECT_TRUE(why == DropReason::kLossyBufferFull ||
                        why == DropReason::kLosslessHeadroom);
            ++bad;
          }
        }
        b.Flush();  // publish the charge before anyone can release it
        ok += n;
        for (int i = 0; i < n; ++i)
          while (!rings[k]->Push(burst[i])) std::this_thread::yield();
        // Like a paused sender, back off while the buffer is full, so that
        // most packets are admitted and released concurrently, not dropped.
        if (n < 8)
          while (rings[k]->size() > 8) std::this_thread::yield();
      }
      slack.Publish(a);
      admitted += ok;
      dropped += bad;
      done[k].store(true);
    });
    threads.emplace_back([&, k] {
      uint64_t n = 0;
      Pkt p;
      buffer::PoolSlack slack;
      for (;;) {
        buffer::ReleaseBatch r(a, slacks ? &slack : nullptr);
        int got = 0;
        while (got < 4 && rings[k]->Pop(&p)) {
          r.Add(p.port, p.prio, p.bytes);
          ++got;
        }
        n += got;
        if (got == 0) {
          if (done[k].load()) {
            if (!rings[k]->Pop(&p)) break;  // drained after the producer ended
            r.Add(p.port, p.prio, p.bytes);
            ++n;
          } else {
            std::this_thread::yield();
          }
        }
      }
      slack.Publish(a);
      released += n;
    });
  }
  std::thread watcher([&] {
    while (!stop_watch.load()) {
      for (int p = 0; p < kPorts; ++p)
        for (int q : {3, 4})
          if (a.headroom_used(static_cast<PortId>(p), q) > kHeadroom) ++hr_violations;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  for (auto& t : threads) t.join();
  stop_watch.store(true);
  watcher.join();

  EXPECT_GT(dropped.load(), 0u);
  EXPECT_GT(admitted.load(), static_cast<uint64_t>(pairs) * kPacketsPerThread / 4);
  EXPECT_EQ(released.load(), admitted.load());
  EXPECT_EQ(hr_violations.load(), 0u);
  for (int p = 0; p < kPorts; ++p) {
    for (int q = 0; q < kNumPrio; ++q) {
      EXPECT_EQ(a.occupancy(static_cast<PortId>(p), q), 0u) << p << "/" << q;
      EXPECT_EQ(a.headroom_used(static_cast<PortId>(p), q), 0u) << p << "/" << q;
      EXPECT_LE(a.headroom_watermark(static_cast<PortId>(p), q), kHeadroom);
    }
  }
  EXPECT_EQ(a.shared_used(), 0u);
  EXPECT_EQ(a.release_underflows(), 0u);
  // shared_used() clamps a negative raw sum to 0: charging a known amount
  // shows the raw sum itself is exactly zero (not below).
  EXPECT_EQ(AdmitN(a, 1, 1, 1, 1000), 1);
  EXPECT_EQ(a.shared_used(), 1000u - 512u);
}

// Apply() itself is one atomic step: two threads hammering the same lossless
// PG (one charging, one releasing) lose no update, and the shared pool and
// headroom split stay consistent with the final occupancy.
TEST(BufferAccountantConcurrent, ApplyLosesNoUpdate) {
  buffer::BufferConfig c = OnePort(1u << 30);
  c.pg[0][3] = Lossless(1000, 300'000'000, 1'000'000, 0);
  buffer::BufferAccountant a;
  std::string err;
  ASSERT_TRUE(a.Configure(c, &err)) << err;
  // The base covers every release even if the releaser runs entirely before
  // the charger (a loaded machine can deschedule either), so no interleaving
  // can underflow; and base + all charges stays below XOFF.
  constexpr uint64_t kBase = 80'000'000;
  constexpr int kN = 1'000'000;
  a.Apply(0, 3, kBase);
  std::atomic<int> ready{0};
  std::thread charger([&] {
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    for (int i = 0; i < kN; ++i) a.Apply(0, 3, 100);
  });
  std::thread releaser([&] {
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    for (int i = 0; i < kN; ++i) a.Apply(0, 3, -70);
  });
  charger.join();
  releaser.join();
  const uint64_t expect = kBase + uint64_t{30} * kN;
  EXPECT_EQ(a.occupancy(0, 3), expect);
  EXPECT_EQ(a.headroom_used(0, 3), 0u);  // never reached XOFF
  EXPECT_EQ(a.shared_used(), expect - 1000);
  EXPECT_EQ(a.release_underflows(), 0u);
  a.Apply(0, 3, -static_cast<int64_t>(expect));
  EXPECT_EQ(a.occupancy(0, 3), 0u);
  EXPECT_EQ(a.shared_used(), 0u);
}

TEST(BufferAccountantConcurrent, OneChargerOneReleaserEndsAtZero) { ConcurrentRun(1); }
TEST(BufferAccountantConcurrent, TwoChargersTwoReleasersEndAtZero) { ConcurrentRun(2); }
TEST(BufferAccountantConcurrent, WorkersWithPoolSlacksEndAtZero) { ConcurrentRun(2, true); }

// A worker's PoolSlack holds its pool changes back from the shared word
// until they pass pool_slack(), while its own batches decide on a view
// that includes them: the same admissions as publishing every batch.
TEST(PoolSlack, HoldsBackUpToTheSlackAndDecidesAsIfPublished) {
  buffer::BufferConfig c = OnePort(64 * 6400);  // shared pool 409,600 B: slack 6,400
  c.pg[0][0].static_limit = 0;                  // dynamic, alpha 1
  buffer::BufferAccountant with, without;
  std::string err;
  ASSERT_TRUE(with.Configure(c, &err)) << err;
  ASSERT_TRUE(without.Configure(c, &err)) << err;
  ASSERT_EQ(with.pool_slack(), 6400u);
  buffer::PoolSlack slack;
  {
    buffer::IngressBatch b(with, 0, &slack);
    DropReason why;
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(b.Admit(0, 1000, &why));
  }
  EXPECT_EQ(with.shared_used(), 0u);  // 5,000 held back
  EXPECT_EQ(slack.pending(), 5000);
  EXPECT_EQ(with.occupancy(0, 0), 5000u);  // the PG itself is exact
  {
    buffer::IngressBatch b(with, 0, &slack);
    DropReason why;
    ASSERT_TRUE(b.Admit(0, 2000, &why));
  }
  EXPECT_EQ(with.shared_used(), 7000u);  // past the slack: published
  EXPECT_EQ(slack.pending(), 0);
  // Burst after burst, admissions are those of the accountant that
  // publishes every batch, up to the dynamic limit (half the pool); every
  // other burst comes as eight bursts of one packet, told so (the rule on
  // the accountant's state, the charge through the slack at once).
  EXPECT_EQ(AdmitN(without, 0, 0, 7, 1000), 7);
  for (int burst = 0; burst < 60; ++burst) {
    int ok_with = 0;
    if (burst % 2 == 0) {
      buffer::IngressBatch b(with, 0, &slack);
      DropReason why;
      for (int i = 0; i < 8; ++i) ok_with += b.Admit(0, 700, &why);
    } else {
      for (int i = 0; i < 8; ++i) {
        buffer::IngressBatch b(with, 0, &slack, 1);
        DropReason why;
        ok_with += b.Admit(0, 700, &why);
      }
    }
    EXPECT_EQ(ok_with, AdmitN(without, 0, 0, 8, 700)) << "burst " << burst;
  }
  EXPECT_EQ(with.occupancy(0, 0), without.occupancy(0, 0));
  {
    buffer::IngressBatch b(with, 0, &slack);
    DropReason why;
    EXPECT_FALSE(b.Admit(0, 700, &why));  // the limit was reached
  }
  // Released through the slack: held back until published, then exact 0.
  const uint32_t held = static_cast<uint32_t>(with.occupancy(0, 0));
  {
    buffer::ReleaseBatch r(with, &slack);
    r.Add(0, 0, held);
  }
  EXPECT_EQ(with.occupancy(0, 0), 0u);
  EXPECT_EQ(with.shared_used(), 0u);  // past the slack: published at once
  {
    buffer::IngressBatch b(with, 0, &slack);
    DropReason why;
    ASSERT_TRUE(b.Admit(0, 3000, &why));
  }
  {
    buffer::ReleaseBatch r(with, &slack);
    r.Add(0, 0, 3000);
  }
  EXPECT_EQ(slack.pending(), 0);
  EXPECT_EQ(with.shared_used(), 0u);
}

}  // namespace
}  // namespace pfc
