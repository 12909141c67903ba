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

// One poll round (exposed for stage tests and benchmarks). Returns packets
// received + sent; *ready_ns as in EgressPort.
unsigned WorkerRound(WorkerCtx& w, uint64_t* ready_ns);

}  // namespace pfc
