// SPDX-License-Identifier: BSD-3-Clause
// Frames the switch handles itself rather than forwards: ARP (answer for our
// port addresses, learn neighbours, resolve next hops), ICMP echo to our
// addresses (so a host can ping its gateway). MAC control frames (PFC) are
// handled in pfc_stage.h. Called from
// the ingress stage on the worker that owns the receiving port.
#pragma once
#include <rte_mbuf.h>

#include "dataplane/net/parser.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

bool IsLocalAddress(const sw::Switch& sw, uint32_t ip);
void HandleArp(WorkerCtx& w, PortId in, const net::ParsedPacket& pp, rte_mbuf* m);
void HandleLocal(WorkerCtx& w, PortId in, const net::ParsedPacket& pp, rte_mbuf* m, int prio);
// Broadcasts an ARP request for `ip` on `port`, rate-limited per address.
void RequestArp(WorkerCtx& w, PortId port, uint32_t ip);

}  // namespace pfc::stages
