// SPDX-License-Identifier: BSD-3-Clause
// What the two halves of DCFIT's glue call of each other (dcfit_stage.cc:
// §3 detection; dcfit_trigger_stage.cc: §4 trigger handling). Internal to
// the stages; run under the switch's DCFIT lock by the worker holding it.
#pragma once
#include "dataplane/dcfit/detector.h"
#include "dataplane/stages/dcfit_state.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

// §3: a checking packet on its own, through the port's control ring: the
// owner sends it ahead of data, and pause does not hold it (egress.cc).
void DcfitSendStandalone(WorkerCtx& w, PortId port, const dcfit::CheckMsg& msg);

// §4: carries out and reports what the trigger handler said (d.acts), then
// clears it; cold.
void DcfitApplyActions(WorkerCtx& w, SwitchDcfit& d);
// §4: this switch is the initial trigger (congestion here): the egress ports
// the pausing port's packets wait on feed the heavy-hitter sketch.
void DcfitWatchCongestion(SwitchDcfit& d, const dcfit::Event& e);
// §4, once a tick: holds that end, and the sketch's watch while we still
// pause an upstream.
void DcfitTriggerTick(WorkerCtx& w, SwitchDcfit& d);
// What the packet path reads of the limiters and the watch (hh_any,
// limit_ports), after they changed.
void DcfitRecomputeLimits(SwitchDcfit& d);

}  // namespace pfc::stages
