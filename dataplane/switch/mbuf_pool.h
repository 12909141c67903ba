// SPDX-License-Identifier: BSD-3-Clause
// The fabric emulator's mbuf pool: memory proportional to the frames really
// in flight. A fabric's worst case (every switch's buffer full of smallest
// frames) is many times what a run ever holds: a k=16 fat-tree's switches
// could hold six million mbufs. So the pool is made for the worst case
// (its size bounds it and its ring holds that many pointers, 8 bytes
// each) but populated in chunks, when an allocation finds it empty.
//
// Chunks are anonymous memory of this process's own, not EAL memory:
// nothing DMAs into an emulated port, so the pool is created
// RTE_MEMPOOL_F_NO_IOVA_CONTIG (objects pack across 4 KiB pages instead of
// one a page, which is what --no-huge costs a DPDK pool), and a chunk is
// only touched when it is added. Transparent hugepages are asked for.
//
// Threads: allocation and free from any thread; GrowPool from one thread at
// a time (Dataplane serialises it), while others allocate: the pool's own
// driver initialises each mbuf of a chunk before another thread can take it.
#pragma once
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <string>

namespace pfc::sw {

// An empty pool for up to `max_mbufs` mbufs of `room` bytes of data room
// (headroom included), with `initial` of them populated. nullptr with *err.
rte_mempool* CreateGrowablePool(const char* name, uint64_t max_mbufs, uint64_t initial,
                                uint16_t room, std::string* err);

// Populates up to `n` more mbufs (fewer if the pool's size is reached).
// Returns how many were added: 0 when the pool is full or memory ran out.
uint64_t GrowPool(rte_mempool* mp, uint64_t n);

// The next chunk for a pool of `populated` mbufs: a quarter of it, at least
// kMinPoolChunk (RSS overshoots what is used by 25% at most, and growing
// to N mbufs takes O(log N) chunks).
inline constexpr uint64_t kMinPoolChunk = 8192;
inline uint64_t NextPoolChunk(uint64_t populated) {
  return populated / 4 > kMinPoolChunk ? populated / 4 : kMinPoolChunk;
}

}  // namespace pfc::sw
