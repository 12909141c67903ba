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
#include <string>

namespace pfc {

// Per-packet metadata kept in an mbuf dynamic field from admission until the
// packet leaves: which ingress priority group to release.
struct PktMeta {
  uint16_t in_port;
  uint8_t in_prio;
  uint8_t flags;
  uint32_t charged;  // bytes charged to the buffer (cell-rounded)
};

class Dataplane {
 public:
  rte_mempool* pool = nullptr;
  rte_rcu_qsbr* qsbr = nullptr;
  unsigned workers = 1;         // worker lcores registered with qsbr
  uint32_t idle_sleep_us = 50;  // the workers' idle back-off
  // The longest idle sleep of a worker woken by receive interrupts
  // (stages/worker.cc); SwitchConfig::interrupt_sleep_ms.
  uint32_t interrupt_sleep_ms = 10;
  std::atomic<bool> stop{false};
  uint64_t tsc_hz = 0;
  uint64_t ns_mult = 0;  // ns per TSC cycle, 32.32 fixed point
  int meta_off = -1;     // mbuf dynfield offset of PktMeta
  // Subtracted from the clock: the fabric emulator starts its real clock at
  // 0 so that switches, emulated hosts and the timeline share one time base.
  uint64_t epoch_ns = 0;

  PktMeta* Meta(rte_mbuf* m) const { return RTE_MBUF_DYNFIELD(m, meta_off, PktMeta*); }
  uint64_t NowNs() const {
    // A multiply, not a 128-bit division: this runs after every rx burst.
    return static_cast<uint64_t>((static_cast<unsigned __int128>(rte_get_tsc_cycles()) * ns_mult) >>
                                 32) -
           epoch_ns;
  }

  ~Dataplane();
};

// Creates the pool (nmbufs of room bytes of data each), RCU for `workers`
// worker lcores and the metadata field. After rte_eal_init. nullptr with
// *err naming what failed.
std::unique_ptr<Dataplane> CreateDataplane(unsigned workers, uint64_t nmbufs, uint16_t room,
                                           std::string* err);

}  // namespace pfc
