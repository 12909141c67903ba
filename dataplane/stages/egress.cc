// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/egress.h"

#include <rte_ethdev.h>

#include <algorithm>

#include "dataplane/buffer/accountant.h"
#include "dataplane/stages/dcfit_stage.h"

namespace pfc {
namespace {

constexpr uint32_t kWireOverhead = 24;  // FCS 4 + preamble/SFD 8 + IFG 12

// Tries to send what the stash holds; returns true when it is empty after.
bool FlushStash(WorkerCtx& w, PortId port, TxStash& s, bool data, ReleaseBatch& rel) {
  Switch& sw = *w.sw;
  SwitchDcfit* dc = data ? sw.dcfit.get() : nullptr;
  while (s.n > 0) {
    rte_mbuf* burst[kMaxBurst];
    uint8_t prios[kMaxBurst];
    const int k = std::min(s.n, kMaxBurst);
    for (int i = 0; i < k; i++) {
      burst[i] = s.pkts[(s.head + i) % TxStash::kCap];
      prios[i] = s.prio[(s.head + i) % TxStash::kCap];
    }
    const uint16_t sent =
        PortTx(sw.ports[port].io, burst, static_cast<uint16_t>(k), w.now_ns, !data);
    uint64_t bytes = 0;
    uint32_t qn[kNumPrio] = {}, qb[kNumPrio] = {};
    for (uint16_t i = 0; i < sent; i++) {
      const uint32_t len = rte_pktmbuf_pkt_len(burst[i]);
      bytes += len;
      if (data) {
        const PktMeta* meta = sw.Meta(burst[i]);
        rel.Add(meta->in_port, meta->in_prio, meta->charged);
        if (dc) dc->det.causality().OnDequeue(meta->in_port, port, prios[i]);
        qn[prios[i]]++;
        qb[prios[i]] += len;
      }
    }
    if (data)
      for (int q = 0; q < kNumPrio; q++)
        if (qn[q]) {
          w.st->prio[port][q].tx_packets.Add(qn[q]);
          w.st->prio[port][q].tx_bytes.Add(qb[q]);
        }
    PortCounters& pc = w.st->port[port];
    pc.tx_packets.Add(sent);
    pc.tx_bytes.Add(bytes);
    s.head = (s.head + sent) % TxStash::kCap;
    s.n -= sent;
    if (sent < k) return false;
  }
  return true;
}

void Stash(TxStash& s, rte_mbuf** pkts, const uint8_t* prios, int from, int to) {
  for (int i = from; i < to; i++) {
    const int slot = (s.head + s.n) % TxStash::kCap;
    s.pkts[slot] = pkts[i];
    s.prio[slot] = prios ? prios[i] : 0;
    s.n++;
  }
}

}  // namespace

// Most ports of a large switch, most rounds.
bool NothingQueued(const PortRuntime& pr) {
  const PortOwnerState& os = *pr.owner_state;
  if (os.ctrl_stash.n != 0 || !rte_ring_empty(pr.control)) return false;
  for (int q = 0; q < kNumPrio; q++) {
    if (os.data_stash[q].n != 0 || !rte_ring_empty(pr.egress[q])) return false;
  }
  return true;
}

uint32_t DiscardQueue(WorkerCtx& w, PortId port, int prio, DropReason why) {
  Switch& sw = *w.sw;
  PortRuntime& pr = sw.ports[port];
  SwitchDcfit* dc = sw.dcfit.get();
  ReleaseBatch rel(sw.buffer);
  uint32_t n = 0;
  auto discard = [&](rte_mbuf* m) {
    const PktMeta* meta = sw.Meta(m);
    rel.Add(meta->in_port, meta->in_prio, meta->charged);
    // Leaving the queue, as far as DCFIT's causality counts go.
    if (dc) dc->det.causality().OnDequeue(meta->in_port, port, prio);
    w.st->prio[meta->in_port][meta->in_prio].drops[static_cast<int>(why)].Add(1);
    rte_pktmbuf_free(m);
    ++n;
  };
  TxStash& s = pr.owner_state->data_stash[prio];
  for (; s.n > 0; --s.n, s.head = (s.head + 1) % TxStash::kCap) discard(s.pkts[s.head]);
  rte_mbuf* pkts[kMaxBurst];
  unsigned got;
  while ((got = rte_ring_dequeue_burst(pr.egress[prio], reinterpret_cast<void**>(pkts), kMaxBurst,
                                       nullptr)) > 0) {
    for (unsigned i = 0; i < got; i++) discard(pkts[i]);
  }
  return n;
}

uint16_t EgressPort(WorkerCtx& w, PortId port, uint8_t paused_mask, uint64_t* ready_ns) {
  Switch& sw = *w.sw;
  PortRuntime& pr = sw.ports[port];
  PortOwnerState& os = *pr.owner_state;
  if (NothingQueued(pr)) return 0;
  ReleaseBatch rel(sw.buffer);
  const uint64_t before = w.st->port[port].tx_packets.Get();

  // 1. Control frames (ARP, ICMP replies) go before any data.
  if (!FlushStash(w, port, os.ctrl_stash, false, rel)) return 0;
  rte_mbuf* ctrl[kMaxBurst];
  unsigned nc =
      rte_ring_dequeue_burst(pr.control, reinterpret_cast<void**>(ctrl), kMaxBurst, nullptr);
  if (nc) {
    Stash(os.ctrl_stash, ctrl, nullptr, 0, static_cast<int>(nc));
    if (!FlushStash(w, port, os.ctrl_stash, false, rel)) return 0;
  }
  // 2. Data the device refused before, in order, before anything newer of
  // its priority; a priority paused since then keeps it (software PFC: what
  // the device has not taken is still ours to hold).
  for (int q = 0; q < kNumPrio; q++) {
    if (os.data_stash[q].n == 0 || (paused_mask >> q & 1)) continue;
    if (!FlushStash(w, port, os.data_stash[q], true, rel))
      return static_cast<uint16_t>(w.st->port[port].tx_packets.Get() - before);
  }

  // 3. Scheduler-picked queues, up to one burst per round.
  int budget_pkts = w.t->burst;
  uint8_t nonempty = 0;
  for (int q = 0; q < kNumPrio; q++)
    if (!rte_ring_empty(pr.egress[q])) nonempty |= 1u << q;
  while (budget_pkts > 0) {
    if (!nonempty) break;
    uint32_t byte_budget = 0;
    uint64_t ready = 0;
    const int q = os.sched.Pick(nonempty, paused_mask, w.now_ns, &byte_budget, &ready);
    if (q < 0) {
      if (ready && (*ready_ns == 0 || ready < *ready_ns)) *ready_ns = ready;
      break;
    }
    // Without a shaper the budget is large and we move a whole burst; with
    // one, take about as many MTU frames as the tokens allow (at least one).
    const uint32_t frame = w.t->max_frame[port];
    int take = static_cast<int>(std::clamp<uint32_t>(byte_budget / frame, 1, budget_pkts));
    rte_mbuf* pkts[kMaxBurst];
    uint8_t prios[kMaxBurst];
    const unsigned got =
        rte_ring_dequeue_burst(pr.egress[q], reinterpret_cast<void**>(pkts), take, nullptr);
    if (got == 0) break;
    if (got < static_cast<unsigned>(take) || rte_ring_empty(pr.egress[q]))
      nonempty &= static_cast<uint8_t>(~(1u << q));
    uint32_t bytes = 0;
    for (unsigned i = 0; i < got; i++) {
      bytes += rte_pktmbuf_pkt_len(pkts[i]);
      prios[i] = static_cast<uint8_t>(q);
    }
    // The emulated link also carries FCS, preamble and inter-frame gap: 24
    // bytes a frame, as pause quanta (wire bit times) assume.
    os.sched.Sent(q, bytes + kWireOverhead * got, w.now_ns);
    Stash(os.data_stash[q], pkts, prios, 0, static_cast<int>(got));
    budget_pkts -= static_cast<int>(got);
    if (!FlushStash(w, port, os.data_stash[q], true, rel)) break;
  }
  return static_cast<uint16_t>(w.st->port[port].tx_packets.Get() - before);
}

}  // namespace pfc
