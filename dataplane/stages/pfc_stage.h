// SPDX-License-Identifier: BSD-3-Clause
// PFC glue between the pure PFC parts (dataplane/pause/) and a port's rx/tx:
//  * PfcReceive: a MAC control frame arrived: honour PFC (and, if enabled,
//    802.3x PAUSE) by updating the port's pause timers; count malformed ones.
//    Never forwarded.
//  * PfcGenerate: poll the ingress occupancy of the port's lossless priority
//    groups; when the XOFF/XON state machine wants a frame, build it and hand
//    it to the device directly, ahead of any queued data. Empty priority
//    groups in ON are not looked at (they cannot change state).
//  * PfcPublish: copy the owner-only pause state into the counters readers
//    see; a port with no PFC frame and no running pause since its last
//    publish is skipped (its gauges cannot have moved).
// Both run every round on every port, so an idle port costs a few loads.
// All run on the worker that owns the port (rx and tx of a port share it).
#pragma once
#include <rte_mbuf.h>

#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

void PfcReceive(WorkerCtx& w, PortId in, rte_mbuf* m);
void PfcGenerate(WorkerCtx& w, PortId port);
void PfcPublish(WorkerCtx& w, PortId port);
// Earliest time something PFC-related changes for this port (pause expiry,
// refresh due), or kNever.
Deadline PfcNextDeadline(const WorkerCtx& w, PortId port);

}  // namespace pfc::stages
