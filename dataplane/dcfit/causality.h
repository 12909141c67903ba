// SPDX-License-Identifier: BSD-3-Clause
// DCFIT's port-based causality structure (DCFIT §3.2, Fig. 1) for one switch:
//  * the traffic mapping: for each lossless priority and egress port `out`,
//    xi(out) = the ingress ports with packets queued to (out, prio) (the
//    paper's ξ_p). Kept exact with a packet count per (in, out, prio), so a
//    bit clears when the LAST such packet leaves, not only when the whole
//    queue drains (the paper's P4 version clears on an empty queue). Both
//    directions are kept as bitmaps (xi by egress port, WaitsOn by ingress
//    port), so every query is one load and every update O(1);
//  * per (port, prio): "I am pausing my upstream" (we sent XOFF on it and no
//    XON yet), "my egress is paused" (we received XOFF on it), the RESUME tag
//    r_p (0 when the port is paused in an episode, 1 once a resume arrives),
//    the checking message stored from the last one received on the port, and
//    the one we last sent on it (what the temporal pass follows, §3.2).
//
// Keyed by the packet's (egress) priority: a packet from `in` queued at
// (out, prio) is assumed to be charged to ingress priority group (in, prio),
// i.e. no priority rewrite between ingress and egress (true without Tagger's
// rules, the setting DCFIT targets; a rewrite's chain is not followed).
//
// Threads. Everything but the counts has one writer at a time (the switch's
// DCFIT lock when several workers serve it: switch/dcfit_state.h). The
// counts are written per packet burst, so with several workers
// (Configure(..., shards > 1)) each worker adds its enqueues and subtracts
// its dequeues in a shard of its own (no shared line, no atomic RMW on the
// packet path), and a query sums the shards: a packet enqueued by one worker
// and sent by another leaves +1 in one shard and -1 in the other. A query
// then costs a pass over the ports instead of one load (queries come with
// PFC events, not packets), a sum read while workers run may be off by what
// is in flight at that instant, and unbalanced dequeues are not counted. With
// one shard (one worker: the default, and every fabric switch) the bitmaps are
// kept incrementally, as above. Only lossless priorities are tracked; calls
// for other priorities are no-ops, and queries on them return empty sets.
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
  size_t bitmaps = 0;    // xi and WaitsOn bitmaps (the paper's traffic mapping)
  size_t port_bits = 0;  // pausing-up, paused and RESUME bits
  size_t messages = 0;   // stored and sent checking messages
  size_t counts = 0;     // per (in, out, prio) packet counts (exact clearing)
  size_t total() const { return bitmaps + port_bits + messages + counts; }
};

class Causality {
 public:
  // num_ports 1..64; lossless_mask: the priorities tracked (at least one);
  // shards: the workers that move packets of this switch (1..kMaxShards),
  // each calling with its own shard index.
  static constexpr unsigned kMaxShards = 64;
  bool Configure(int num_ports, uint8_t lossless_mask, std::string* err, unsigned shards = 1);
  int num_ports() const { return n_; }
  unsigned shards() const { return shards_; }
  bool tracked(int prio) const { return prio >= 0 && prio < kNumPrio && lidx_[prio] >= 0; }

  // A packet from `in` was queued at (out, prio) / left it (sent or dropped
  // after queueing). Unbalanced dequeues are counted, never wrap.
  // n packets at once (a burst's group: same in, out and priority); shard:
  // the calling worker's (0 with one shard).
  void OnEnqueue(PortId in, PortId out, int prio, uint32_t n = 1, unsigned shard = 0) {
    if (n == 0 || !Valid(in, out, prio)) return;
    const int l = lidx_[prio];
    if (shards_ > 1) return ShardAdd(shard, Cnt(l, out, in), n);
    uint32_t& c = counts_[Cnt(l, out, in)];
    const uint32_t before = c;
    c += n;
    if (before == 0) {
      xi_[Row(l, out)] |= Bit(in);
      waits_[Row(l, in)] |= Bit(out);
    }
  }
  // n packets at once (the egress stage passes runs of one ingress port):
  // the same as n single calls.
  void OnDequeue(PortId in, PortId out, int prio, uint32_t n = 1, unsigned shard = 0) {
    if (n == 0 || !Valid(in, out, prio)) return;
    const int l = lidx_[prio];
    if (shards_ > 1) return ShardAdd(shard, Cnt(l, out, in), 0u - n);
    uint32_t& c = counts_[Cnt(l, out, in)];
    if (c < n) {  // unbalanced: each missing packet is counted, nothing wraps
      underflows_ += n - c;
      n = c;
      if (n == 0) return;
    }
    c -= n;
    if (c == 0) {
      xi_[Row(l, out)] &= ~Bit(in);
      waits_[Row(l, in)] &= ~Bit(out);
    }
  }
  uint32_t queued(PortId in, PortId out, int prio) const {
    if (!Valid(in, out, prio)) return 0;
    const size_t i = Cnt(lidx_[prio], out, in);
    return shards_ > 1 ? ShardSum(i) : counts_[i];
  }
  uint64_t dequeue_underflows() const { return underflows_; }
  // ξ_out: ingress ports with packets queued to (out, prio).
  PortMask Xi(PortId out, int prio) const {
    if (!Port(out, prio)) return 0;
    return shards_ > 1 ? ShardXi(lidx_[prio], out) : xi_[Row(lidx_[prio], out)];
  }
  // Egress ports holding packets that came in on (in, prio).
  PortMask WaitsOn(PortId in, int prio) const {
    if (!Port(in, prio)) return 0;
    return shards_ > 1 ? ShardWaitsOn(lidx_[prio], in) : waits_[Row(lidx_[prio], in)];
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
  // Shard s's count i: written by its worker only, read by any (relaxed).
  void ShardAdd(unsigned s, size_t i, uint32_t delta) {
    std::atomic_ref<uint32_t> c(shard_counts_[shard_base_ + s * shard_stride_ + i]);
    c.store(c.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
  // Net packets queued over all shards; a sum caught mid-flight below 0 is 0.
  uint32_t ShardSum(size_t i) const;
  PortMask ShardXi(int l, PortId out) const;
  PortMask ShardWaitsOn(int l, PortId in) const;

  int n_ = 0;
  int8_t lidx_[kNumPrio] = {-1, -1, -1, -1, -1, -1, -1, -1};  // prio -> lossless index
  std::vector<uint32_t> counts_;                              // [l][out][in]
  std::vector<PortMask> xi_;                                  // [l][out]: ingress ports
  std::vector<PortMask> waits_;                               // [l][in]: egress ports
  std::vector<PortMask> pausing_up_, paused_, resumed_;       // [l]
  std::vector<MsgSlot> stored_, sent_;                        // [l][port]
  uint64_t underflows_ = 0;
  unsigned shards_ = 1;
  size_t shard_stride_ = 0;  // counts a shard, padded to whole 128-byte pairs of lines
  size_t shard_base_ = 0;    // where shard 0 starts (128-byte aligned)
  // [shard][l][out][in], wrapping: mutable only for atomic_ref's sake.
  mutable std::vector<uint32_t> shard_counts_;
};

}  // namespace pfc::dcfit
