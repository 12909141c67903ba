// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/egress.h"

#include <rte_ethdev.h>

#include <algorithm>

#include "dataplane/buffer/accountant.h"

namespace pfc::stages {
namespace {

constexpr uint32_t kWireOverhead = 24;  // FCS 4 + preamble/SFD 8 + IFG 12

// Nonzero when r holds entries: the difference rte_ring_empty compares,
// so several rings fold into one test.
inline uint32_t RingCount(const rte_ring* r) { return r->prod.tail - r->cons.tail; }

// What the accounting after a tx burst needs of its packets, read BEFORE the
// burst: a packet the device took is no longer ours to read. Most virtual
// devices (af_packet, pcap, vhost, memif) copy and free it inside the burst,
// a ring hands it to whoever polls the other end; with several workers a
// freed mbuf can be reallocated, and its metadata rewritten, at once.
// Returns the packets' bytes.
uint64_t TakeMetas(const sw::Switch& sw, rte_mbuf* const* pkts, uint16_t n, sw::PktMeta* metas) {
  uint64_t bytes = 0;
  for (uint16_t i = 0; i < n; i++) {
    bytes += rte_pktmbuf_pkt_len(pkts[i]);
    metas[i] = *sw.Meta(pkts[i]);
  }
  return bytes;
}

// Accounting for n data packets (`bytes` in all, the caller summed them
// already) of egress priority q that the device took, from their metadata
// as TakeMetas read it: their buffer is released, DCFIT's causality counts
// move, counters.
void DataSent(WorkerCtx& w, PortId port, int q, const sw::PktMeta* metas, uint16_t n,
              uint64_t bytes, buffer::ReleaseBatch& rel) {
  if (n == 0) return;
  for (uint16_t i = 0; i < n; i++) rel.Add(metas[i].in_port, metas[i].in_prio, metas[i].charged);
  w.hooks.Dequeue(w, port, q, metas, n);
  w.st->prio[port][q].tx_packets.Add(n);
  w.st->prio[port][q].tx_bytes.Add(bytes);
  sw::PortCounters& pc = w.st->port[port];
  pc.tx_packets.Add(n);
  pc.tx_bytes.Add(bytes);
}

// The stash of priority q (control frames when q < 0) and its bit in
// PortOwnerState::stash_mask.
uint16_t StashBit(int q) {
  return q < 0 ? sw::PortOwnerState::kCtrlStashBit : static_cast<uint16_t>(1u << q);
}

// Tries to send what the stash holds (data of priority q, or control
// frames when q < 0); returns true when it is empty after.
bool FlushStash(WorkerCtx& w, PortId port, sw::TxStash& s, int q, buffer::ReleaseBatch& rel) {
  sw::Switch& sw = *w.sw;
  while (s.n > 0) {
    rte_mbuf* burst[kMaxBurst];
    const int k = std::min(s.n, kMaxBurst);
    for (int i = 0; i < k; i++) burst[i] = s.pkts[(s.head + i) % sw::TxStash::kCap];
    sw::PktMeta metas[kMaxBurst];
    const uint64_t all = q >= 0 ? TakeMetas(sw, burst, static_cast<uint16_t>(k), metas)
                                : GroupBytes(burst, static_cast<uint16_t>(k));
    const uint16_t sent =
        sw::PortTx(sw.ports[port].io, burst, static_cast<uint16_t>(k), w.now_ns, q < 0);
    // What the device refused is still ours to read.
    const uint64_t bytes = all - GroupBytes(burst + sent, static_cast<uint16_t>(k - sent));
    if (q >= 0) {
      DataSent(w, port, q, metas, sent, bytes, rel);
    } else {
      w.st->port[port].tx_packets.Add(sent);
      w.st->port[port].tx_bytes.Add(bytes);
    }
    s.head = (s.head + sent) % sw::TxStash::kCap;
    s.n -= sent;
    if (sent < k) return false;
  }
  sw.ports[port].owner_state->stash_mask &= static_cast<uint16_t>(~StashBit(q));
  return true;
}

// Keeps what the device refused, in order, in the stash of priority q
// (control frames when q < 0).
void Stash(sw::PortOwnerState& os, int q, rte_mbuf* const* pkts, int n) {
  sw::TxStash& s = q < 0 ? os.ctrl_stash : os.data_stash[q];
  for (int i = 0; i < n; i++) {
    s.pkts[(s.head + s.n) % sw::TxStash::kCap] = pkts[i];
    s.n++;
  }
  if (n > 0) os.stash_mask |= StashBit(q);
}

}  // namespace

// Most ports of a large switch, most rounds.
bool NothingQueued(const WorkerCtx& w, const sw::PortRuntime& pr) {
  sw::PortOwnerState& os = *pr.owner_state;
  if (os.stash_mask != 0) return false;
  if (!w.solo) {
    // One test over all nine rings (no early exit: most ports are empty).
    uint32_t any = RingCount(pr.control);
    for (int q = 0; q < kNumPrio; q++) any |= RingCount(pr.egress[q]);
    return any == 0;
  }
  // The rings queued to since they were seen empty, usually one or none;
  // those found empty now leave the mask.
  uint16_t left = 0;
  for (uint32_t m = os.queued; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    if (RingCount(q == kNumPrio ? pr.control : pr.egress[q]) != 0)
      left |= static_cast<uint16_t>(1u << q);
  }
  os.queued = left;
  return left == 0;
}

uint32_t DiscardQueue(WorkerCtx& w, PortId port, int prio, DropReason why) {
  sw::Switch& sw = *w.sw;
  sw::PortRuntime& pr = sw.ports[port];
  buffer::ReleaseBatch rel(sw.buffer, &w.pool_slack);
  uint32_t n = 0;
  // Leaving the queue from its head, as far as DCFIT's mapping goes.
  auto discard = [&](rte_mbuf** pkts, unsigned k) {
    sw::PktMeta metas[kMaxBurst];
    const uint64_t bytes = TakeMetas(sw, pkts, static_cast<uint16_t>(k), metas);
    w.hooks.Dequeue(w, port, prio, metas, static_cast<uint16_t>(k));
    w.st->prio[port][prio].tx_discards.Add(k);
    w.st->prio[port][prio].tx_discard_bytes.Add(bytes);
    for (unsigned i = 0; i < k; i++) {
      rel.Add(metas[i].in_port, metas[i].in_prio, metas[i].charged);
      w.st->prio[metas[i].in_port][metas[i].in_prio].drops[static_cast<int>(why)].Add(1);
      rte_pktmbuf_free(pkts[i]);
    }
    n += k;
  };
  rte_mbuf* pkts[kMaxBurst];
  sw::TxStash& s = pr.owner_state->data_stash[prio];
  while (s.n > 0) {
    const int k = std::min(s.n, kMaxBurst);
    for (int i = 0; i < k; i++) pkts[i] = s.pkts[(s.head + i) % sw::TxStash::kCap];
    s.head = (s.head + k) % sw::TxStash::kCap;
    s.n -= k;
    discard(pkts, static_cast<unsigned>(k));
  }
  pr.owner_state->stash_mask &= static_cast<uint16_t>(~StashBit(prio));
  unsigned got;
  while ((got = rte_ring_dequeue_burst(pr.egress[prio], reinterpret_cast<void**>(pkts), kMaxBurst,
                                       nullptr)) > 0)
    discard(pkts, got);
  // The queue's tail that waits for the ring, as far as it is ours: a
  // worker holds only what its own ingress queued (held_queue.h).
  while ((got = w.held->Take(port, prio, pkts, kMaxBurst)) > 0) discard(pkts, got);
  return n;
}

unsigned MoveHeld(WorkerCtx& w) {
  sw::HeldQueues& h = *w.held;
  unsigned moved = 0;
  for (size_t i = 0; i < h.waiting.size();) {
    const uint32_t idx = h.waiting[i];
    const auto out = static_cast<PortId>(idx / kNumPrio);
    const int prio = static_cast<int>(idx % kNumPrio);
    rte_ring* r = w.sw->ports[out].egress[prio];
    rte_mbuf* pkts[kMaxBurst];
    for (;;) {
      const uint32_t room = std::min<uint32_t>(rte_ring_free_count(r), kMaxBurst);
      const uint32_t k = room ? h.Take(out, prio, pkts, room) : 0;
      if (k == 0) break;
      // Another worker may fill the ring meanwhile: what it refuses goes back.
      const unsigned done = rte_ring_enqueue_burst(r, reinterpret_cast<void**>(pkts), k, nullptr);
      if (done < k) h.PutBack(out, prio, pkts + done, k - done);
      if (done) MarkQueued(w, out, static_cast<uint16_t>(1u << prio));
      moved += done;
      if (done < k) break;
    }
    sw::HeldQueue& q = h.q[idx];
    if (q.n != 0) {
      i++;
      continue;
    }
    q.listed = false;
    h.waiting[i] = h.waiting.back();
    h.waiting.pop_back();
  }
  return moved;
}

uint16_t EgressPort(WorkerCtx& w, PortId port, uint8_t paused_mask, Deadline* ready_ns) {
  sw::Switch& sw = *w.sw;
  sw::PortRuntime& pr = sw.ports[port];
  sw::PortOwnerState& os = *pr.owner_state;
  buffer::ReleaseBatch rel(sw.buffer, &w.pool_slack, &w.egress_rel_slots);
  const uint64_t before = w.st->port[port].tx_packets.Get();

  // 1. Control frames (ARP, ICMP replies) go before any data.
  if ((os.stash_mask & sw::PortOwnerState::kCtrlStashBit) &&
      !FlushStash(w, port, os.ctrl_stash, -1, rel))
    return 0;
  // The rings that may hold packets (NothingQueued): with one worker for
  // the switch, the port's mask, cleared ring by ring as they are seen
  // empty (nobody queues meanwhile); else all of them.
  const uint16_t rings = w.solo ? os.queued : sw::PortOwnerState::kAllRings;
  auto seen_empty = [&](int bit) {
    if (w.solo) os.queued &= static_cast<uint16_t>(~(1u << bit));
  };
  rte_mbuf* ctrl[kMaxBurst];
  unsigned nc = 0;
  if (rings & sw::PortOwnerState::kControlRing) {
    nc = rte_ring_dequeue_burst(pr.control, reinterpret_cast<void**>(ctrl), kMaxBurst, nullptr);
    if (nc < kMaxBurst) seen_empty(kNumPrio);
  }
  if (nc) {
    Stash(os, -1, ctrl, static_cast<int>(nc));
    if (!FlushStash(w, port, os.ctrl_stash, -1, rel)) return 0;
  }
  // 2. Data the device refused before, in order, before anything newer of
  // its priority; a priority paused since then keeps it (software PFC: what
  // the device has not taken is still ours to hold).
  for (uint32_t m = os.stash_mask & ~paused_mask & 0xffu; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    if (!FlushStash(w, port, os.data_stash[q], q, rel))
      return static_cast<uint16_t>(w.st->port[port].tx_packets.Get() - before);
  }

  // 3. Scheduler-picked queues, up to one burst per round, sent in ONE tx
  // burst straight from where they were dequeued; only what the device
  // refuses is copied, to its priority's stash (sent first next round).
  // A port that models its transmitter's FIFO (the emulator's links) takes
  // only the frames it can start soon: no more leave the queues, so each
  // is scheduled, recorded (INT) and marked (ECN) as it goes to the wire,
  // as the HPCC work's simulator dequeues a packet when its link frees.
  const uint16_t room = sw::PortTxRoom(pr.io, w.now_ns, w.t->max_frame[port], w.t->burst);
  int budget_pkts = room;
  // The queues' depths are read here anyway; the owner, the only one that
  // dequeues, keeps their maximum (stats.h PFC_PRIO_MAXIMA). A queue only
  // shrinks when its owner dequeues, so sampling before each dequeue misses
  // no peak (but a storming queue the watchdog empties before egress looks).
  // Cost: one load per non-empty queue, a store when the peak rises.
  uint8_t nonempty = 0;
  for (uint32_t m = rings & 0xffu; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    const uint32_t depth = RingCount(pr.egress[q]);
    if (depth == 0) {
      seen_empty(q);
      continue;
    }
    nonempty |= 1u << q;
    const uint32_t stashed = (os.stash_mask >> q) & 1u ? os.data_stash[q].n : 0;
    w.st->prio[port][q].egress_watermark.RaiseTo(depth + stashed);
  }
  rte_mbuf* pkts[kMaxBurst];
  sw::PktMeta metas[kMaxBurst];  // pkts' metadata, read before the tx burst
  struct Run {
    uint8_t q;
    uint16_t from, n;
    uint32_t bytes;  // of its n packets, summed once for scheduler and counters
  } runs[kMaxBurst];
  int nruns = 0;
  uint16_t n = 0;
  while (budget_pkts > 0 && nonempty) {
    uint32_t byte_budget = 0;
    Deadline ready;
    const int q = os.sched.Pick(nonempty, paused_mask, w.now_ns, &byte_budget, &ready);
    if (q < 0) {
      LowerTo(ready_ns, ready);
      break;
    }
    // Without a shaper the budget is large and we move a whole burst; with
    // one, take about as many MTU frames as the tokens allow (at least one).
    const uint32_t frame = w.t->max_frame[port];
    int take = static_cast<int>(std::clamp<uint32_t>(byte_budget / frame, 1, budget_pkts));
    const unsigned got =
        rte_ring_dequeue_burst(pr.egress[q], reinterpret_cast<void**>(pkts + n), take, nullptr);
    if (got == 0) break;
    if (got < static_cast<unsigned>(take) || rte_ring_empty(pr.egress[q])) {
      nonempty &= static_cast<uint8_t>(~(1u << q));
      seen_empty(q);
      // An emptied ring starts again at its first slot. rte_ring's positions
      // only grow, so a queue that is never long walks its whole ring (sized
      // for the buffer full in one queue: megabytes) a slot a packet: every
      // 64 bytes of slots a cold line, every 4 KB a page first touched (a
      // fault, a zeroed page) and a TLB miss. Reset, a short queue lives in
      // its first lines. Only where nothing else can hold or read the
      // positions (WorkerCtx::private_rings), as rte_ring_reset requires.
      if (w.private_rings) rte_ring_reset(pr.egress[q]);
    }
    const uint32_t bytes =
        static_cast<uint32_t>(TakeMetas(sw, pkts + n, static_cast<uint16_t>(got), metas + n));
    // The emulated link also carries FCS, preamble and inter-frame gap: 24
    // bytes a frame, as pause quanta (wire bit times) assume.
    os.sched.Sent(q, bytes + kWireOverhead * got, w.now_ns);
    runs[nruns++] = Run{static_cast<uint8_t>(q), n, static_cast<uint16_t>(got), bytes};
    n = static_cast<uint16_t>(n + got);
    budget_pkts -= static_cast<int>(got);
  }
  // A full burst runs the round again at once; the port's room does not
  // (it reports when it takes frames again).
  if ((budget_pkts <= 0 && room == w.t->burst) || nc == kMaxBurst) w.burst_full = true;
  if (n == 0) return static_cast<uint16_t>(w.st->port[port].tx_packets.Get() - before);
  // Out of the dequeue loop: a call there, even one never made, costs
  // the loop its registers (2 instructions a packet, bench/cost/table.sh).
  if (w.hooks.Has(Hooks::kLeave)) [[unlikely]] {
    uint32_t taken = 0;
    for (int r = 0; r < nruns; r++) {
      runs[r].bytes += w.hooks.Leave(w, port, runs[r].q, pkts + runs[r].from, runs[r].n, taken);
      taken += runs[r].bytes;
    }
  }
  const uint16_t sent = sw::PortTx(pr.io, pkts, n, w.now_ns, false);
  for (int r = 0; r < nruns; r++) {
    const Run& run = runs[r];
    const uint16_t ok = sent > run.from ? std::min<uint16_t>(sent - run.from, run.n) : 0;
    // The run's own sum, less what the device refused (rare; still ours).
    const uint64_t ok_bytes =
        ok == run.n
            ? run.bytes
            : run.bytes - GroupBytes(pkts + run.from + ok, static_cast<uint16_t>(run.n - ok));
    DataSent(w, port, run.q, metas + run.from, ok, ok_bytes, rel);
    if (ok < run.n) Stash(os, run.q, pkts + run.from + ok, run.n - ok);
  }
  return static_cast<uint16_t>(w.st->port[port].tx_packets.Get() - before);
}

}  // namespace pfc::stages
