// SPDX-License-Identifier: BSD-3-Clause
// DCFIT glue, §3 (detection): see dcfit_stage.h for what each hook does
// and why. §4's trigger handling is in dcfit_trigger_stage.cc.
#include "dataplane/stages/dcfit_stage.h"

#include <rte_ring.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dataplane/buffer/accountant.h"
#include "dataplane/stages/dcfit_trigger_stage.h"
#include "dataplane/stages/egress.h"

namespace pfc::stages {
namespace {

using dcfit::CheckMsg;
using dcfit::EventKind;

// The detector's view of port p (ours) as paused by its peer, mirrored into
// w for the lock-free expiry check of DcfitRound.
void SyncPaused(WorkerCtx& w, SwitchDcfit& d, PortId p) {
  const dcfit::Causality& c = d.det.causality();
  uint8_t bits = 0;
  for (uint32_t m = d.det.config().lossless_mask; m; m &= m - 1) {
    const int q = std::countr_zero(m);
    if (c.paused(q) >> p & 1) bits |= static_cast<uint8_t>(1u << q);
  }
  DcfitWorker& dw = DcfitWorkerOf(w);
  dw.paused[p] = bits;
  const PortMask bit = PortMask{1} << p;
  dw.paused_ports = bits ? (dw.paused_ports | bit) : (dw.paused_ports & ~bit);
}

// Cold: events are rare next to packets.
[[gnu::noinline]] void HandleEvent(WorkerCtx& w, SwitchDcfit& d, const dcfit::Event& e) {
  sw::WorkerStats& st = *w.st;
  switch (e.kind) {
    case EventKind::kTriggerSwitch:
      if (d.trigger_handling) DcfitWatchCongestion(d, e);
      [[fallthrough]];
    case EventKind::kTriggerHost:
    case EventKind::kMiddleInitiator:
      // Every congestion XOFF starts an episode: counted, not logged.
      st.dcfit_episodes.Add(1);
      return;
    case EventKind::kLoopFound:
      st.dcfit_loops.Add(1);
      break;
    case EventKind::kDeadlock:
      st.dcfit_deadlocks.Add(1);
      break;
    case EventKind::kTemporalFailed:
      st.dcfit_checks_failed.Add(1);
      break;
  }
  DcfitEventRecord r;
  r.ev = e;
  // A deadlock is declared when our message comes back on in_port, i.e. by
  // the worker that received it there: the owner of in_port's queue.
  if (e.kind == EventKind::kDeadlock && d.recovery_break && w.sw->ports[e.in_port].owner == w.id) {
    // The queue waiting on the loop's paused link: in_port is where our
    // message came back, i.e. the port the next switch of the loop pauses.
    r.broke = true;
    // Discards what the queue holds, once: the packets that wait for the
    // paused next hop of the loop. Their buffer charge is released, so this
    // switch resumes its upstream on the loop, and the loop drains from
    // there (DCFIT §4: only as much as restarts the loop).
    r.break_drops = DiscardQueue(w, e.in_port, e.msg.prio, DropReason::kDcfitBreak);
  }
  d.log.Add(r);  // the control thread prints it (switch/log.h)
  if (e.kind == EventKind::kDeadlock && d.trigger_handling) {
    // DCFIT §4: broken; now keep it from coming back.
    d.trig.OnDeadlock(e.msg, w.now_ns, &d.acts);
    DcfitApplyActions(w, d);
  }
}

// Carries out d.out (except piggybacked messages the caller put in its
// frame: skip_port/skip_prio) and clears it.
void Flush(WorkerCtx& w, SwitchDcfit& d, int skip_port = -1, int skip_prio = -1) {
  for (const dcfit::OutMsg& o : d.out.msgs) {
    if (o.piggyback && o.port == skip_port && o.msg.prio == skip_prio) continue;
    DcfitSendStandalone(w, o.port, o.msg);
  }
  for (const dcfit::Event& e : d.out.events) HandleEvent(w, d, e);
  d.out.clear();
}

}  // namespace

// A checking packet on its own, through the port's control ring: the owner
// sends it ahead of data, and pause does not hold it (egress.cc).
void DcfitSendStandalone(WorkerCtx& w, PortId port, const dcfit::CheckMsg& msg) {
  sw::PortRuntime& pr = w.sw->ports[port];
  sw::PortCounters& pc = w.st->port[port];
  MarkQueued(w, port, sw::PortOwnerState::kControlRing);
  rte_mbuf* m = w.sw->dp.Alloc();
  uint8_t* f = m ? reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, pause::kPfcFrameLen)) : nullptr;
  if (f == nullptr || dcfit::BuildCheckingPacket(pr.mac, msg, f, pause::kPfcFrameLen) == 0 ||
      rte_ring_enqueue(pr.control, m) != 0) {
    if (m) rte_pktmbuf_free(m);
    pc.dcfit_msg_tx_failed.Add(1);
    return;
  }
  pc.dcfit_msg_tx.Add(1);
}

bool DcfitPfcTx(WorkerCtx& w, PortId port, const pause::PauseRequest& req, uint8_t* frame) {
  SwitchDcfit& d = Dcfit(w);
  DcfitGuard g(d);
  const uint8_t ll = d.det.config().lossless_mask;
  uint8_t& told = d.told_off[port];
  for (uint32_t m = req.class_enable & ll; m; m &= m - 1) {
    const int q = std::countr_zero(m);
    const uint8_t bit = static_cast<uint8_t>(1u << q);
    if (req.quanta[q] != 0 && !(told & bit)) {
      told |= bit;
      d.det.OnXoffSent(port, q, w.now_ns, &d.out);
    } else if (req.quanta[q] == 0 && (told & bit)) {
      told &= static_cast<uint8_t>(~bit);
      d.det.OnXonSent(port, q, w.now_ns, &d.out);
    }
  }
  // One message a frame: the lowest pausing priority that has one. Others
  // (several lossless priorities turning XOFF at once) go on their own.
  int carried = -1;
  for (uint32_t m = req.class_enable & ll; m && carried < 0; m &= m - 1) {
    const int q = std::countr_zero(m);
    if (req.quanta[q] == 0) continue;
    if (const CheckMsg* p = d.det.Piggyback(port, q)) {
      dcfit::EncodeMsg(*p, frame + dcfit::kMsgOffset, pause::kPfcFrameLen - dcfit::kMsgOffset);
      carried = q;
    }
  }
  Flush(w, d, port, carried);
  return carried >= 0;
}

void DcfitPfcReceived(WorkerCtx& w, PortId in, const uint8_t* frame, size_t len,
                      const pause::PauseRequest& req) {
  SwitchDcfit& d = Dcfit(w);
  DcfitGuard g(d);
  sw::PortCounters& pc = w.st->port[in];
  CheckMsg msg;
  bool has = false;
  if (len > dcfit::kMsgOffset) {
    const dcfit::MsgStatus s =
        dcfit::DecodeMsg(frame + dcfit::kMsgOffset, len - dcfit::kMsgOffset, &msg);
    has = s == dcfit::MsgStatus::kOk;
    if (has)
      pc.dcfit_msg_rx.Add(1);
    else if (s != dcfit::MsgStatus::kNone)
      pc.dcfit_msg_dropped.Add(1);
  }
  if (has && (msg.flags & dcfit::kNotice)) {
    // A trigger notice is for the trigger handler, never the detector.
    pc.dcfit_notice_rx.Add(1);
    if (d.trigger_handling) {
      d.trig.OnNotice(in, msg, w.now_ns, &d.acts);
      DcfitApplyActions(w, d);
    }
    return;
  }
  // The way back to this message's trigger, for a notice later.
  if (has && d.trigger_handling) d.trig.Learn(in, msg, w.now_ns);
  const uint8_t ll = d.det.config().lossless_mask;
  if (req.class_enable == 0) {
    if (has) d.det.OnPfcReceived(in, msg.prio, dcfit::RxKind::kCheckOnly, &msg, w.now_ns, &d.out);
  } else {
    dcfit::Causality& c = d.det.causality();
    for (uint32_t m = req.class_enable & ll; m; m &= m - 1) {
      const int q = std::countr_zero(m);
      const bool xoff = req.quanta[q] != 0;
      uint64_t& since = d.paused_since[in][q];
      if (!xoff)
        since = 0;
      else if (!(c.paused(q) >> in & 1))
        since = w.now_ns;
      d.det.OnPfcReceived(in, q, xoff ? dcfit::RxKind::kXoff : dcfit::RxKind::kXon,
                          has && xoff && msg.prio == q ? &msg : nullptr, w.now_ns, &d.out);
    }
    SyncPaused(w, d, in);
  }
  Flush(w, d);
}

void DcfitRound(WorkerCtx& w) {
  SwitchDcfit& d = Dcfit(w);
  const uint8_t ll = d.det.config().lossless_mask;
  // A peer's pause that ran out without XON is a resume too (§3.2: the
  // RESUME tag is set, the stored message dropped). Each worker watches the
  // ports it owns (their pause timers are its own), without the lock until
  // one expires.
  const DcfitWorker& dw = DcfitWorkerOf(w);
  for (PortMask pm = dw.paused_ports; pm; pm &= pm - 1) {
    const PortId p = static_cast<PortId>(std::countr_zero(pm));
    const uint8_t live = w.sw->ports[p].owner_state->pause.PausedMask(w.now_ns);
    const uint8_t gone = dw.paused[p] & ~live & ll;
    if (gone == 0) continue;
    DcfitGuard g(d);
    for (uint32_t m = gone; m; m &= m - 1) {
      const int q = std::countr_zero(m);
      d.paused_since[p][q] = 0;
      d.det.OnPfcReceived(p, q, dcfit::RxKind::kXon, nullptr, w.now_ns, &d.out);
    }
    SyncPaused(w, d, p);
    Flush(w, d);
  }
  // The rest is the switch's, done by one worker. Shared, it looks once a
  // tick (so a trigger hold may end up to a tick late), not every round.
  if (!dw.lead || (d.shared && w.now_ns < d.next_tick_ns)) return;
  DcfitGuard g(d);
  if (d.trigger_handling) DcfitTriggerTick(w, d);
  if (w.now_ns >= d.next_tick_ns) {
    d.det.Tick(w.now_ns, &d.out);
    d.next_tick_ns = w.now_ns + d.tick_ns;
  }
  if (!d.out.msgs.empty() || !d.out.events.empty()) Flush(w, d);
}

void DcfitLeftCounts(WorkerCtx& w, SwitchDcfit& d, PortId out, int q, const sw::PktMeta* metas,
                     uint16_t n) {
  if (n == 0) return;
  dcfit::Causality& c = d.det.causality();
  const unsigned shard = DcfitWorkerOf(w).shard;
  // Ingress queues a burst's packets for one queue together: runs are long.
  PortId run_in = metas[0].in_port;
  uint32_t run_n = 0;
  for (uint16_t i = 0; i < n; i++) {
    const sw::PktMeta& meta = metas[i];
    if (meta.in_port != run_in) {
      c.OnDequeue(run_in, out, q, run_n, shard);
      run_in = meta.in_port;
      run_n = 0;
    }
    run_n += DcfitTracks(meta, q);
  }
  c.OnDequeue(run_in, out, q, run_n, shard);
}

namespace {
bool DcfitWanted(const sw::Switch& sw) { return sw.cfg.dcfit.enabled; }

// DCFIT over the switch's ports and lossless priorities; its ID is the
// configured one, else the switch's index (0 for a standalone pfcswitch; the
// fabric writes each switch's topology node as switch_id).
std::unique_ptr<sw::MechanismState> DcfitState(const sw::Switch& sw) {
  const config::SwitchConfig& cfg = sw.cfg;
  auto d = std::make_unique<SwitchDcfit>();
  dcfit::DetectorConfig dc;
  dc.self = static_cast<dcfit::SwitchId>(cfg.dcfit.switch_id >= 0 ? cfg.dcfit.switch_id : sw.index);
  dc.num_ports = static_cast<int>(cfg.ports.size());
  dc.lossless_mask = cfg.tag_map.lossless_mask;
  dc.temporal_timeout_ns = cfg.dcfit.check_timeout_ns;
  // Ports on several workers: a shard of the causality counts per worker
  // (indexed by worker id), and the hooks under the lock (dcfit_state.h);
  // one worker: FIFO positions (causality.h).
  for (const sw::PortRuntime& pr : sw.ports) d->shared |= pr.owner != sw.ports[0].owner;
  dc.shards = d->shared ? sw.dp.workers : 0;
  std::string err;
  dcfit::TriggerConfig tc;
  tc.self = dc.self;
  tc.num_ports = dc.num_ports;
  tc.hold_ns = cfg.dcfit.hold_ns;
  // The config's checks (config/sections_dcfit.cc) rule out what these
  // refuse.
  if (!d->det.Configure(dc, &err) || !d->trig.Configure(tc, &err)) {
    std::fprintf(stderr, "pfc: %s: %s, after the config's checks (a bug)\n", cfg.path.c_str(),
                 err.c_str());
    std::abort();
  }
  d->recovery_break = cfg.dcfit.recovery_break;
  d->trigger_handling = cfg.dcfit.trigger_handling;
  d->limit_fraction = cfg.dcfit.rate_limit_fraction;
  d->limit_bps = cfg.dcfit.rate_limit_bps;
  // Timeouts are checked a few times per check_timeout, not every round.
  d->tick_ns = std::max<uint64_t>(cfg.dcfit.check_timeout_ns / 8, 1);
  return d;
}

std::unique_ptr<sw::MechanismState> DcfitWorkerState(const sw::Switch& sw, const WorkerCtx& w) {
  auto s = std::make_unique<DcfitWorker>();
  s->shard = w.solo ? 0 : w.id;
  s->lead = !sw.ports.empty() && sw.ports[0].owner == w.id;
  return s;
}

void DcfitWire(const sw::Switch& sw, Hooks* h) {
  const SwitchDcfit& d = *DcfitOf(sw);
  // The causality mapping follows lossless priorities only (the others'
  // calls would change nothing). Not filtered at dequeue: the check there
  // costs the pipeline without DCFIT an instruction a packet (its code
  // layout), and DCFIT's own is as cheap.
  const uint8_t ll = d.det.config().lossless_mask;
  h->held_lossy.Add(DcfitHostHold);
  h->held_lossy_drop = DropReason::kDcfitHostLossy;
  h->pfc_rx.Add(DcfitPfcReceived);
  h->enqueue.Add({.before = d.trigger_handling || d.shared ? DcfitOnEnqueue : nullptr,
                  .after = DcfitOnEnqueued,
                  .after_prios = ll});
  h->round.Add(DcfitRound);
  h->egress.Add(DcfitEgressIgnore);
  h->dequeue.Add(DcfitOnDequeue);
  h->pfc_tx.Add(DcfitPfcTx);
  h->round_again.Add(DcfitRoundAgain);
}
}  // namespace

const Mechanism kDcfitMechanism = {
    .name = "dcfit",
    .runs_after = {},
    .runs_before = {},
    .wanted = DcfitWanted,
    .wire = DcfitWire,
    .make_state = DcfitState,
    .make_worker_state = DcfitWorkerState,
};

}  // namespace pfc::stages
