// SPDX-License-Identifier: BSD-3-Clause
// The pipeline's hook points: where a feature plugs into the packet path
// without the stages naming it (VPP's feature arcs, for a run-to-completion
// switch: a fixed set of points, each with a short list of users). DCFIT
// (dcfit_stage.h), the pause-storm watchdog (pfcwd_stage.h) and ECN marking
// (ecn_stage.h) are users. The buffer accountant knows
// none of them: a user that holds priorities lossy gives its drop reason.
//
// The points, in the order a round meets them:
//   held_lossy   admission and PFC generation: lossless priorities of a port
//                held lossy now (admitted without headroom, their overflow
//                dropped with the user's reason; no XOFF sent for them)
//   pfc_rx       a PFC frame arrived (before the pause timers take it)
//   enqueue      a group of one burst's packets is about to be queued at
//                (out, egress priority), told their bytes when it asks
//                (EnqueueUser::reads_bytes: ingress sums them as it groups
//                the packets, so that ECN and INT do not each walk the
//                group again): may drop some (charge released
//                through `undo`) and keep a word for its own `after`
//                half, which learns how many the egress ring took (either
//                half may be absent; `after` may read the packets only
//                when the worker serves the whole switch: otherwise they
//                are the port owner's once queued)
//   refused      the egress ring did not take the group's last packets
//                (dropped next, as egress_queue_full)
//   round        once a round, after ingress, before egress
//   egress       per port before the scheduler: priorities whose received
//                pause egress ignores this round; may lower the deadline
//   leave        packets taken from an egress queue's head for the port's
//                tx burst, still ours (may edit them: dequeue marking,
//                INT records); once each, before the device sees them, run
//                by run, each told the bytes the burst's earlier runs took
//                (gone from their queues, not yet counted as sent); returns
//                the bytes it added to them (counted as sent with them)
//   dequeue      packets left an egress queue from its head (sent or
//                discarded), with their metadata as read before they went
// A user of enqueue's `after` names the egress priorities it acts on: the
// others do not call it.
//   pfc_tx       a PFC frame is about to be sent: may fill its padding
//   deadline     per port after egress: when the user must look again
//   port_busy    the user has work on a port even with nothing queued: the
//                port is not skipped as quiet, and a round with work runs
//                again at the same instant (RoundLeftWork)
//   round_again  the same, for the whole switch
//
// Owned by one worker (WorkerCtx::hooks), wired once by BuildHooks
// (hooks.cc) from the mechanisms the switch runs (mechanism.h); the stages
// call the runners below, each one bit test (Hooks::present) when a point
// has no user.
#pragma once
#include <cstddef>
#include <cstdint>

#include "dataplane/common/deadline.h"
#include "dataplane/common/types.h"

struct rte_mbuf;

namespace pfc::sw {
struct PktMeta;
class Switch;
}  // namespace pfc::sw
namespace pfc::pause {
struct PauseRequest;
}  // namespace pfc::pause
namespace pfc::buffer {
class ReleaseBatch;
}  // namespace pfc::buffer

namespace pfc::stages {

struct WorkerCtx;

inline constexpr int kMaxHookUsers = 4;

// The frames' bytes (pkt_len) summed; out of line, for the rare paths:
// the runner's recount after a user dropped some, what an egress ring or
// a device refused (ECN, INT, egress), a stash of control frames.
uint64_t GroupBytes(rte_mbuf* const* pkts, uint16_t n);

template <typename Fn>
struct HookList {
  Fn fn[kMaxHookUsers] = {};
  uint8_t n = 0;
  void Add(Fn f) { fn[n++] = f; }
};

struct Hooks {
  using HeldLossyFn = uint8_t (*)(const WorkerCtx&, PortId);
  using PfcRxFn = void (*)(WorkerCtx&, PortId in, const uint8_t* frame, size_t len,
                           const pause::PauseRequest& req);
  using EnqueueFn = uint16_t (*)(WorkerCtx&, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                                 uint64_t bytes, buffer::ReleaseBatch& undo, uint32_t* note);
  using EnqueuedFn = void (*)(WorkerCtx&, PortId in, PortId out, int eprio, rte_mbuf* const* pkts,
                              uint32_t note, uint32_t done);
  using RefusedFn = void (*)(WorkerCtx&, PortId out, int eprio, rte_mbuf* const* pkts, uint16_t n);
  using RoundFn = void (*)(WorkerCtx&);
  using EgressFn = uint8_t (*)(WorkerCtx&, PortId, Deadline* ready_ns);
  using LeaveFn = uint32_t (*)(WorkerCtx&, PortId out, int q, rte_mbuf* const* pkts, uint16_t n,
                               uint32_t taken_before);
  using DequeueFn = void (*)(WorkerCtx&, PortId out, int q, const sw::PktMeta* metas, uint16_t n);
  using PfcTxFn = bool (*)(WorkerCtx&, PortId, const pause::PauseRequest& req, uint8_t* frame);
  using DeadlineFn = Deadline (*)(const WorkerCtx&, PortId);
  using PortBusyFn = bool (*)(const WorkerCtx&, PortId);
  using RoundAgainFn = bool (*)(const WorkerCtx&);

  // The points with users, a bit each, set by BuildHooks once the lists are
  // wired. Each runner tests its point's bit first, so a switch without
  // features reads these few bytes, not the lists (nine cache lines).
  enum Point : uint16_t {
    kHeldLossy = 1u << 0,
    kPfcRx = 1u << 1,
    kRefused = 1u << 2,
    kRound = 1u << 3,
    kEgress = 1u << 4,
    kLeave = 1u << 5,
    kDequeue = 1u << 6,
    kPfcTx = 1u << 7,
    kDeadline = 1u << 8,
    kPortBusy = 1u << 9,
    kRoundAgain = 1u << 10,
  };
  uint16_t present = 0;
  bool Has(Point p) const { return (present & p) != 0; }
  // Some enqueue user has a `before` / an `after` half / a `before` that
  // reads the group's bytes (BuildHooks).
  bool enqueue_before = false, enqueue_after = false, enqueue_bytes = false;
  DropReason held_lossy_drop = DropReason::kLosslessHeadroom;  // the user's reason

  HookList<HeldLossyFn> held_lossy;
  HookList<PfcRxFn> pfc_rx;
  static constexpr uint8_t kAllPrios = 0xff;
  struct EnqueueUser {
    EnqueueFn before = nullptr;  // may be null
    EnqueuedFn after = nullptr;  // may be null
    uint8_t after_prios = kAllPrios;
    // `before` reads its `bytes`: the others are told 0, and a switch
    // without such a user does not sum them.
    bool reads_bytes = false;
  };
  HookList<EnqueueUser> enqueue;
  HookList<RefusedFn> refused;
  HookList<RoundFn> round;
  HookList<EgressFn> egress;
  HookList<LeaveFn> leave;
  HookList<DequeueFn> dequeue;
  HookList<PfcTxFn> pfc_tx;
  HookList<DeadlineFn> deadline;
  HookList<PortBusyFn> port_busy;
  HookList<RoundAgainFn> round_again;

  uint8_t HeldLossy(const WorkerCtx& w, PortId p) const {
    uint8_t m = 0;
    if (!Has(kHeldLossy)) return m;
    for (uint8_t i = 0; i < held_lossy.n; i++) m |= held_lossy.fn[i](w, p);
    return m;
  }
  void PfcRx(WorkerCtx& w, PortId in, const uint8_t* frame, size_t len,
             const pause::PauseRequest& req) const {
    if (!Has(kPfcRx)) return;
    for (uint8_t i = 0; i < pfc_rx.n; i++) pfc_rx.fn[i](w, in, frame, len, req);
  }
  // Returns how many of pkts[0..n) remain, packed at the front; notes[i]
  // is the i-th user's word for its `after` half (Enqueued). `bytes`: the
  // frames' bytes (pkt_len) summed, when enqueue_bytes (else 0).
  uint16_t Enqueue(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n, uint64_t bytes,
                   buffer::ReleaseBatch& undo, uint32_t* notes) const {
    if (!enqueue_before) return n;
    for (uint8_t i = 0; i < enqueue.n; i++) {
      if (enqueue.fn[i].before == nullptr) continue;
      const uint16_t had = n;
      n = enqueue.fn[i].before(w, out, eprio, pkts, n, bytes, undo, &notes[i]);
      // A user that dropped some (DCFIT's policing) leaves fewer bytes.
      if (n != had && enqueue_bytes) [[unlikely]]
        bytes = GroupBytes(pkts, n);
    }
    return n;
  }
  void Enqueued(WorkerCtx& w, PortId in, PortId out, int eprio, rte_mbuf* const* pkts,
                const uint32_t* notes, uint32_t done) const {
    if (!enqueue_after) return;
    for (uint8_t i = 0; i < enqueue.n; i++) {
      const EnqueueUser& u = enqueue.fn[i];
      if (u.after != nullptr && (u.after_prios >> eprio & 1))
        u.after(w, in, out, eprio, pkts, notes[i], done);
    }
  }
  void Refused(WorkerCtx& w, PortId out, int eprio, rte_mbuf* const* pkts, uint16_t n) const {
    if (!Has(kRefused)) return;
    for (uint8_t i = 0; i < refused.n; i++) refused.fn[i](w, out, eprio, pkts, n);
  }
  void Round(WorkerCtx& w) const {
    if (!Has(kRound)) return;
    for (uint8_t i = 0; i < round.n; i++) round.fn[i](w);
  }
  uint8_t EgressIgnore(WorkerCtx& w, PortId p, Deadline* ready_ns) const {
    uint8_t m = 0;
    if (!Has(kEgress)) return m;
    for (uint8_t i = 0; i < egress.n; i++) m |= egress.fn[i](w, p, ready_ns);
    return m;
  }
  // Returns the bytes the users added to the packets (INT trailers).
  uint32_t Leave(WorkerCtx& w, PortId out, int q, rte_mbuf* const* pkts, uint16_t n,
                 uint32_t taken_before) const {
    uint32_t added = 0;
    if (!Has(kLeave)) return added;
    for (uint8_t i = 0; i < leave.n; i++) added += leave.fn[i](w, out, q, pkts, n, taken_before);
    return added;
  }
  void Dequeue(WorkerCtx& w, PortId out, int q, const sw::PktMeta* metas, uint16_t n) const {
    if (!Has(kDequeue)) return;
    for (uint8_t i = 0; i < dequeue.n; i++) dequeue.fn[i](w, out, q, metas, n);
  }
  // True when a user wrote into the frame's padding.
  bool PfcTx(WorkerCtx& w, PortId p, const pause::PauseRequest& req, uint8_t* frame) const {
    bool wrote = false;
    if (!Has(kPfcTx)) return wrote;
    for (uint8_t i = 0; i < pfc_tx.n; i++) wrote |= pfc_tx.fn[i](w, p, req, frame);
    return wrote;
  }
  Deadline NextDeadline(const WorkerCtx& w, PortId p) const {
    Deadline d = kNever;
    if (!Has(kDeadline)) return d;
    for (uint8_t i = 0; i < deadline.n; i++) LowerTo(&d, deadline.fn[i](w, p));
    return d;
  }
  bool PortBusy(const WorkerCtx& w, PortId p) const {
    if (!Has(kPortBusy)) return false;
    for (uint8_t i = 0; i < port_busy.n; i++)
      if (port_busy.fn[i](w, p)) return true;
    return false;
  }
  bool RoundAgain(const WorkerCtx& w) const {
    if (!Has(kRoundAgain)) return false;
    for (uint8_t i = 0; i < round_again.n; i++)
      if (round_again.fn[i](w)) return true;
    return false;
  }
};

// The hooks a worker runs for `sw`: those of each registered mechanism
// (mechanism.h) the switch runs, in the mechanisms' sorted order.
Hooks BuildHooks(const sw::Switch& sw);

}  // namespace pfc::stages
