// SPDX-License-Identifier: BSD-3-Clause
// The pipeline builder: which features a switch's workers run, and at which
// hook points (hooks.h). The one place a feature is wired in.
#include "dataplane/stages/hooks.h"

#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/ecn_stage.h"
#include "dataplane/stages/pfcwd_stage.h"

namespace pfc::stages {

Hooks BuildHooks(const sw::Switch& sw) {
  Hooks h;
  // The watchdog before DCFIT at egress: its drop empties a storming queue
  // before egress looks (pfcwd_stage.h).
  bool wd = false;
  for (const sw::PortRuntime& pr : sw.ports) wd |= pr.owner_state->wd_cfg.enabled;
  if (wd) {
    h.egress.Add(PfcwdRound);
    h.deadline.Add(PfcwdNextDeadline);
    h.port_busy.Add(PfcwdPortBusy);
  }
  if (sw.dcfit) {
    h.held_lossy.Add(DcfitHostHold);
    h.held_lossy_drop = DropReason::kDcfitHostLossy;
    h.pfc_rx.Add(DcfitPfcReceived);
    h.enqueue.Add({DcfitOnEnqueue, DcfitOnEnqueued});
    h.round.Add(DcfitRound);
    h.egress.Add(DcfitEgressIgnore);
    h.dequeue.Add(DcfitOnDequeue);
    h.pfc_tx.Add(DcfitPfcTx);
    h.round_again.Add(DcfitRoundAgain);
  }
  // ECN after DCFIT's policing: a packet DCFIT drops is neither marked nor
  // counted in the depth.
  if (sw.ecn) {
    h.enqueue.Add({EcnOnEnqueue, nullptr});
    h.refused.Add(EcnOnRefused);
  }
  for (uint8_t i = 0; i < h.enqueue.n; i++) h.enqueue_after |= h.enqueue.fn[i].after != nullptr;
  return h;
}

}  // namespace pfc::stages
