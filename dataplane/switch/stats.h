// SPDX-License-Identifier: BSD-3-Clause
// Dataplane counters. Each worker owns one WorkerStats block and is its only
// writer (plain relaxed load+store, no locked instructions); readers (the
// telemetry thread, the exit report) sum across workers. Nothing clears
// the counters: every view shows totals since start (`pfcctl clear counters`
// keeps a baseline on the client, as OVS's `zero[]` does). The one exception
// is the maxima list below, which /pfcswitch/clear,watermarks resets.
//
// Each counter is defined once, in the lists below (X-macros). The structs,
// the telemetry and exit-report JSON (pfcswitch/stats_report.cc) and the stage
// tests' counter snapshot (tests/dataplane/stages) all expand the same list,
// so a counter added here is exported and checked everywhere.
#pragma once
#include <atomic>
#include <cstdint>

#include "dataplane/common/types.h"

namespace pfc::sw {

// A single-writer counter: the owner adds, anyone reads.
class Counter {
 public:
  void Add(uint64_t n) {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void Set(uint64_t n) { v_.store(n, std::memory_order_relaxed); }
  // Keeps the largest value seen (a single-writer maximum: no CAS loop).
  void RaiseTo(uint64_t n) {
    if (n > v_.load(std::memory_order_relaxed)) v_.store(n, std::memory_order_relaxed);
  }
  uint64_t Get() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

// The X-macro lists keep one counter a line; clang-format would fold them.
// clang-format off
// Per port, not tied to a priority. X(name) for each; the name is the
// field and the exported name.
#define PFC_PORT_COUNTERS(X)                                                        \
  X(rx_packets) X(rx_bytes) X(tx_packets) X(tx_bytes)                               \
  X(rx_bursts)            /* non-empty rx bursts (packets per burst = ratio) */     \
  X(ecmp_tx)              /* routed here by the flow hash among equal-cost hops */  \
  X(arp_rx) X(arp_reply_tx) X(arp_request_tx) X(icmp_echo_reply)                    \
  X(ipv4_options) X(ipv4_fragments) X(non_ip)                                       \
  X(pfc_frames_rx) X(pause_8023x_rx) X(pfc_frames_tx)                               \
  X(pcp_rewrites)         /* forwarded 802.1Q frames whose PCP was remarked */      \
  X(pfc_reserved_bits_rx) /* PFC frames with reserved vector bits set (honoured) */ \
  /* DCFIT checking messages (stages/dcfit_stage.h), in PFC frames or alone: */     \
  X(dcfit_msg_tx)         /* sent (each XOFF/refresh carrying one counts) */        \
  X(dcfit_msg_rx)         /* received and well-formed */                            \
  X(dcfit_msg_dropped)    /* received, refused: bad checksum, version or field */   \
  X(dcfit_msg_tx_failed)  /* a standalone one found no mbuf or control-ring room */ \
  /* DCFIT trigger notices (dcfit/trigger_handler.h), also in dcfit_msg_*: */        \
  X(dcfit_notice_tx)      /* declared here, sent towards the trigger on this port */ \
  X(dcfit_notice_rx)      /* received on this port */                               \
  X(dcfit_notice_fwd)     /* received elsewhere, passed on on this port */      \
  X(link_down_events)     /* the link went down (emulated, or the device's) */   \
  /* the link went down while a pause it received was running: ended */     \
  X(pause_cleared_link_down)

// Per (port, priority). rx_* and drops are by INGRESS priority, tx_* and ecn_* by
// EGRESS priority (the new tag's queue, Tagger Fig. 8b). Drops are an array
// by DropReason beside these (named by DropReasonName).
#define PFC_PRIO_COUNTERS(X)                                                         \
  X(rx_packets) X(rx_bytes) X(tx_packets) X(tx_bytes)                                \
  /* ECN marking at our egress queue (stages/ecn_stage.h): */                        \
  X(ecn_marked)     /* ECT packets this switch set to CE */                          \
  X(ecn_not_ect)    /* over the min threshold but Not-ECT: left unmarked */          \
  /* Bytes this worker queued here, counted only where the switch marks ECN */     \
  /* or records INT: the queue's depth is their sum less tx_bytes and */             \
  /* tx_discard_bytes. */                                                            \
  X(ecn_queued_bytes)                                                               \
  X(lossy_fallback) /* tag had no mapping -> lossy queue */                          \
  X(rewrites)       /* tag changed by the rewrite table */                           \
  X(to_lossy_tag)   /* rewritten to the lossy tag (no rule matched) */               \
  /* PFC frames sent/received naming this priority (stages/pfc_stage.cc): */         \
  X(pfc_xoff_tx) X(pfc_xon_tx) X(pfc_refresh_tx) X(pfc_xoff_rx) X(pfc_xon_rx)        \
  /* Gauges published by the port's owner each round (Set, not Add): */              \
  X(paused_ns)   /* our egress of this priority paused by the peer */                \
  X(pausing_ns)  /* the peer paused by our frames */                                 \
  X(paused_now)  /* 1 while our egress is paused */                                  \
  X(pausing_now) /* 1 while we hold the peer in XOFF */                             \
  /* Pause-storm watchdog of our egress queue (stages/pfcwd_stage.h); its */         \
  /* drops are drops.pfcwd_storm, by ingress port and priority: */                   \
  X(pfcwd_storms)   /* storms detected */                                            \
  X(pfcwd_restores) /* storms ended */                                               \
  X(pfcwd_storm_ns) /* gauge: time spent in storm */                                 \
  X(pfcwd_in_storm) /* gauge: 1 while in storm */                                \
  /* Discarded from our egress queue, not sent (watchdog drop, DCFIT break): */      \
  X(tx_discards) X(tx_discard_bytes)                                                 \
  /* Packets our full lossless egress ring refused, held back in order until */    \
  /* it took them (switch/held_queue.h), by the producing worker: */                \
  X(egress_queue_held)                                                              \
  /* INT at our egress queue (stages/int_stage.h): */                                \
  X(int_hops)     /* hop records written into packets' INT trailers */              \
  X(int_inserted) /* trailers this switch added (packets that had none) */          \
  X(int_no_room)  /* packets left without a trailer: no tailroom, or chained */    \
  X(int_pint)     /* HPCC-PINT packets given the port's utilisation, if larger */ \
  X(int_pint_unset) /* PINT packets passed untouched: no int.pint section */       \
  /* PFC requests for this priority ignored: lossless, but not enabled on */       \
  /* this port (ports[].pfc_enable; stages/pfc_stage.cc) */                         \
  X(pfc_ignored_rx)

// Per (port, EGRESS priority) maxima. The port's owner (the one worker that
// dequeues its egress rings, stages/egress.cc) is their only writer, so only
// its block holds non-zero values and readers take the maximum over workers.
// Apart from the list above because a maximum is not summed, a stage test's
// exact counter snapshot would have to predict it, and a clear resets it:
// the telemetry thread stores 0 (pfcswitch/telemetry.cc says why the owner
// tolerates that store).
#define PFC_PRIO_MAXIMA(X)                                                           \
  X(egress_watermark) /* most packets queued (ring + stash) seen before a dequeue */

// Per worker, for the switch: X(field, exported name), summed over workers.
#define PFC_WORKER_COUNTERS(X)                                                       \
  X(loops, "worker_loops") X(idle_sleeps, "idle_sleeps")                             \
  X(intr_sleeps, "intr_sleeps") /* idle sleeps woken by receive interrupts */       \
  /* DCFIT events of this switch (stages/dcfit_stage.h): */                          \
  X(dcfit_episodes, "dcfit_episodes")   /* initial trigger / middle initiator */     \
  X(dcfit_loops, "dcfit_loops_found")   /* causality loop, temporal pass started */  \
  X(dcfit_deadlocks, "dcfit_deadlocks") /* temporal pass back: deadlock declared */  \
  X(dcfit_checks_failed, "dcfit_checks_failed") /* temporal pass failed */        \
  /* DCFIT initial-trigger handling (dcfit.trigger_handling): */                     \
  X(dcfit_notice_no_route, "dcfit_notice_no_route") /* no way towards S_tri */       \
  X(dcfit_trigger_holds, "dcfit_trigger_holds") /* host-lossy / rate-limit starts */ \
  X(dcfit_trigger_ends, "dcfit_trigger_ends")   /* ... and their ends */           \
  X(dcfit_trigger_events, "dcfit_trigger_events") /* every trigger-handling event */

// clang-format on

#define PFC_DECLARE_COUNTER(name) Counter name;
#define PFC_DECLARE_NAMED_COUNTER(name, exported) Counter name;

// What a packet adds to on its way comes first in each block (the lists'
// order), on the block's first line: rx and tx, ECN's bytes queued and
// marks, a port's ECMP count; a block starts on a line of its own.
struct alignas(64) PrioCounters {
  // First: egress reads it in the same round it adds tx_packets, a few
  // fields on, on the same cache line.
  PFC_PRIO_MAXIMA(PFC_DECLARE_COUNTER)
  PFC_PRIO_COUNTERS(PFC_DECLARE_COUNTER)
  Counter drops[kNumDropReasons];
};

struct alignas(64) PortCounters {
  PFC_PORT_COUNTERS(PFC_DECLARE_COUNTER)
};

struct alignas(kWorkerAlign) WorkerStats {
  PortCounters port[kMaxPorts];
  PrioCounters prio[kMaxPorts][kNumPrio];
  PFC_WORKER_COUNTERS(PFC_DECLARE_NAMED_COUNTER)
};

#undef PFC_DECLARE_COUNTER
#undef PFC_DECLARE_NAMED_COUNTER

// Calls f(name, counter) for every counter of the list, in list order.
// Drops are not included (callers name them with DropReasonName).
template <typename F>
void ForEachCounter(const PortCounters& c, F&& f) {
#define PFC_VISIT(name) f(#name, c.name);
  PFC_PORT_COUNTERS(PFC_VISIT)
#undef PFC_VISIT
}
template <typename F>
void ForEachCounter(const PrioCounters& c, F&& f) {
#define PFC_VISIT(name) f(#name, c.name);
  PFC_PRIO_COUNTERS(PFC_VISIT)
#undef PFC_VISIT
}
// f(name, maximum) for the per-priority maxima (PFC_PRIO_MAXIMA).
template <typename C, typename F>
void ForEachMaximum(C& c, F&& f) {
#define PFC_VISIT(name) f(#name, c.name);
  PFC_PRIO_MAXIMA(PFC_VISIT)
#undef PFC_VISIT
}
// f(exported name, counter) for the worker-level counters.
template <typename F>
void ForEachWorkerCounter(const WorkerStats& c, F&& f) {
#define PFC_VISIT(name, exported) f(exported, c.name);
  PFC_WORKER_COUNTERS(PFC_VISIT)
#undef PFC_VISIT
}

}  // namespace pfc::sw
