// SPDX-License-Identifier: BSD-3-Clause
// Pause-storm watchdog glue (pfc_watchdog config section): each egress round
// of a port with the watchdog on, PfcwdRound feeds each lossless priority's
// state machine (pause/pfcwd.h) with what the port's owner sees: the
// peer's pause (the port's pause timers), whether the egress queue holds
// packets, its tx count. On a storm it logs the event (stdout line and
// its event log, pfcwd_state.h) and counts it; while in storm it carries out the
// port's action:
//  * drop: discards the queue, and each round what arrived since
//    (DropReason::kPfcwdStorm), so the buffer it held is released and the
//    switch stops pausing its own upstreams on its account;
//  * forward: returns the priority in the mask of pauses egress ignores;
//  * alert: nothing more.
// An idle port, or one whose lossless priorities are not paused and not
// watched, costs a few loads. Runs on the worker that owns the port, through
// the pipeline's hook points (hooks.h: egress, deadline, port_busy), wired
// when any port of the switch has the watchdog on; its per-port state is
// the mechanism's own (pfcwd_state.h, in the switch's slot).
#pragma once
#include <cstdint>

#include "dataplane/stages/mechanism.h"
#include "dataplane/stages/pfcwd_state.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

// Run by a switch any of whose ports has the watchdog on.
extern const Mechanism kPfcwdMechanism;

// The switch's storm events (pfcwd_state.h); null when it runs no watchdog.
PfcwdEventLog* PfcwdLogOf(const sw::Switch& sw);

// egress: returns the priorities whose received pause egress must ignore. When it
// discarded packets, lowers *ready_ns to just after now: the
// buffer it released may let this switch resume an upstream (XON), which
// the ingress port's PFC generator sends in its own round, perhaps already
// run this round.
uint8_t PfcwdRound(WorkerCtx& w, PortId port, Deadline* ready_ns);
// deadline: when the watchdog must look again even if nothing else happens (a stall
// reaching detect_time, a quiet peer reaching restore_time), or kNever.
Deadline PfcwdNextDeadline(const WorkerCtx& w, PortId port);
// port_busy: a storm or a stall under watch on the port.
bool PfcwdPortBusy(const WorkerCtx& w, PortId port);

}  // namespace pfc::stages
