// SPDX-License-Identifier: BSD-3-Clause
// ECN marking glue (ecn config section): RED on each egress queue's depth in
// bytes (sched/red.h), decided as packets are queued (or, for a profile
// with mark_at: dequeue, as they leave for transmission), CE set on ECN-capable
// IPv4 packets only (net/ipv4_edit.h Ipv4MarkCe), counted per egress (port,
// priority) as ecn_marked, and as ecn_not_ect where the queue was over its
// min threshold but the packet was Not-ECT (left as it is: a lossless class
// never drops for it). Through the pipeline's hook points (hooks.h):
//  * enqueue: each packet sees the bytes queued ahead of it, marks by its
//    queue's profile with the worker's own generator (its slot of WorkerCtx::mech,
//    seeded from ecn.seed and the worker, so a fabric run repeats), and
//    the group's bytes are counted as queued;
//  * refused: what the egress ring did not take was not queued;
//  * leave (profiles that mark at dequeue only): each packet sees the
//    bytes it leaves behind in its queue, and marks by them instead.
// Wired when some queue has a profile (Switch::ecn); a queue without one
// costs a test, and its depth is not kept (profiles are fixed at start).
//
// The depth is what went in less what came out, all from counters
// (switch/stats.h): ecn_queued_bytes, which each worker keeps for the
// queues it queues to (single writer, so never an atomic), less the port
// owner's tx_bytes and tx_discard_bytes, which egress keeps anyway. So
// leaving a queue costs ECN nothing, and with one worker for the switch
// (WorkerCtx::solo) the depth is three loads from one block.
#pragma once
#include <cstdint>

#include "dataplane/stages/mechanism.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

// Run by a switch with a WRED profile on some egress queue (Switch::ecn).
extern const Mechanism kEcnMechanism;

// Bytes in egress queue (p, q) now, as seen from any thread; kept only for
// queues with a profile. The owner's counters are read first: what they
// count went in before (a packet is counted as queued before it is), so
// traffic meanwhile can only add.
int64_t EcnDepth(const sw::Switch& sw, PortId p, int q);

// What left egress queue (p, q): its owner's counters of it.
inline uint64_t EcnLeft(const sw::PrioCounters& c) {
  return c.tx_bytes.Get() + c.tx_discard_bytes.Get();
}

inline int64_t EcnDepthSolo(const sw::PrioCounters& c) {
  const uint64_t out = EcnLeft(c);
  return static_cast<int64_t>(c.ecn_queued_bytes.Get() - out);
}

// A group whose last packet finds more than the min threshold ahead:
// marks what each packet deserves at the depth ahead of it, and counts the
// group as queued. Out of line.
[[gnu::noinline]] uint16_t EcnMarkGroup(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts,
                                        uint16_t n);

// `bytes`: the group's, as ingress summed them (wired with reads_bytes).
inline uint16_t EcnOnEnqueue(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                             uint64_t bytes, buffer::ReleaseBatch&, uint32_t*) {
  const sched::RedQueue& red = w.t->ecn[out][eprio];
  if (!red.enabled()) return n;  // no profile: its depth is never asked
  sw::PrioCounters& c = w.st->prio[out][eprio];
  // Several workers serving the switch: the depth sums their counters.
  const int64_t depth = w.solo ? EcnDepthSolo(c) : EcnDepth(*w.sw, out, eprio);
  // The last packet finds depth + bytes - its length (at least 1) ahead.
  if (depth + static_cast<int64_t>(bytes) - 1 > red.enqueue_min_bytes()) [[unlikely]]
    return EcnMarkGroup(w, out, eprio, pkts, n);
  c.ecn_queued_bytes.Add(bytes);
  return n;
}

// Packets of a profile that marks at dequeue, taken from the head of
// (out, q) for transmission: each judged by the bytes it leaves behind,
// `depth` (what the queue held before they were taken) less its own and
// those taken before it. Out of line.
[[gnu::noinline]] void EcnMarkLeaving(WorkerCtx& w, PortId out, int q, rte_mbuf* const* pkts,
                                      uint16_t n, int64_t depth);

// leave (wired when some profile marks at dequeue): run by the port's
// owner, whose tx counters these packets are not in yet.
inline uint32_t EcnOnLeave(WorkerCtx& w, PortId out, int q, rte_mbuf* const* pkts, uint16_t n,
                           uint32_t) {
  const sched::RedQueue& red = w.t->ecn[out][q];
  if (!red.at_dequeue()) return 0;
  const int64_t depth = w.solo ? EcnDepthSolo(w.st->prio[out][q]) : EcnDepth(*w.sw, out, q);
  // The first packet leaves the most behind: nothing to mark unless it does.
  if (depth - static_cast<int64_t>(rte_pktmbuf_pkt_len(pkts[0])) > red.min_bytes()) [[unlikely]]
    EcnMarkLeaving(w, out, q, pkts, n, depth);
  return 0;
}

// Whether ECN keeps the depth of (out, eprio) (INT keeps the others':
// stages/int_stage.h).
inline bool EcnCounts(const WorkerCtx& w, PortId out, int eprio) {
  return w.sw->ecn && w.t->ecn[out][eprio].enabled();
}

inline void EcnOnRefused(WorkerCtx& w, PortId out, int eprio, rte_mbuf* const* pkts, uint16_t n) {
  if (!w.t->ecn[out][eprio].enabled()) return;  // not counted in
  // Modulo 2^64: the counter went up by at least as much just before.
  w.st->prio[out][eprio].ecn_queued_bytes.Add(-GroupBytes(pkts, n));
}

}  // namespace pfc::stages
