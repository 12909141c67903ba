// SPDX-License-Identifier: BSD-3-Clause
// The egress stage of one port, run by its owning worker each poll round:
// control frames first (ARP and ICMP replies the switch made; PFC frames
// never queue, PfcGenerate hands them to the device), then packets the
// device refused last time, then the scheduler picks priority queues (strict
// or DWRR, paused priorities skipped, shaper tokens permitting) and the
// packets leave; their ingress buffer charge is released as the device takes
// them. Returns the number of packets sent; *ready_ns is lowered to when the
// shaper lets held-back packets go (for the idle back-off and the virtual
// clock; common/deadline.h).
#pragma once
#include <cstdint>

#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

// The caller saw NothingQueued false (EgressRound, worker.h), which also
// left the port's `queued` mask naming only rings that hold packets.
uint16_t EgressPort(WorkerCtx& w, PortId port, uint8_t paused_mask, Deadline* ready_ns);
// Nothing to send: no control frame, nothing the device refused, every
// egress queue empty (EgressRound does not call EgressPort then). A
// worker that serves the whole switch reads only the rings the port's
// `queued` mask names: those queued to since they were last seen empty.
bool NothingQueued(const WorkerCtx& w, const sw::PortRuntime& pr);
// Whoever queues to one of port's rings says so first, for NothingQueued:
// `ring` is the ring's bit in PortOwnerState::queued (1 << egress priority,
// or kControlRing). Only a worker serving the whole switch keeps the mask.
inline void MarkQueued(WorkerCtx& w, PortId port, uint16_t ring) {
  if (w.solo) w.sw->ports[port].owner_state->queued |= ring;
  if (w.active != nullptr) w.active->tx |= PortMask{1} << port;  // worker_ctx.h
}
// Discards everything egress queue (port, prio) holds (refused packets and
// the ring), counting each as a drop for `why` by its ingress port and
// priority and releasing its buffer charge; returns how many. Run by the
// port's owner (DCFIT break recovery, the pause-storm watchdog's drop).
uint32_t DiscardQueue(WorkerCtx& w, PortId port, int prio, DropReason why);
// Moves the packets this worker holds for full lossless rings
// (switch/held_queue.h) into them as far as they take, oldest first; run
// by the worker at the end of its round. Returns how many moved.
unsigned MoveHeld(WorkerCtx& w);

}  // namespace pfc::stages
