// SPDX-License-Identifier: BSD-3-Clause
// The pipeline builder: the mechanisms a switch runs (mechanism.h), each
// adding its users to the hook points (hooks.h) in their sorted order.
#include "dataplane/stages/hooks.h"

#include <rte_mbuf.h>

#include <utility>

#include "dataplane/stages/mechanism.h"

namespace pfc::stages {

uint64_t GroupBytes(rte_mbuf* const* pkts, uint16_t n) {
  uint64_t b = 0;
  for (uint16_t i = 0; i < n; i++) b += rte_pktmbuf_pkt_len(pkts[i]);
  return b;
}

Hooks BuildHooks(const sw::Switch& sw) {
  Hooks h;
  for (const Mechanism* m : OrderedMechanisms())
    if (m->wanted(sw)) m->wire(sw, &h);
  for (uint8_t i = 0; i < h.enqueue.n; i++) {
    h.enqueue_before |= h.enqueue.fn[i].before != nullptr;
    h.enqueue_after |= h.enqueue.fn[i].after != nullptr;
    h.enqueue_bytes |= h.enqueue.fn[i].before != nullptr && h.enqueue.fn[i].reads_bytes;
  }
  const std::pair<uint8_t, Hooks::Point> points[] = {
      {h.held_lossy.n, Hooks::kHeldLossy},  {h.pfc_rx.n, Hooks::kPfcRx},
      {h.refused.n, Hooks::kRefused},       {h.round.n, Hooks::kRound},
      {h.egress.n, Hooks::kEgress},         {h.leave.n, Hooks::kLeave},
      {h.dequeue.n, Hooks::kDequeue},       {h.pfc_tx.n, Hooks::kPfcTx},
      {h.deadline.n, Hooks::kDeadline},     {h.port_busy.n, Hooks::kPortBusy},
      {h.round_again.n, Hooks::kRoundAgain}};
  for (const auto& [n, point] : points)
    if (n != 0) h.present |= point;
  return h;
}

}  // namespace pfc::stages
