// SPDX-License-Identifier: BSD-3-Clause
// DCFIT glue (DCFIT §3): feeds the switch's detector (switch/dcfit_state.h,
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
// (switch/dcfit_state.h says who writes what). With DCFIT off
// (Switch::dcfit == nullptr) every hook is one pointer test.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "dataplane/dcfit/message.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc {

class ReleaseBatch;

// DCFIT follows a packet only while its priority stays the same: one that
// a rewrite moved to another priority (Tagger's rules) is outside its
// causality, which is per priority (DCFIT §3 has no rewrite). Counting it
// at (in, eprio) would invent a dependency of (in, eprio)'s buffer on this
// queue, i.e. possibly a false loop; leaving it out can only miss a loop
// that crosses priorities, which Tagger's rules exist to rule out.
inline bool DcfitTracks(const PktMeta& m, int eprio) { return m.in_prio == eprio; }

// Which of a group's packets DCFIT follows at (out, eprio), bit i for
// pkts[i], read BEFORE they are queued: once in the ring they are the
// port owner's, which may send and free them at once (another worker).
// Zero without DCFIT, where DcfitEnqueued does nothing.
static_assert(kMaxBurst <= 32, "a group's packets fit a 32-bit mask");
// The mask of a group's first n packets.
inline uint32_t FirstN(uint32_t n) { return n >= 32 ? ~0u : (1u << n) - 1; }
inline uint32_t DcfitTracked(const WorkerCtx& w, int eprio, rte_mbuf* const* pkts, uint16_t n) {
  if (w.sw->dcfit == nullptr) return 0;
  if (!w.t->moves_into_lossless) return FirstN(n);
  uint32_t mask = 0;
  for (uint16_t i = 0; i < n; i++) mask |= uint32_t{DcfitTracks(*w.sw->Meta(pkts[i]), eprio)} << i;
  return mask;
}

// The first n packets of a group, from `in`, were queued at (out, eprio);
// `tracked` is DcfitTracked of the group. FIFO positions: the place of the
// last one that counts (the last one, unless a rewrite moved some packets
// into a lossless priority: Tables); counts: how many count (shards,
// several workers).
inline void DcfitEnqueued(WorkerCtx& w, PortId in, PortId out, int eprio, uint32_t tracked,
                          uint32_t n) {
  SwitchDcfit* d = w.sw->dcfit.get();
  if (d == nullptr) return;
  dcfit::Causality& c = d->det.causality();
  const uint32_t queued = tracked & FirstN(n);
  if (c.fifo()) {
    c.OnQueued(in, out, eprio, n, queued ? 32 - static_cast<uint32_t>(__builtin_clz(queued)) : 0);
    return;
  }
  c.OnEnqueue(in, out, eprio, static_cast<uint32_t>(__builtin_popcount(queued)), w.dcfit_shard);
}

// n packets left (out, q) from its head, sent or discarded; `metas` is
// their metadata as read before they went (egress.cc: TakeMetas). FIFO: one
// add; counts: per run of one ingress port, only those that came in on q.
void DcfitLeftCounts(WorkerCtx& w, SwitchDcfit& d, PortId out, int q, const PktMeta* metas,
                     uint16_t n);
inline void DcfitLeft(WorkerCtx& w, SwitchDcfit& d, PortId out, int q, const PktMeta* metas,
                      uint16_t n) {
  if (d.det.causality().fifo())
    d.det.causality().OnLeft(out, q, n);
  else
    DcfitLeftCounts(w, d, out, q, metas, n);
}

// Before n packets from one ingress burst are queued at (out, eprio): while
// trigger handling watches or limits some egress port, feeds the sketch and
// drops heavy hitters over their limit (DropReason::kDcfitRateLimit, their
// buffer charge released through `undo`); returns how many remain, packed
// at the front. One test per group otherwise.
uint16_t DcfitPolice(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                     ReleaseBatch& undo);
inline uint16_t DcfitGroup(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                           ReleaseBatch& undo) {
  const SwitchDcfit* d = w.sw->dcfit.get();
  return d && d->hh_any.load(std::memory_order_relaxed) ? DcfitPolice(w, out, eprio, pkts, n, undo)
                                                        : n;
}

// Priorities a trigger host's port holds lossy (dcfit.trigger_handling,
// DCFIT §4: "disable lossless mode at the switch port"): egress ignores the
// host's pause on them (worker.cc), the PFC generator sends the host no
// XOFF for them (pfc_stage.cc), and ingress drops what would need headroom
// (DropReason::kDcfitHostLossy, ingress.cc).
inline uint8_t DcfitHostHold(const WorkerCtx& w, PortId port) {
  const SwitchDcfit* d = w.sw->dcfit.get();
  return d ? d->host_hold[port].load(std::memory_order_relaxed) : 0;
}

// The generator is about to send `req` on `port`: tells the detector of
// XOFF / XON transitions (once each, even if the device refuses the frame
// and it is reported again), sends what it asks for on its own, and fills
// *msg with the message the frame carries. False: no message.
bool DcfitBeforePfcTx(WorkerCtx& w, PortId port, const PauseRequest& req, dcfit::CheckMsg* msg);

// A PFC frame (ParseMacControl said kPfc, *req) arrived on `in`.
void DcfitPfcReceived(WorkerCtx& w, PortId in, const uint8_t* frame, size_t len,
                      const PauseRequest& req);

// Once per round, before egress: pause expiry, timeouts, pending output.
void DcfitRound(WorkerCtx& w);

}  // namespace pfc
