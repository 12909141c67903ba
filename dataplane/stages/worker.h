// SPDX-License-Identifier: BSD-3-Clause
// The run-to-completion loop of one worker lcore: poll the owned ports, run
// ingress on each burst, run egress on each owned port, report quiescence to
// RCU, and back off (sleep) when a round finds nothing to do so that a small
// machine is not starved (like Open vSwitch's PMD sleep). The sleep is cut
// short by the next shaper/pause deadline, and switched off with
// switch.idle_sleep_us: 0 for benchmarks.
#pragma once
#include "dataplane/stages/worker_ctx.h"

namespace pfc {

// rte_eal_remote_launch entry point; arg is a WorkerCtx*.
int WorkerMain(void* arg);

// One poll round at now_ns (exposed for stage tests and benchmarks, which
// drive a virtual clock). Returns packets received + sent; *ready_ns as in
// EgressPort. The worker loop passes the real clock.
unsigned WorkerRound(WorkerCtx& w, uint64_t now_ns, uint64_t* ready_ns);
// The same on the real clock, re-read after every non-empty rx burst.
unsigned WorkerRound(WorkerCtx& w, uint64_t* ready_ns);

}  // namespace pfc
