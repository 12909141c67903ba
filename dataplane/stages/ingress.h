// SPDX-License-Identifier: BSD-3-Clause
// The ingress stage: one rx burst of one port through parse -> (ARP / PFC /
// local ICMP handled here) -> classify by tag -> route (L3) or L2 lookup ->
// buffer admission charged to (in-port, ingress priority) -> Tagger rewrite
// -> enqueue at the egress queue of the NEW tag's priority (Tagger Fig. 8b),
// which an 802.1Q-tagged frame also gets as its PCP (net/vlan_edit.h).
// Every packet ends forwarded, consumed, or dropped with a reason counter.
// Runs on the worker that owns `in_port`.
#pragma once
#include <rte_mbuf.h>

#include "dataplane/stages/worker_ctx.h"
#include "dataplane/switch/tables_snapshot.h"

namespace pfc::stages {

// Uses the round's snapshot w.t (set by WorkerRound before the first burst).
// Takes the n mbufs; `pkts` itself is used as scratch (its contents after
// the call mean nothing).
void IngressBurst(WorkerCtx& w, PortId in_port, rte_mbuf** pkts, uint16_t n);

// Queues a frame the switch made on the packet path (ARP reply or request,
// ICMP echo reply) on `port`'s control ring, which the egress stage sends
// ahead of data. PFC frames do not come here (pfc_stage.h sends them to the
// device directly). A full control ring frees the frame, counts it as
// egress_queue_full on the lossy priority, and returns false.
bool SendControl(WorkerCtx& w, PortId port, rte_mbuf* m);

}  // namespace pfc::stages
