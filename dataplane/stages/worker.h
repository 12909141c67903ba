// SPDX-License-Identifier: BSD-3-Clause
// The run-to-completion loop of one worker lcore: poll the owned ports, run
// ingress on each burst, run egress on each owned port, report quiescence to
// RCU, and back off (sleep) when a round finds nothing to do so that a small
// machine is not starved (like Open vSwitch's PMD sleep). The sleep is cut
// short by the next shaper/pause deadline, and switched off with
// switch.idle_sleep_us: 0 for benchmarks.
#pragma once
#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

// rte_eal_remote_launch entry point; arg is a Worker* (every switch it
// serves, one round each in turn).
int WorkerMain(void* arg);

// One poll round of one switch at now_ns (exposed for stage tests,
// benchmarks and the fabric's virtual-time driver). Returns packets received
// + sent. *ready_ns (common/deadline.h; the caller starts it at kNever or at
// what other rounds reported) is lowered to every deadline the round meets:
// shaper tokens, pause expiry, PFC refresh, the watchdog, and an emulated
// port's next frame arrival or link slot. The worker loop passes the real clock.
// Never inlined (one call a round): callgrind's cost counts
// (bench/cost/table.sh, bench/fabric/cost.sh) start and stop at it, also under LTO.
[[gnu::noinline]] unsigned WorkerRound(WorkerCtx& w, uint64_t now_ns, Deadline* ready_ns);
// The egress half of a round for one owned port, in the order a round runs
// it: PFC generation, egress under the received-pause mask, the published
// PFC gauges, the port's next deadline (emulated link included). w.now_ns
// and w.t are the round's. Returns packets sent. (Stage tests call this to
// run exactly what a worker runs.)
uint16_t EgressRound(WorkerCtx& w, PortId p, Deadline* ready_ns);
// The same on the real clock, re-read after every non-empty rx burst.
[[gnu::noinline]] unsigned WorkerRound(WorkerCtx& w, Deadline* ready_ns);

// After a round with work: could another round at the same instant do
// anything? True when the round stopped short of something due now (a full
// rx or tx burst), when a port's PFC generator is pausing or announcing (a
// release by a port later in the round may allow its XON now), when a port
// is under the storm watchdog, and always with DCFIT (its round looks at
// what the egress loop changed). Otherwise nothing due now is left: ingress
// ran before every egress, a quiet generator has nothing to send until
// ingress charges more, and every later need (pause expiry, refresh, link
// slots, shaper tokens) is a deadline in *ready_ns. The fabric's virtual
// clock runs the next round then instead of re-running at once: the same
// results in 47% fewer rounds on the leaf-spine cost bench.
bool RoundLeftWork(const WorkerCtx& w);

// Hints for a driver that knows which switch runs next (the fabric's
// virtual clock): the lines that switch's round reads first, fetched while
// something else runs, so that its round does not wait on them one after
// another (each switch's state is cold by its next round in a large
// fabric). Neither changes anything. The first reads no line of w itself:
// the context's first lines and its active set, by address. The second,
// called later (when those lines have come), reads the active set for the
// ports a round at now_ns visits and fetches their state: the port's
// runtime, owner state, provider, counters and the landing frame
// (ActivePorts::next_rx) for a frame landing, the owner state and counters
// for one with something to send.
void PrefetchRoundStart(const WorkerCtx* w, const ActivePorts* active);
void PrefetchRoundPorts(const WorkerCtx& w, uint64_t now_ns);

}  // namespace pfc::stages
