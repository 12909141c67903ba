// SPDX-License-Identifier: BSD-3-Clause
// The tail of a lossless egress queue that its ring could not take.
//
// An egress ring has a fixed number of slots, sized within a memory budget
// (config/eal_needs.h), while the buffer accountant admits by bytes: with
// many ports, or small frames, the buffer can admit more packets towards one
// queue than its ring holds. A lossless queue must never be what fills
// first (only the buffer's PFC may stop a lossless class), so the packets a
// full lossless ring refuses wait here, still charged to the buffer, in
// arrival order, and move into the ring as it drains. Later packets for the
// same queue wait behind them, so a flow keeps its order. Lossy queues drop
// at a full ring (egress_queue_full).
//
// One HeldQueues per (switch, worker): the worker whose ingress produced the
// packets is the only one that touches it (appends in stages/ingress.cc,
// moves into the ring at the end of its round in stages/worker.cc), so it
// needs no lock. Packets are linked through rte_mbuf::next, which a single-
// segment packet does not use while it waits; it is cleared before the
// packet enters a ring. The switch frees what is left when it goes.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "dataplane/common/types.h"

namespace pfc::sw {

struct HeldQueue {
  rte_mbuf* head = nullptr;
  rte_mbuf* tail = nullptr;
  uint32_t n = 0;
  bool listed = false;  // in HeldQueues::waiting

  void Push(rte_mbuf* m) {
    m->next = nullptr;
    if (tail)
      tail->next = m;
    else
      head = m;
    tail = m;
    n++;
  }
  // Unlinks up to `max` packets from the head into out[] (their next
  // cleared, ready for a ring); returns how many.
  uint32_t Take(rte_mbuf** out, uint32_t max) {
    uint32_t k = 0;
    while (head && k < max) {
      rte_mbuf* m = head;
      head = m->next;
      m->next = nullptr;
      out[k++] = m;
    }
    if (!head) tail = nullptr;
    n -= k;
    return k;
  }
  // Puts pkts[0, k) back in front, in that order (a ring took fewer).
  void PutBack(rte_mbuf* const* pkts, uint32_t k) {
    for (uint32_t i = k; i-- > 0;) {
      pkts[i]->next = head;
      head = pkts[i];
      if (!tail) tail = pkts[i];
      n++;
    }
  }
};

struct HeldQueues {
  std::vector<HeldQueue> q;       // by out_port * kNumPrio + egress priority
  std::vector<uint32_t> waiting;  // indices of the listed queues (some may have emptied)
  uint64_t packets = 0;           // held now, over all queues

  explicit HeldQueues(size_t nports) : q(nports * kNumPrio) { waiting.reserve(q.size()); }
  HeldQueue& At(PortId out, int prio) { return q[out * kNumPrio + prio]; }
  const HeldQueue& At(PortId out, int prio) const { return q[out * kNumPrio + prio]; }
  void Hold(PortId out, int prio, rte_mbuf* m) {
    HeldQueue& h = At(out, prio);
    if (!h.listed) {
      h.listed = true;
      waiting.push_back(static_cast<uint32_t>(out * kNumPrio + prio));
    }
    h.Push(m);
    packets++;
  }
  uint32_t Take(PortId out, int prio, rte_mbuf** pkts, uint32_t max) {
    const uint32_t k = At(out, prio).Take(pkts, max);
    packets -= k;
    return k;
  }
  void PutBack(PortId out, int prio, rte_mbuf* const* pkts, uint32_t k) {
    At(out, prio).PutBack(pkts, k);
    packets += k;
  }
  void FreeAll() {
    rte_mbuf* m;
    for (HeldQueue& h : q) {
      while (h.Take(&m, 1) == 1) rte_pktmbuf_free(m);
      h.listed = false;
    }
    waiting.clear();
    packets = 0;
  }
};

}  // namespace pfc::sw
