// SPDX-License-Identifier: BSD-3-Clause
// DCFIT glue (DCFIT §3): feeds the switch's detector (stages/dcfit_state.h,
// dataplane/dcfit/detector.h) what the stages do, and carries out what it
// asks for:
//  * enqueue / dequeue of packets at (out port, egress priority), with their
//    ingress port: the causality mapping (ingress.cc, egress.cc, and the
//    recovery's discards here);
//  * XOFF / XON the PFC generator sends (pfc_stage.cc): the detector learns
//    we pause our upstream, and the XOFF and every refresh carry the
//    message it keeps for that port in the frame's padding (message.h);
//  * PFC frames received (pfc_stage.cc): pause / resume and the message in
//    the padding, or a standalone checking packet (class-enable vector 0);
//  * each round: pauses that expired without XON, the detector's timeouts;
//  * messages it sends on their own: a standalone checking packet in the
//    port's control ring, which the owner sends ahead of data and which
//    pause never holds (egress.cc), so it crosses a paused link;
//  * events: counters, a log line on stdout, the switch's event log
//    (telemetry /pfcswitch/events, the fabric's results.json), and with
//    dcfit.recovery: break, the discard of the looped queue on a deadlock;
//  * with dcfit.trigger_handling, initial-trigger handling (DCFIT §4,
//    dcfit/trigger_handler.h): on a deadlock it declares, and on a trigger
//    notice received, the handler's actions: notices sent on (standalone
//    checking packets), a trigger host's port whose pause egress ignores
//    (DcfitHostHold, the mask the watchdog's `forward` uses too; the
//    port also sends it no XOFF and drops its overflow), a
//    trigger switch's heavy hitters (dcfit/heavy_hitter.h) fed by the
//    packets into its congested egress ports and then rate-limited
//    (DcfitPolice); each an event like the detector's.
// With several workers on the switch, every hook but the per-burst counts
// and the atomics the packet path reads runs under the switch's DCFIT lock
// (stages/dcfit_state.h says who writes what). The stages reach these
// through the pipeline's hook points (hooks.h); with DCFIT off none is
// wired.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "dataplane/dcfit/message.h"
#include "dataplane/stages/dcfit_state.h"
#include "dataplane/stages/mechanism.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::buffer {
class ReleaseBatch;
}  // namespace pfc::buffer

namespace pfc::stages {

// DCFIT follows a packet only while its priority stays the same: one that
// a rewrite moved to another priority (Tagger's rules) is outside its
// causality, which is per priority (DCFIT §3 has no rewrite). Counting it
// at (in, eprio) would invent a dependency of (in, eprio)'s buffer on this
// queue, i.e. possibly a false loop; leaving it out can only miss a loop
// that crosses priorities, which Tagger's rules exist to rule out.
inline bool DcfitTracks(const sw::PktMeta& m, int eprio) { return m.in_prio == eprio; }

// Run by a switch with dcfit.enabled; its hooks (hooks.h) are wired only
// then, so each may take its state (Dcfit, DcfitWorkerOf) as made.
extern const Mechanism kDcfitMechanism;

// The switch's DCFIT state (dcfit_state.h); null when it runs no DCFIT.
inline SwitchDcfit* DcfitOf(const sw::Switch& sw) {
  return FindMechanismState<SwitchDcfit>(sw, kDcfitMechanism);
}
// The same, in a hook; and the worker's own.
inline SwitchDcfit& Dcfit(const WorkerCtx& w) {
  return MechanismStateOf<SwitchDcfit>(*w.sw, kDcfitMechanism);
}
inline DcfitWorker& DcfitWorkerOf(const WorkerCtx& w) {
  return MechanismStateOf<DcfitWorker>(w, kDcfitMechanism);
}

// The mask of a group's first n packets.
static_assert(kMaxBurst <= 32, "a group's packets fit a 32-bit mask");
inline uint32_t FirstN(uint32_t n) { return n >= 32 ? ~0u : (1u << n) - 1; }

// enqueue, before (wired only with trigger handling or several workers on
// the switch): while trigger handling watches or limits some egress port,
// feeds the sketch and drops heavy hitters over their limit
// (DropReason::kDcfitRateLimit, their buffer charge released through
// `undo`); then, with several workers, notes which of the packets that
// remain DCFIT follows at (out, eprio), bit i for pkts[i], read BEFORE they
// are queued: once in the ring they are the port owner's, which may send
// and free them at once.
uint16_t DcfitPolice(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                     buffer::ReleaseBatch& undo);
inline uint16_t DcfitOnEnqueue(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                               uint64_t, buffer::ReleaseBatch& undo, uint32_t* note) {
  const SwitchDcfit& d = Dcfit(w);
  if (d.hh_any.load(std::memory_order_relaxed)) n = DcfitPolice(w, out, eprio, pkts, n, undo);
  if (!d.shared) return n;  // one worker: the after half reads the packets
  if (!w.t->moves_into_lossless) {
    *note = FirstN(n);
    return n;
  }
  uint32_t mask = 0;
  for (uint16_t i = 0; i < n; i++) mask |= uint32_t{DcfitTracks(*w.sw->Meta(pkts[i]), eprio)} << i;
  *note = mask;
  return n;
}

// enqueued (lossless priorities only): the first `done` packets of the
// group, from `in`, were queued at (out, eprio). FIFO positions (one
// worker, so the packets are still ours to read): the place of the last
// one that counts, found from the end (the last one, unless a rewrite moved
// some packets into a lossless priority: Tables); counts (shards, several
// workers): how many of what DcfitOnEnqueue noted in `tracked`.
inline void DcfitOnEnqueued(WorkerCtx& w, PortId in, PortId out, int eprio, rte_mbuf* const* pkts,
                            uint32_t tracked, uint32_t done) {
  dcfit::Causality& c = Dcfit(w).det.causality();
  if (c.fifo()) {
    uint32_t k = done;
    if (w.t->moves_into_lossless)
      while (k != 0 && !DcfitTracks(*w.sw->Meta(pkts[k - 1]), eprio)) k--;
    c.OnQueued(in, out, eprio, done, k);
    return;
  }
  const uint32_t queued = tracked & FirstN(done);
  c.OnEnqueue(in, out, eprio, static_cast<uint32_t>(__builtin_popcount(queued)),
              DcfitWorkerOf(w).shard);
}

// dequeue: n packets left (out, q) from its head, sent or discarded;
// `metas` is their metadata as read before they went (egress.cc:
// TakeMetas). FIFO: one add; counts: per run of one ingress port, only
// those that came in on q.
void DcfitLeftCounts(WorkerCtx& w, SwitchDcfit& d, PortId out, int q, const sw::PktMeta* metas,
                     uint16_t n);
inline void DcfitOnDequeue(WorkerCtx& w, PortId out, int q, const sw::PktMeta* metas, uint16_t n) {
  SwitchDcfit& d = Dcfit(w);
  if (d.det.causality().fifo())
    d.det.causality().OnLeft(out, q, n);
  else
    DcfitLeftCounts(w, d, out, q, metas, n);
}

// held_lossy and egress: priorities a trigger host's port holds lossy
// (dcfit.trigger_handling, DCFIT §4: "disable lossless mode at the switch
// port"): egress ignores the host's pause on them, the PFC generator sends
// the host no XOFF for them, and ingress drops what would need headroom
// (DropReason::kDcfitHostLossy).
inline uint8_t DcfitHostHold(const WorkerCtx& w, PortId port) {
  return Dcfit(w).host_hold[port].load(std::memory_order_relaxed);
}
inline uint8_t DcfitEgressIgnore(WorkerCtx& w, PortId port, Deadline*) {
  return DcfitHostHold(w, port);
}

// pfc_tx: the generator is about to send `req` on `port`: tells the
// detector of XOFF / XON transitions (once each, even if the device refuses
// the frame and it is reported again), sends what it asks for on its own,
// and writes the message the frame carries into its padding (message.h).
// False: no message.
bool DcfitPfcTx(WorkerCtx& w, PortId port, const pause::PauseRequest& req, uint8_t* frame);

// pfc_rx: a PFC frame (ParseMacControl said kPfc, *req) arrived on `in`.
void DcfitPfcReceived(WorkerCtx& w, PortId in, const uint8_t* frame, size_t len,
                      const pause::PauseRequest& req);

// round: once per round, before egress: pause expiry, timeouts, pending
// output.
void DcfitRound(WorkerCtx& w);

// round_again: DCFIT's round looks at what the egress loop changed.
inline bool DcfitRoundAgain(const WorkerCtx&) { return true; }

}  // namespace pfc::stages
