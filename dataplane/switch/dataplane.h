// SPDX-License-Identifier: BSD-3-Clause
// What one process shares among all the switches it runs (one for
// pfcswitch, many for the fabric emulator): the mbuf pool, the RCU
// quiescent-state variable of the worker lcores, the stop flag, the clock,
// and the offset of the per-packet metadata field in every mbuf.
//
// Ownership and threads: built once on the main thread after EAL started and
// before any switch; read-only afterwards except `stop` (set by the main
// thread, read by workers). Destroyed after every switch, so every mbuf is
// back in the pool when the pool is freed.
#pragma once
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace pfc::sw {

// Per-packet metadata kept in the mbuf from admission until the packet
// leaves: which ingress priority group to release. It lives in the mbuf's
// 8-byte `hash` (Dataplane::Meta), which no port of ours reads: in the first
// cache line, which ingress and egress read anyway (pkt_len, data_off),
// where a dynamic field sits in the second, one more line a hop (at scale,
// a cache miss as ingress writes it and another as egress reads it).
struct PktMeta {
  uint16_t in_port;
  uint8_t in_prio;
  uint8_t flags;
  uint32_t charged;  // bytes charged to the buffer (cell-rounded)
};
static_assert(sizeof(PktMeta) == sizeof(rte_mbuf::hash) &&
                  offsetof(rte_mbuf, hash) % alignof(PktMeta) == 0 &&
                  offsetof(rte_mbuf, hash) + sizeof(PktMeta) <= RTE_CACHE_LINE_MIN_SIZE,
              "PktMeta fills the mbuf's hash, in its first cache line");

class Dataplane {
 public:
  rte_mempool* pool = nullptr;
  // The pool grows when an allocation finds it empty (switch/mbuf_pool.h):
  // set by the fabric emulator on its virtual clock, whose partitions'
  // threads may allocate at once (one grows, under grow_mu_). pfcswitch's
  // pool holds its whole plan from the start.
  bool grow_on_empty = false;
  // The switches' rings in the C heap rather than EAL's (switch/heap_ring.h):
  // the fabric emulator when no device carries its frames.
  bool own_memory = false;
  rte_rcu_qsbr* qsbr = nullptr;
  unsigned workers = 1;         // worker lcores registered with qsbr
  uint32_t idle_sleep_us = 50;  // the workers' idle back-off
  // The longest idle sleep of a worker woken by receive interrupts
  // (stages/worker.cc); SwitchConfig::interrupt_sleep_ms.
  uint32_t interrupt_sleep_ms = 10;
  std::atomic<bool> stop{false};
  uint64_t tsc_hz = 0;
  uint64_t ns_mult = 0;  // ns per TSC cycle, 32.32 fixed point
  // Subtracted from the clock: the fabric emulator starts its real clock at
  // 0 so that switches, emulated hosts and the timeline share one time base.
  uint64_t epoch_ns = 0;
  // The most mbufs a growable pool may be populated with (the fabric sets
  // it from the memory the machine has, so that growth stops with a
  // warning rather than the OOM killer); the pool's size when unset.
  uint64_t grow_limit = UINT64_MAX;
  // The process ends next (rte_eal_cleanup unmaps EAL memory whole): what
  // only the OS needs back is left to it. The destructor leaves the pool
  // alone: freeing it has DPDK's allocator clear the pool's ring, which is
  // sized for every buffer full at once and is mostly never touched, a page
  // fault per 4 KB page (a 512 MB ring on the HPCC simulator's fat-tree, a
  // fifth of a 1 ms run's CPU). The switches leave their frames and their
  // rings' mappings (Switch::~Switch: 46,080 rings at fattree:16). Set by
  // pfcfabric after its results are written.
  bool process_ending = false;

  // Every mbuf the switches and emulated hosts make comes from here.
  rte_mbuf* Alloc() {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    if (__builtin_expect(m == nullptr, 0) && grow_on_empty) m = GrowAndAlloc();
    return m;
  }
  // Frees a frame that was received. rte_pktmbuf_free reads each segment's
  // `next`, on the mbuf's second cache line, which nothing else on a
  // frame's way touches: a miss a frame where emulated hosts take millions.
  // One segment (nb_segs 1: next is NULL, as DPDK keeps it), direct and held
  // once: it goes back to its pool as it is, the state the pool keeps.
  static void FreeFrame(rte_mbuf* m) {
    if (m->nb_segs == 1 && rte_mbuf_refcnt_read(m) == 1 && RTE_MBUF_DIRECT(m)) [[likely]]
      rte_mbuf_raw_free(m);
    else
      rte_pktmbuf_free(m);
  }
  // A receiving PMD may have written an RSS hash there; nothing reads it
  // after the switch takes the packet, and a transmitting one ignores it.
  static PktMeta* Meta(rte_mbuf* m) { return reinterpret_cast<PktMeta*>(&m->hash); }
  uint64_t NowNs() const {
    // A multiply, not a 128-bit division: this runs after every rx burst.
    return static_cast<uint64_t>((static_cast<unsigned __int128>(rte_get_tsc_cycles()) * ns_mult) >>
                                 32) -
           epoch_ns;
  }

  ~Dataplane();

 private:
  rte_mbuf* GrowAndAlloc();
  std::mutex grow_mu_;        // one thread grows the pool at a time
  bool grow_failed_ = false;  // warned once; under grow_mu_
};

// Creates the pool (nmbufs of room bytes of data each), RCU for `workers`
// worker lcores and the metadata field. After rte_eal_init. nullptr with
// *err naming what failed. `populate` 0: a DPDK pool in EAL memory, whole
// (devices may DMA into it); else a growable pool of emulated frames with
// `populate` mbufs to begin with (switch/mbuf_pool.h).
std::unique_ptr<Dataplane> CreateDataplane(unsigned workers, uint64_t nmbufs, uint16_t room,
                                           std::string* err, uint64_t populate = 0);

}  // namespace pfc::sw
