// SPDX-License-Identifier: BSD-3-Clause
// DCFIT glue, §4 (initial-trigger handling, dcfit.trigger_handling): what
// the trigger handler (dcfit/trigger_handler.h) decides, carried out on the
// switch: notices sent on, a trigger host's port held lossy, a trigger
// switch's heavy hitters watched by the sketch and then rate-limited
// (DcfitPolice, on the enqueue hook). Called from dcfit_stage.cc under the
// switch's DCFIT lock, as that file's hooks are.
#include "dataplane/stages/dcfit_trigger_stage.h"

#include <bit>

#include "dataplane/buffer/accountant.h"
#include "dataplane/stages/dcfit_stage.h"

namespace pfc::stages {
namespace {

// A switch trigger's hold starts: the heavy hitters the sketch saw into the
// congested egress ports get a token bucket each.
void StartLimit(WorkerCtx& w, SwitchDcfit& d, const dcfit::Action& a, DcfitEventRecord* r) {
  const int q = a.msg.prio;
  const dcfit::Causality& c = d.det.causality();
  PortMask ports = d.hh_watch[q];
  if (ports == 0) ports = c.WaitsOn(a.port, q) & ~c.paused(q);
  r->limit_ports = ports;
  if (ports == 0) return;
  // The slowest of the congested ports sets the rate: a share of it does
  // not congest any of them.
  uint64_t line = 0;
  for (PortMask m = ports; m; m &= m - 1) {
    const uint64_t bps = w.sw->ports[std::countr_zero(m)].owner_state->pause_bps;
    if (line == 0 || (bps != 0 && bps < line)) line = bps;
  }
  // A heavy hitter sends at least a fair share of what 2 * kMaxLimited
  // flows would each send. Together they get the configured rate, in equal
  // shares, so that they no longer congest the port.
  r->n_hitters =
      static_cast<uint8_t>(d.sketch.Top(1.0 / (2 * kMaxLimited), r->hitters.data(), kMaxLimited));
  const uint64_t total = d.limit_bps
                             ? d.limit_bps
                             : static_cast<uint64_t>(d.limit_fraction * static_cast<double>(line));
  r->limit_bps = r->n_hitters ? total / r->n_hitters : total;
  for (int i = 0; i < r->n_hitters; i++) {
    DcfitLimiter l;
    l.key = r->hitters[i].key;
    l.ports = ports;
    l.prio = static_cast<uint8_t>(q);
    l.tri_port = a.port;
    l.bucket.Configure(r->limit_bps, 16 * 1024, w.now_ns);
    d.limiters.push_back(l);
  }
  DcfitRecomputeLimits(d);
}

// What the packet path reads of the trigger handler, after it acted.
void SyncHostHold(SwitchDcfit& d) {
  for (int p = 0; p < d.det.config().num_ports; p++)
    d.host_hold[p].store(d.trig.ignore_mask(static_cast<PortId>(p)), std::memory_order_relaxed);
}

}  // namespace

void DcfitRecomputeLimits(SwitchDcfit& d) {
  d.limit_ports = {};
  for (const DcfitLimiter& l : d.limiters) d.limit_ports[l.prio] |= l.ports;
  bool any = false;
  for (int q = 0; q < kNumPrio; q++) any |= (d.hh_watch[q] | d.limit_ports[q]) != 0;
  d.hh_any.store(any, std::memory_order_relaxed);
}

[[gnu::noinline]] void DcfitApplyActions(WorkerCtx& w, SwitchDcfit& d) {
  sw::WorkerStats& st = *w.st;
  for (const dcfit::Action& a : d.acts) {
    DcfitEventRecord r;
    r.act = a;
    r.ev.at_ns = a.at_ns;
    r.ev.msg = a.msg;
    r.ev.in_port = r.ev.out_port = a.port;
    switch (a.kind) {
      case dcfit::ActionKind::kNone:
        continue;
      case dcfit::ActionKind::kNoticeSent:
      case dcfit::ActionKind::kNoticeForwarded:
        DcfitSendStandalone(w, a.port, a.msg);
        (a.kind == dcfit::ActionKind::kNoticeSent ? st.port[a.port].dcfit_notice_tx
                                                  : st.port[a.port].dcfit_notice_fwd)
            .Add(1);
        break;
      case dcfit::ActionKind::kNoticeNoRoute:
        st.dcfit_notice_no_route.Add(1);
        break;
      case dcfit::ActionKind::kHostLossy:
        st.dcfit_trigger_holds.Add(1);
        break;
      case dcfit::ActionKind::kRateLimit:
        st.dcfit_trigger_holds.Add(1);
        StartLimit(w, d, a, &r);
        break;
      case dcfit::ActionKind::kHostRestored:
        st.dcfit_trigger_ends.Add(1);
        break;
      case dcfit::ActionKind::kRateLimitEnd:
        st.dcfit_trigger_ends.Add(1);
        std::erase_if(d.limiters, [&](const DcfitLimiter& l) {
          return l.tri_port == a.port && l.prio == a.msg.prio;
        });
        DcfitRecomputeLimits(d);
        break;
    }
    st.dcfit_trigger_events.Add(1);
    d.log.Add(r);  // the control thread prints it (switch/log.h)
  }
  d.acts.clear();
  SyncHostHold(d);
}

void DcfitWatchCongestion(SwitchDcfit& d, const dcfit::Event& e) {
  // Congestion here: the egress ports the pausing port's packets wait on
  // feed the heavy-hitter sketch while we pause that priority.
  const dcfit::Causality& c = d.det.causality();
  const int q = e.msg.prio;
  const PortMask add = c.WaitsOn(e.out_port, q) & ~c.paused(q);
  if (d.hh_watch[q] == 0 && add != 0) d.sketch.Reset();
  d.hh_watch[q] |= add;
  DcfitRecomputeLimits(d);
}

void DcfitTriggerTick(WorkerCtx& w, SwitchDcfit& d) {
  const uint64_t x = d.trig.next_expiry();
  if (x != 0 && w.now_ns >= x) {
    d.trig.Tick(w.now_ns, &d.acts);
    DcfitApplyActions(w, d);
  }
  if (d.hh_any.load(std::memory_order_relaxed)) {
    // The sketch watches a priority only while we pause an upstream on it.
    const dcfit::Causality& c = d.det.causality();
    for (int q = 0; q < kNumPrio; q++)
      if (d.hh_watch[q] && c.pausing_up(q) == 0) d.hh_watch[q] = 0;
    DcfitRecomputeLimits(d);
  }
}

uint16_t DcfitPolice(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts, uint16_t n,
                     buffer::ReleaseBatch& undo) {
  SwitchDcfit& d = Dcfit(w);
  DcfitGuard g(d);
  const PortMask bit = PortMask{1} << out;
  const bool watch = d.hh_watch[eprio] & bit;
  const bool limit = d.limit_ports[eprio] & bit;
  if (!watch && !limit) return n;
  uint16_t kept = 0;
  for (uint16_t i = 0; i < n; i++) {
    rte_mbuf* m = pkts[i];
    const uint32_t len = rte_pktmbuf_pkt_len(m);
    const uint64_t key =
        dcfit::FlowKeyOf(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m));
    if (watch) d.sketch.Offer(key, len);
    bool drop = false;
    if (limit) {
      for (DcfitLimiter& l : d.limiters)
        if (l.key == key && l.prio == eprio && (l.ports & bit)) {
          drop = !l.bucket.Take(len, w.now_ns);
          break;
        }
    }
    if (!drop) {
      pkts[kept++] = m;
      continue;
    }
    const sw::PktMeta* meta = w.sw->Meta(m);
    undo.Add(meta->in_port, meta->in_prio, meta->charged);
    w.st->prio[meta->in_port][meta->in_prio]
        .drops[static_cast<int>(DropReason::kDcfitRateLimit)]
        .Add(1);
    rte_pktmbuf_free(m);
  }
  return kept;
}

}  // namespace pfc::stages
