// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the lock-free neighbour table: learn, update, static entries,
// a full table, and concurrent readers that must never see a torn MAC.
#include "dataplane/tables/neighbor_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace pfc {
namespace {

struct Mac {
  uint8_t b[6];
};
Mac MacOf(uint32_t ip, uint8_t version) {
  return {{0x02, version, static_cast<uint8_t>(ip >> 24), static_cast<uint8_t>(ip >> 16),
           static_cast<uint8_t>(ip >> 8), static_cast<uint8_t>(ip)}};
}
bool Eq(const uint8_t* a, const Mac& m) { return std::memcmp(a, m.b, 6) == 0; }

TEST(NeighborTable, LearnLookupUpdate) {
  tables::NeighborTable t(16);
  uint8_t mac[6];
  EXPECT_FALSE(t.Lookup(0x0a000001, mac));
  ASSERT_TRUE(t.Learn(0x0a000001, MacOf(1, 1).b, false));
  ASSERT_TRUE(t.Lookup(0x0a000001, mac));
  EXPECT_TRUE(Eq(mac, MacOf(1, 1)));
  EXPECT_EQ(t.size(), 1u);
  // Re-learning (the host changed NIC) overwrites in place.
  ASSERT_TRUE(t.Learn(0x0a000001, MacOf(1, 2).b, false));
  ASSERT_TRUE(t.Lookup(0x0a000001, mac));
  EXPECT_TRUE(Eq(mac, MacOf(1, 2)));
  EXPECT_EQ(t.size(), 1u);
  EXPECT_FALSE(t.Lookup(0x0a000002, mac));
}

TEST(NeighborTable, ZeroAddressIsRejected) {
  tables::NeighborTable t(4);
  uint8_t mac[6];
  EXPECT_FALSE(t.Learn(0, MacOf(0, 1).b, true));
  EXPECT_FALSE(t.Lookup(0, mac));
  EXPECT_EQ(t.size(), 0u);
}

TEST(NeighborTable, StaticEntriesWinOverLearntOnes) {
  tables::NeighborTable t(8);
  uint8_t mac[6];
  ASSERT_TRUE(t.Learn(7, MacOf(7, 1).b, true));
  EXPECT_TRUE(t.IsStatic(7));
  EXPECT_TRUE(t.Learn(7, MacOf(7, 2).b, false));  // accepted, ignored
  ASSERT_TRUE(t.Lookup(7, mac));
  EXPECT_TRUE(Eq(mac, MacOf(7, 1)));
  ASSERT_TRUE(t.Learn(7, MacOf(7, 3).b, true));  // config may change it
  ASSERT_TRUE(t.Lookup(7, mac));
  EXPECT_TRUE(Eq(mac, MacOf(7, 3)));
  // A dynamic entry becomes static when configured.
  ASSERT_TRUE(t.Learn(8, MacOf(8, 1).b, false));
  EXPECT_FALSE(t.IsStatic(8));
  ASSERT_TRUE(t.Learn(8, MacOf(8, 2).b, true));
  EXPECT_TRUE(t.IsStatic(8));
}

TEST(NeighborTable, CapacityRoundsUpToPowerOfTwo) {
  EXPECT_EQ(tables::NeighborTable(5).capacity(), 8u);
  EXPECT_EQ(tables::NeighborTable(0).capacity(), 1u);
  EXPECT_EQ(tables::NeighborTable(4096).capacity(), 4096u);
}

TEST(NeighborTable, FullTable) {
  tables::NeighborTable t(64);
  uint8_t mac[6];
  // Consecutive addresses of one subnet: the worst case for a weak hash.
  for (uint32_t i = 1; i <= 64; ++i)
    ASSERT_TRUE(t.Learn(0x0a000000 + i, MacOf(i, 1).b, false)) << i;
  EXPECT_EQ(t.size(), 64u);
  EXPECT_FALSE(t.Learn(0x0a000000 + 65, MacOf(65, 1).b, false));
  EXPECT_FALSE(t.Learn(0x0b000000, MacOf(66, 1).b, true));
  EXPECT_EQ(t.size(), 64u);
  EXPECT_FALSE(t.Lookup(0x0a000000 + 65, mac));
  // Updates of known entries still work when full.
  ASSERT_TRUE(t.Learn(0x0a000000 + 10, MacOf(10, 9).b, false));
  for (uint32_t i = 1; i <= 64; ++i) {
    ASSERT_TRUE(t.Lookup(0x0a000000 + i, mac)) << i;
    EXPECT_TRUE(Eq(mac, MacOf(i, i == 10 ? 9 : 1))) << i;
  }
}

TEST(NeighborTable, ConcurrentInsertersFillExactlyToCapacity) {
  tables::NeighborTable t(1024);
  std::atomic<int> ok{0};
  std::vector<std::thread> th;
  for (int w = 0; w < 4; ++w) {
    th.emplace_back([&, w] {
      // Overlapping ranges: every address is inserted by two threads.
      for (uint32_t i = 1; i <= 800; ++i) {
        const uint32_t ip = 0x0a000000 + (w / 2) * 800 + i;
        if (t.Learn(ip, MacOf(ip, 1).b, false)) ok.fetch_add(1);
      }
    });
  }
  for (auto& x : th) x.join();
  EXPECT_EQ(t.size(), 1024u);
  uint32_t found = 0;
  uint8_t mac[6];
  for (uint32_t i = 1; i <= 1600; ++i) {
    if (t.Lookup(0x0a000000 + i, mac)) {
      ++found;
      EXPECT_TRUE(Eq(mac, MacOf(0x0a000000 + i, 1)));
    }
  }
  EXPECT_EQ(found, 1024u);
  EXPECT_GE(ok.load(), 1024);
}

TEST(NeighborTable, ReadersNeverSeeTornMacs) {
  tables::NeighborTable t(256);
  constexpr uint32_t kIps = 200;
  for (uint32_t i = 1; i <= kIps; ++i) ASSERT_TRUE(t.Learn(i, MacOf(i, 0).b, false));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bad{0}, reads{0};
  std::thread reader([&] {
    uint8_t mac[6];
    while (!stop.load(std::memory_order_relaxed)) {
      for (uint32_t i = 1; i <= kIps; ++i) {
        if (!t.Lookup(i, mac)) {
          bad.fetch_add(1);
          continue;
        }
        // Bytes 2..5 always encode the IP; byte 1 is some version.
        const Mac want = MacOf(i, mac[1]);
        if (!Eq(mac, want)) bad.fetch_add(1);
        reads.fetch_add(1, std::memory_order_relaxed);
      }
    }
  });
  std::thread writer([&] {
    for (int v = 1; v < 200; ++v) {
      for (uint32_t i = 1; i <= kIps; ++i) t.Learn(i, MacOf(i, static_cast<uint8_t>(v)).b, false);
    }
  });
  writer.join();
  // Let the reader finish at least one full pass after the last write.
  const uint64_t r0 = reads.load();
  while (reads.load() < r0 + 2 * kIps) std::this_thread::yield();
  stop = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  uint8_t mac[6];
  for (uint32_t i = 1; i <= kIps; ++i) {
    ASSERT_TRUE(t.Lookup(i, mac));
    EXPECT_TRUE(Eq(mac, MacOf(i, 199)));
  }
}

}  // namespace
}  // namespace pfc
