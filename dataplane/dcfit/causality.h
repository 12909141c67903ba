// SPDX-License-Identifier: BSD-3-Clause
// DCFIT's port-based causality structure (DCFIT §3.2, Fig. 1) for one switch:
//  * the traffic mapping: for each lossless priority and egress port `out`,
//    xi(out) = the ingress ports with packets queued to (out, prio) (the
//    paper's ξ_p), exact: a bit clears when the LAST such packet leaves, not
//    only when the whole queue drains (the paper's P4 version clears on an
//    empty queue), and WaitsOn(in), the same pairs seen from the ingress port;
//  * per (port, prio): "I am pausing my upstream" (we sent XOFF on it and no
//    XON yet), "my egress is paused" (we received XOFF on it), the RESUME tag
//    r_p (0 when the port is paused in an episode, 1 once a resume arrives),
//    the checking message stored from the last one received on the port, and
//    the one we last sent on it (what the temporal pass follows, §3.2).
//
// The mapping is kept one of two ways, chosen by Configure's `shards`:
//  * FIFO positions (shards = 0: one worker moves all of the switch's
//    packets, the default and every fabric switch). A queue is a FIFO, so an
//    ingress port has packets in (out, prio) exactly when the LAST one it
//    queued there has not left yet. Ingress records that packet's position
//    (one store per burst group, OnQueued), egress only advances the queue's
//    count of packets that left (one add per tx batch, OnLeft): no work per
//    packet, and a query compares positions (a pass over the ports; queries
//    come with PFC events, not packets).
//  * Counts per (in, out, prio) in per-worker shards (shards >= 1: several
//    workers, whose enqueues into one queue interleave, so positions are not
//    known). Each worker adds what it queues and subtracts what it sends in
//    its own shard (no shared line, no atomic RMW on the packet path); a
//    query sums the shards, so a packet queued by one worker and sent by
//    another leaves +1 in one shard and -1 in the other. A sum read while
//    workers run may be off by what is in flight at that instant.
//
// The caller passes only packets queued at the priority they came in on
// (stages/dcfit_stage.h: DCFIT's causality is per priority, and a packet a
// rewrite moved to another one is left out).
//
// Threads. Everything but the mapping's updates has one writer at a time
// (the switch's DCFIT lock when several workers serve it:
// stages/dcfit_state.h). Only lossless priorities are tracked; calls for
// other priorities are no-ops, and queries on them return empty sets.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/dcfit/message.h"

namespace pfc::dcfit {

// A checking message held by a port, and whether it is meaningful.
struct MsgSlot {
  CheckMsg msg;
  bool valid = false;
  // Received slot only: this port saw the same {S_tri, P_tri} as another port
  // while no upstream port could carry a middle switch's message yet
  // (§3.4); the next XOFF it causes starts the middle episode.
  bool middle_pending = false;
};

struct CausalityMemory {
  size_t port_bits = 0;  // pausing-up, paused and RESUME bits
  size_t messages = 0;   // stored and sent checking messages
  size_t counts = 0;     // FIFO positions or per-shard counts (exact clearing)
  size_t total() const { return port_bits + messages + counts; }
};

class Causality {
 public:
  // num_ports 1..64; lossless_mask: the priorities tracked (at least one);
  // shards: 0 for FIFO positions (one worker), else the number of workers
  // (1..kMaxShards), each calling with its own shard index.
  static constexpr unsigned kMaxShards = 64;
  bool Configure(int num_ports, uint8_t lossless_mask, std::string* err, unsigned shards = 0);
  int num_ports() const { return n_; }
  unsigned shards() const { return shards_; }
  bool fifo() const { return shards_ == 0; }
  bool tracked(int prio) const { return prio >= 0 && prio < kNumPrio && lidx_[prio] >= 0; }

  // FIFO positions. n packets were queued at (out, prio), the last one that
  // came in on `in` and counts being the k-th of them (1-based; 0: none).
  void OnQueued(PortId in, PortId out, int prio, uint32_t n, uint32_t k) {
    if (n == 0 || !Valid(in, out, prio)) return;
    const size_t r = Row(lidx_[prio], out);
    if (k != 0) last_[r * n_ + in] = enq_[r] + k;
    enq_[r] += n;
  }
  // n packets left (out, prio) from its head (sent, or dropped after
  // queueing). More than were queued is counted, and never wraps.
  void OnLeft(PortId out, int prio, uint32_t n) {
    if (n == 0 || !Port(out, prio)) return;
    const size_t r = Row(lidx_[prio], out);
    const uint64_t have = enq_[r] - deq_[r];
    if (n > have) {
      underflows_ += n - have;
      n = static_cast<uint32_t>(have);
    }
    deq_[r] += n;
  }

  // Counts (shards >= 1): n packets from `in` were queued at (out, prio) /
  // left it, by the worker of `shard`. In FIFO mode OnEnqueue is
  // OnQueued(in, out, prio, n, n) (for tests and simulations that only add);
  // OnDequeue there, which cannot know the packets' places, is counted as
  // an underflow and changes nothing.
  void OnEnqueue(PortId in, PortId out, int prio, uint32_t n = 1, unsigned shard = 0) {
    if (n == 0 || !Valid(in, out, prio)) return;
    if (fifo()) return OnQueued(in, out, prio, n, n);
    ShardAdd(shard, Cnt(lidx_[prio], out, in), n);
  }
  void OnDequeue(PortId in, PortId out, int prio, uint32_t n = 1, unsigned shard = 0) {
    if (n == 0 || !Valid(in, out, prio)) return;
    if (fifo()) {
      underflows_ += n;
      return;
    }
    ShardAdd(shard, Cnt(lidx_[prio], out, in), 0u - n);
  }

  // Whether packets from `in` are queued at (out, prio).
  bool Waiting(PortId in, PortId out, int prio) const {
    if (!Valid(in, out, prio)) return false;
    const int l = lidx_[prio];
    return fifo() ? Behind(Row(l, out), in) : ShardSum(Cnt(l, out, in)) != 0;
  }
  // Counts mode: how many are (0 in FIFO mode).
  uint32_t queued(PortId in, PortId out, int prio) const {
    return fifo() || !Valid(in, out, prio) ? 0 : ShardSum(Cnt(lidx_[prio], out, in));
  }
  uint64_t dequeue_underflows() const { return underflows_; }
  // ξ_out: ingress ports with packets queued to (out, prio).
  PortMask Xi(PortId out, int prio) const {
    PortMask m = 0;
    if (Port(out, prio))
      for (PortId in = 0; in < n_; in++) m |= PortMask{Waiting(in, out, prio)} << in;
    return m;
  }
  // Egress ports holding packets that came in on (in, prio).
  PortMask WaitsOn(PortId in, int prio) const {
    PortMask m = 0;
    if (Port(in, prio))
      for (PortId out = 0; out < n_; out++) m |= PortMask{Waiting(in, out, prio)} << out;
    return m;
  }
  // δ_out: ports in ξ_out that currently pause their upstream.
  PortMask Delta(PortId out, int prio) const { return Xi(out, prio) & pausing_up(prio); }

  PortMask pausing_up(int prio) const { return tracked(prio) ? pausing_up_[lidx_[prio]] : 0; }
  PortMask paused(int prio) const { return tracked(prio) ? paused_[lidx_[prio]] : 0; }
  bool resume_tag(PortId p, int prio) const {
    return Port(p, prio) && (resumed_[lidx_[prio]] & Bit(p)) != 0;
  }
  void SetPausingUp(PortId p, int prio, bool on) {
    if (Port(p, prio)) SetBit(&pausing_up_[lidx_[prio]], p, on);
  }
  // XOFF received on p: paused, RESUME tag 0. XON (or expiry): not paused,
  // RESUME tag 1, the stored message is dropped (§3.2).
  void OnPeerPaused(PortId p, int prio);
  void OnPeerResumed(PortId p, int prio);

  // Stored (received) and sent messages of (p, prio); nullptr-safe slots for
  // tracked priorities, nullptr otherwise.
  MsgSlot* stored(PortId p, int prio) {
    return Port(p, prio) ? &stored_[Row(lidx_[prio], p)] : nullptr;
  }
  const MsgSlot* stored(PortId p, int prio) const {
    return Port(p, prio) ? &stored_[Row(lidx_[prio], p)] : nullptr;
  }
  MsgSlot* sent(PortId p, int prio) {
    return Port(p, prio) ? &sent_[Row(lidx_[prio], p)] : nullptr;
  }
  const MsgSlot* sent(PortId p, int prio) const {
    return Port(p, prio) ? &sent_[Row(lidx_[prio], p)] : nullptr;
  }

  CausalityMemory Memory() const;

 private:
  static PortMask Bit(PortId p) { return PortMask{1} << p; }
  static void SetBit(PortMask* m, PortId p, bool on) { *m = on ? (*m | Bit(p)) : (*m & ~Bit(p)); }
  bool Port(PortId p, int prio) const { return p < n_ && tracked(prio); }
  bool Valid(PortId in, PortId out, int prio) const { return in < n_ && Port(out, prio); }
  size_t Row(int l, PortId p) const { return static_cast<size_t>(l) * n_ + p; }
  size_t Cnt(int l, PortId out, PortId in) const { return Row(l, out) * n_ + in; }
  // FIFO: the last counted packet from `in` at row r is still queued
  // (64-bit positions: they do not wrap in a switch's lifetime).
  bool Behind(size_t r, PortId in) const { return last_[r * n_ + in] > deq_[r]; }
  // Shard s's count i: written by its worker only, read by any (relaxed).
  void ShardAdd(unsigned s, size_t i, uint32_t delta) {
    std::atomic_ref<uint32_t> c(shard_counts_[shard_base_ + s * shard_stride_ + i]);
    c.store(c.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
  // Net packets queued over all shards; a sum caught mid-flight below 0 is 0.
  uint32_t ShardSum(size_t i) const;

  int n_ = 0;
  int8_t lidx_[kNumPrio] = {-1, -1, -1, -1, -1, -1, -1, -1};  // prio -> lossless index
  std::vector<PortMask> pausing_up_, paused_, resumed_;       // [l]
  std::vector<MsgSlot> stored_, sent_;                        // [l][port]
  uint64_t underflows_ = 0;
  unsigned shards_ = 0;
  // FIFO: per queue [l][out], packets queued and left; per [l][out][in], the
  // position of the last counted packet (0: none yet).
  std::vector<uint64_t> enq_, deq_, last_;
  // Shards: [shard][l][out][in], wrapping: mutable only for atomic_ref's sake.
  size_t shard_stride_ = 0;  // counts a shard, padded to whole 128-byte pairs of lines
  size_t shard_base_ = 0;    // where shard 0 starts (128-byte aligned)
  mutable std::vector<uint32_t> shard_counts_;
};

}  // namespace pfc::dcfit
