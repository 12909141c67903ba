// SPDX-License-Identifier: BSD-3-Clause
// ECN marking glue (ecn config section): RED on each egress queue's depth in
// bytes (sched/red.h), decided as packets are queued, CE set on ECN-capable
// IPv4 packets only (net/ipv4_edit.h Ipv4MarkCe), counted per egress (port,
// priority) as ecn_marked, and as ecn_not_ect where the queue was over its
// min threshold but the packet was Not-ECT (left as it is: a lossless class
// never drops for it). Through the pipeline's hook points (hooks.h):
//  * enqueue: each packet sees the bytes queued ahead of it, marks by its
//    queue's profile with the worker's own generator (WorkerCtx::ecn_rng,
//    seeded from ecn.seed and the worker, so a fabric run repeats), and
//    adds its bytes to the depth; the after half takes back what the ring
//    refused;
//  * dequeue: what left (sent or discarded) leaves the depth.
// Wired when some queue has a profile (Switch::ecn); a queue without one
// keeps its depth and never reaches the marking code.
#pragma once
#include <cstdint>

#include "dataplane/stages/worker_ctx.h"

namespace pfc {

// One packet over its queue's min threshold: the decision, the mark and its
// count. Out of line: most packets never get here.
void EcnConsider(WorkerCtx& w, PortId out, int eprio, const RedQueue& red, int64_t depth,
                 rte_mbuf* m);

inline void EcnAddDepth(const WorkerCtx& w, std::atomic<int64_t>& d, int64_t bytes) {
  if (w.solo)
    d.store(d.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
  else
    d.fetch_add(bytes, std::memory_order_relaxed);
}

inline uint16_t EcnOnEnqueue(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                             ReleaseBatch&, uint32_t*) {
  std::atomic<int64_t>& d = w.sw->ecn->depth[out].bytes[eprio];
  const RedQueue& red = w.t->ecn[out][eprio];
  const int64_t start = d.load(std::memory_order_relaxed);
  int64_t depth = start;
  for (uint16_t i = 0; i < n; i++) {
    if (depth > red.min_bytes()) [[unlikely]]
      EcnConsider(w, out, eprio, red, depth, pkts[i]);
    depth += rte_pktmbuf_pkt_len(pkts[i]);
  }
  EcnAddDepth(w, d, depth - start);
  return n;
}

inline void EcnOnEnqueued(WorkerCtx& w, PortId, PortId out, int eprio, rte_mbuf* const* pkts,
                          uint16_t n, uint32_t, uint32_t done) {
  if (done >= n) [[likely]]
    return;
  int64_t refused = 0;
  for (uint16_t i = static_cast<uint16_t>(done); i < n; i++)
    refused += rte_pktmbuf_pkt_len(pkts[i]);
  EcnAddDepth(w, w.sw->ecn->depth[out].bytes[eprio], -refused);
}

inline void EcnOnDequeue(WorkerCtx& w, PortId out, int q, const PktMeta*, uint16_t,
                         uint64_t bytes) {
  EcnAddDepth(w, w.sw->ecn->depth[out].bytes[q], -static_cast<int64_t>(bytes));
}

}  // namespace pfc
