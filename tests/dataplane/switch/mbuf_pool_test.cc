// SPDX-License-Identifier: BSD-3-Clause
// The fabric emulator's growable mbuf pool (switch/mbuf_pool.h) and the
// rings in process memory (switch/heap_ring.h), under EAL.
#include "dataplane/switch/mbuf_pool.h"

#include <gtest/gtest.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "dataplane/switch/dataplane.h"
#include "dataplane/switch/heap_ring.h"

namespace pfc {
namespace {

TEST(MbufPool, GrowsOnDemandUpToItsSizeAndEveryMbufIsInitialised) {
  std::string err;
  // Far more than 256 MB of EAL memory could hold as whole pages: the
  // objects are the process's own memory, populated a chunk at a time.
  const uint64_t max = 200000;
  auto dp = sw::CreateDataplane(1, max, 2048 + RTE_PKTMBUF_HEADROOM, &err, sw::kMinPoolChunk);
  ASSERT_TRUE(dp) << err;
  dp->grow_on_empty = true;
  EXPECT_EQ(dp->pool->populated_size, sw::kMinPoolChunk);
  std::vector<rte_mbuf*> held;
  for (uint64_t i = 0; i < 3 * sw::kMinPoolChunk; i++) {
    rte_mbuf* m = dp->Alloc();
    ASSERT_NE(m, nullptr) << "allocation " << i;
    // What rte_pktmbuf_init gives every mbuf of a pool.
    ASSERT_EQ(m->pool, dp->pool);
    ASSERT_EQ(m->buf_len, 2048 + RTE_PKTMBUF_HEADROOM);
    ASSERT_EQ(m->data_off, RTE_PKTMBUF_HEADROOM);
    ASSERT_EQ(rte_pktmbuf_data_len(m), 0);
    held.push_back(m);
  }
  // Grown by chunks (a quarter of the pool, at least kMinPoolChunk), not
  // to the whole size.
  EXPECT_GE(dp->pool->populated_size, 3 * sw::kMinPoolChunk);
  EXPECT_LT(dp->pool->populated_size, 5 * sw::kMinPoolChunk);
  // Distinct buffers that can be written end to end.
  for (rte_mbuf* m : held) std::memset(rte_pktmbuf_mtod(m, void*), 0xab, 2048);
  for (rte_mbuf* m : held) rte_pktmbuf_free(m);
  EXPECT_EQ(rte_mempool_avail_count(dp->pool), dp->pool->populated_size);
}

// The virtual clock's partitions allocate from two threads while one of
// them grows the pool: the pool's driver initialises a chunk's mbufs before
// either thread can take one.
TEST(MbufPool, GrowsWhileAnotherThreadAllocates) {
  std::string err;
  auto dp = sw::CreateDataplane(1, 400000, 2048 + RTE_PKTMBUF_HEADROOM, &err, sw::kMinPoolChunk);
  ASSERT_TRUE(dp) << err;
  dp->grow_on_empty = true;
  std::vector<rte_mbuf*> held[2];
  std::atomic<int> bad{0};
  auto take = [&](int t) {
    const bool registered = rte_thread_register() == 0;  // a cache of its own, or none
    for (uint64_t i = 0; i < 6 * sw::kMinPoolChunk; i++) {
      rte_mbuf* m = dp->Alloc();
      if (m == nullptr || m->pool != dp->pool || m->buf_len != 2048 + RTE_PKTMBUF_HEADROOM ||
          m->data_off != RTE_PKTMBUF_HEADROOM || m->buf_addr == nullptr) {
        bad++;
        break;
      }
      held[t].push_back(m);
    }
    if (registered) rte_thread_unregister();
  };
  std::thread a(take, 0), b(take, 1);
  a.join();
  b.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(held[0].size() + held[1].size(), 12 * sw::kMinPoolChunk);
  EXPECT_LE(dp->pool->populated_size, 20 * sw::kMinPoolChunk);
  for (auto& h : held)
    for (rte_mbuf* m : h) rte_pktmbuf_free(m);
  EXPECT_EQ(rte_mempool_avail_count(dp->pool), dp->pool->populated_size);
}

TEST(MbufPool, StopsAtItsSizeWithoutGrowthItStaysEmpty) {
  std::string err;
  auto dp = sw::CreateDataplane(1, 10000, 2048 + RTE_PKTMBUF_HEADROOM, &err, sw::kMinPoolChunk);
  ASSERT_TRUE(dp) << err;
  std::vector<rte_mbuf*> held;
  // Not growable: the populated part only.
  for (rte_mbuf* m; (m = dp->Alloc()) != nullptr;) held.push_back(m);
  EXPECT_EQ(held.size(), sw::kMinPoolChunk);
  dp->grow_on_empty = true;
  for (rte_mbuf* m; (m = dp->Alloc()) != nullptr;) held.push_back(m);
  EXPECT_EQ(held.size(), 10000u);  // the pool's size, then a refused allocation
  EXPECT_EQ(sw::GrowPool(dp->pool, 1), 0u);
  for (rte_mbuf* m : held) rte_pktmbuf_free(m);
}

// The fabric caps growth at what the machine had when the run started
// (Dataplane::grow_limit): allocation then fails, counted by the caller,
// instead of the OOM killer ending the process.
TEST(MbufPool, GrowthStopsAtItsLimit) {
  std::string err;
  auto dp = sw::CreateDataplane(1, 100000, 2048 + RTE_PKTMBUF_HEADROOM, &err, sw::kMinPoolChunk);
  ASSERT_TRUE(dp) << err;
  dp->grow_on_empty = true;
  dp->grow_limit = sw::kMinPoolChunk + 1000;
  std::vector<rte_mbuf*> held;
  for (rte_mbuf* m; (m = dp->Alloc()) != nullptr;) held.push_back(m);
  EXPECT_EQ(dp->pool->populated_size, sw::kMinPoolChunk + 1000);
  EXPECT_EQ(held.size(), sw::kMinPoolChunk + 1000);
  for (rte_mbuf* m : held) rte_pktmbuf_free(m);
}

TEST(HeapRing, OwnMemoryRingWorksAndFreesEitherKind) {
  std::string err;
  for (const bool own : {false, true}) {
    rte_ring* r =
        sw::CreateHeapRing("t", sizeof(void*), 1024, RING_F_SP_ENQ | RING_F_SC_DEQ, own, &err);
    ASSERT_NE(r, nullptr) << err;
    EXPECT_EQ(rte_ring_get_capacity(r), 1023u);
    uintptr_t v = 0;
    for (uintptr_t i = 1; i <= 1023; i++)
      ASSERT_EQ(rte_ring_enqueue(r, reinterpret_cast<void*>(i)), 0);
    EXPECT_NE(rte_ring_enqueue(r, reinterpret_cast<void*>(uintptr_t{1})), 0);
    for (uintptr_t i = 1; i <= 1023; i++) {
      void* p;
      ASSERT_EQ(rte_ring_dequeue(r, &p), 0);
      v += reinterpret_cast<uintptr_t>(p) == i;
    }
    EXPECT_EQ(v, 1023u);
    sw::FreeHeapRing(r);
  }
}

}  // namespace
}  // namespace pfc
