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

#include "dataplane/switch/tables_snapshot.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc {

void IngressBurst(WorkerCtx& w, const Tables& t, PortId in_port, rte_mbuf** pkts, uint16_t n);

// Sends a frame the switch made (ARP, PFC) out of `port` ahead of its data.
// Counted as kEgressQueueFull-free: a full control ring frees the frame and
// returns false.
bool SendControl(WorkerCtx& w, PortId port, rte_mbuf* m);

}  // namespace pfc
