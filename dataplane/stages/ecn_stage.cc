// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/ecn_stage.h"

#include "dataplane/common/rng.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/net/ipv4_locate.h"

namespace pfc::stages {
namespace {

// The IPv4 header of a frame as queued, or nullptr: only IPv4 carries an
// ECN field here.
uint8_t* Ipv4Header(rte_mbuf* m) {
  uint8_t* d = rte_pktmbuf_mtod(m, uint8_t*);
  const uint32_t off = net::Ipv4Offset(d, rte_pktmbuf_data_len(m));
  return off == 0 ? nullptr : d + off;
}

// ECN marking's generator: this worker's stream for this switch, from
// ecn.seed (its slot of WorkerCtx::mech).
struct EcnWorker final : sw::MechanismState {
  Rng rng;
};

// Marks m as `red` decides at `depth` with the worker's generator, and
// counts what it did on pc.
void Judge(rte_mbuf* m, int64_t depth, const sched::RedQueue& red, Rng& rng, sw::PrioCounters& pc) {
  const uint32_t r = red.NeedsDraw(depth) ? rng.Next32() : 0;
  if (!red.Mark(depth, r)) return;
  uint8_t* ip = Ipv4Header(m);
  const uint8_t was = ip ? net::Ipv4MarkCe(ip) : net::kEcnNotEct;
  if (was == net::kEcnEct0 || was == net::kEcnEct1)
    pc.ecn_marked.Add(1);
  else if (was == net::kEcnNotEct)
    pc.ecn_not_ect.Add(1);
}

Rng& RngOf(const WorkerCtx& w) { return MechanismStateOf<EcnWorker>(w, kEcnMechanism).rng; }

}  // namespace

int64_t EcnDepth(const sw::Switch& sw, PortId p, int q) {
  const sw::PrioCounters& owner = sw.stats[sw.ports[p].owner]->prio[p][q];
  uint64_t in = 0;
  const uint64_t out = EcnLeft(owner);
  for (const auto& st : sw.stats) in += st->prio[p][q].ecn_queued_bytes.Get();
  return static_cast<int64_t>(in - out);
}

uint16_t EcnMarkGroup(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n) {
  const sched::RedQueue& red = w.t->ecn[out][eprio];
  sw::PrioCounters& pc = w.st->prio[out][eprio];
  int64_t depth = EcnDepth(*w.sw, out, eprio);
  Rng& rng = RngOf(w);
  for (uint16_t i = 0; i < n; i++) {
    const uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);
    Judge(pkts[i], depth, red, rng, pc);
    depth += len;
    pc.ecn_queued_bytes.Add(len);
  }
  return n;
}

void EcnMarkLeaving(WorkerCtx& w, PortId out, int q, rte_mbuf* const* pkts, uint16_t n,
                    int64_t depth) {
  const sched::RedQueue& red = w.t->ecn[out][q];
  sw::PrioCounters& pc = w.st->prio[out][q];
  Rng& rng = RngOf(w);
  for (uint16_t i = 0; i < n; i++) {
    depth -= rte_pktmbuf_pkt_len(pkts[i]);
    Judge(pkts[i], depth, red, rng, pc);
  }
}

namespace {
bool EcnWanted(const sw::Switch& sw) { return sw.ecn; }
void EcnWire(const sw::Switch& sw, Hooks* h) {
  h->enqueue.Add({.before = EcnOnEnqueue, .reads_bytes = true});
  h->refused.Add(EcnOnRefused);
  bool at_dequeue = false;
  for (const sched::RedProfile& p : sw.cfg.ecn.profiles) at_dequeue |= p.at_dequeue;
  if (at_dequeue) h->leave.Add(EcnOnLeave);
}
std::unique_ptr<sw::MechanismState> EcnWorkerState(const sw::Switch& sw, const WorkerCtx& w) {
  auto s = std::make_unique<EcnWorker>();
  s->rng = Rng(Mix64(sw.cfg.ecn.seed) ^ w.id);
  return s;
}
}  // namespace

const Mechanism kEcnMechanism = {
    .name = "ecn",
    // After DCFIT's policing at enqueue: a packet it drops is neither
    // marked nor counted in the depth.
    .runs_after = {"dcfit"},
    .runs_before = {},
    .wanted = EcnWanted,
    .wire = EcnWire,
    .make_worker_state = EcnWorkerState,
};

}  // namespace pfc::stages
