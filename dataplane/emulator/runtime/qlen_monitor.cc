// SPDX-License-Identifier: BSD-3-Clause
// The queue-length monitor (qlen_monitor.h).
#include "dataplane/emulator/runtime/qlen_monitor.h"

#include <algorithm>

#include "dataplane/stages/ecn_stage.h"

namespace pfc::emulator {
namespace {

// Bytes queued at port p's egress, every priority whose depth the switch
// keeps.
int64_t PortBytes(const stages::WorkerCtx& w, PortId p) {
  const sw::Switch& sw = *w.sw;
  const bool every = sw.cfg.telemetry.any();  // INT keeps every queue's
  int64_t d = 0;
  for (int q = 0; q < kNumPrio; q++)
    if (every || (sw.ecn && w.t->ecn[p][q].enabled())) d += stages::EcnDepthSolo(w.st->prio[p][q]);
  return d;
}

}  // namespace

void QlenMonitor::Init(const Fabric& fab) {
  const FabricSpec::QlenMonitor& m = fab.spec().qlen_mon;
  start_ = m.start_ns;
  end_ = m.end_ns;
  interval_ = m.interval_ns;
  sw_.clear();
  if (!on()) return;
  for (const SwitchRun& s : fab.switches()) {
    auto x = std::make_unique<Sw>();
    x->mark = start_;
    x->hist.resize(s.sw->ports.size());
    sw_.push_back(std::move(x));
  }
}

void QlenMonitor::Count(Sw& s, const stages::WorkerCtx& ctx, uint64_t before) {
  const uint64_t lim = std::min(before, end_ + 1);
  const uint64_t n = (lim - s.mark + interval_ - 1) / interval_;
  s.mark += n * interval_;
  for (PortId p = 0; p < s.hist.size(); p++) {
    const int64_t bytes = PortBytes(ctx, p);
    const size_t kb = bytes > 0 ? static_cast<size_t>(bytes) / 1000 : 0;
    std::vector<uint64_t>& h = s.hist[p];
    if (h.size() <= kb) h.resize(kb + 1, 0);
    h[kb] += n;
  }
}

void QlenMonitor::Finish(const Fabric& fab, uint64_t last) {
  if (!on()) return;
  for (size_t i = 0; i < sw_.size(); i++) {
    Sw& s = *sw_[i];
    if (s.mark <= last && s.mark <= end_) Count(s, fab.switches()[i].ctx, last + 1);
  }
}

std::vector<QlenMonitor::Row> QlenMonitor::Rows() const {
  std::vector<Row> rows;
  for (uint32_t i = 0; i < sw_.size(); i++)
    for (uint16_t p = 0; p < sw_[i]->hist.size(); p++)
      for (uint32_t kb = 0; kb < sw_[i]->hist[p].size(); kb++)
        if (const uint64_t n = sw_[i]->hist[p][kb]) rows.push_back({i, p, kb, n});
  return rows;
}

}  // namespace pfc::emulator
