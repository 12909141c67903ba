// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/runtime/dcfit_report.h"

#include <algorithm>
#include <bit>
#include <string>

#include "dataplane/stages/dcfit_stage.h"

namespace pfc::emulator {
namespace {

uint64_t Counted(const sw::Switch& sw) {
  uint64_t n = 0;
  for (const auto& st : sw.stats)
    n += st->dcfit_loops.Get() + st->dcfit_deadlocks.Get() + st->dcfit_checks_failed.Get() +
         st->dcfit_trigger_events.Get();
  return n;
}

// Walks the loop from (switch i, egress port e) at priority q; fills
// "loop" (["S2:L2", ...]: switch:port, the port the next switch pauses) and,
// when every link is paused, "loop_formed_ns".
void WalkLoop(const std::vector<const sw::Switch*>& sws, const emulator::FabricPlan& plan, size_t i,
              PortId e, int q, nlohmann::json* j) {
  nlohmann::json loop = nlohmann::json::array();
  uint64_t formed = 0;
  bool all_paused = true, closed = false;
  size_t s = i;
  PortId out = e;
  for (size_t hop = 0; hop < 64; hop++) {
    const sw::Switch& sw = *sws[s];
    loop.push_back(sw.name + ":" + sw.ports[out].name);
    const uint64_t since = stages::DcfitOf(sw)->paused_since[out][q];
    if (since == 0) all_paused = false;
    formed = std::max(formed, since);
    const emulator::PortPlan& pp = plan.switches[s].ports[out];
    const int next = pp.peer_node < plan.switch_index.size() ? plan.switch_index[pp.peer_node] : -1;
    if (next < 0 || stages::DcfitOf(*sws[next]) == nullptr) break;
    if (static_cast<size_t>(next) == i) {
      // Back at the detecting switch (whose looped queue a break may have
      // emptied already, so its own causality is not asked).
      closed = true;
      break;
    }
    // At the next switch: the egress port, paused by its own downstream,
    // that traffic from our link waits on (lowest such port).
    const dcfit::Causality& c = stages::DcfitOf(*sws[next])->det.causality();
    const PortMask w = c.WaitsOn(pp.peer_port, q) & c.paused(q);
    if (w == 0) break;
    s = static_cast<size_t>(next);
    out = static_cast<PortId>(std::countr_zero(w));
  }
  (*j)["loop"] = loop;
  (*j)["loop_closed"] = closed;
  if (closed && all_paused) {
    (*j)["loop_formed_ns"] = formed;
    (*j)["detect_ns"] = (*j)["t_ns"].get<uint64_t>() - formed;
  }
}

// A step of initial-trigger handling (stages/dcfit_state.h): "kind" is the
// action's name, "port" its port.
nlohmann::json ActionJson(const sw::Switch& sw, const stages::DcfitEventRecord& r) {
  const dcfit::Action& a = r.act;
  const dcfit::CheckMsg& m = a.msg;
  nlohmann::json j = {{"switch", sw.name},
                      {"kind", dcfit::ActionKindName(a.kind)},
                      {"t_ns", a.at_ns},
                      {"prio", m.prio},
                      {"port", sw.ports[a.port].name},
                      {"declared_by", {m.gen_sw, m.gen_port}},
                      {"seq", m.seq},
                      {"trigger", {m.tri_sw, m.tri_port}},
                      {"trigger_host", (m.flags & dcfit::kTriggerHost) != 0},
                      {"hops", m.hops}};
  if (a.until_ns) j["until_ns"] = a.until_ns;
  if (a.kind == dcfit::ActionKind::kRateLimit) {
    nlohmann::json h = nlohmann::json::array();
    for (int i = 0; i < r.n_hitters; i++)
      h.push_back({{"flow", dcfit::FlowKeyText(r.hitters[i].key)}, {"bytes", r.hitters[i].bytes}});
    j["hitters"] = h;
    j["rate_bps"] = r.limit_bps;
    nlohmann::json ports = nlohmann::json::array();
    for (PortMask pm = r.limit_ports; pm; pm &= pm - 1)
      ports.push_back(sw.ports[std::countr_zero(pm)].name);
    j["limit_ports"] = ports;
  }
  return j;
}

}  // namespace

void DcfitReport::Take(const std::vector<const sw::Switch*>& sws, const emulator::FabricPlan& plan,
                       size_t i, bool walk) {
  const sw::Switch& sw = *sws[i];
  const stages::SwitchDcfit* dcfit = stages::DcfitOf(sw);
  if (dcfit == nullptr) return;
  if (counted_.size() < sws.size()) {
    counted_.resize(sws.size(), 0);
    taken_.resize(sws.size(), 0);
  }
  const uint64_t n = Counted(sw);
  if (n == counted_[i]) return;
  counted_[i] = n;
  uint64_t total = 0;
  const std::vector<stages::DcfitEventRecord> log = dcfit->log.Snapshot(&total);
  // The log keeps the newest DcfitEventLog::kKeep: entries before that are gone.
  const size_t first = total - log.size();
  for (uint64_t k = std::max<uint64_t>(taken_[i], first); k < total; k++) {
    const stages::DcfitEventRecord& r = log[k - first];
    if (r.act.kind != dcfit::ActionKind::kNone) {
      events_.push_back(ActionJson(sw, r));
      continue;
    }
    const dcfit::Event& e = r.ev;
    nlohmann::json j = {{"switch", sw.name},
                        {"kind", dcfit::EventKindName(e.kind)},
                        {"t_ns", e.at_ns},
                        {"prio", e.msg.prio},
                        {"in_port", sw.ports[e.in_port].name},
                        {"out_port", sw.ports[e.out_port].name},
                        {"initiator", {e.msg.gen_sw, e.msg.gen_port}},
                        {"seq", e.msg.seq},
                        {"trigger", {e.msg.tri_sw, e.msg.tri_port}},
                        {"trigger_host", (e.msg.flags & dcfit::kTriggerHost) != 0},
                        {"hops", e.msg.hops}};
    if (e.kind == dcfit::EventKind::kTemporalFailed) j["why"] = dcfit::FailReasonName(e.why);
    if (e.kind == dcfit::EventKind::kDeadlock) {
      j["break"] = r.broke;
      j["break_drops"] = r.break_drops;
    }
    // The loop as it is now: right after the event, before anything else
    // ran (a break has emptied a queue, but the pauses still hold).
    if (walk && e.kind != dcfit::EventKind::kTemporalFailed)
      WalkLoop(sws, plan, i, e.in_port, e.msg.prio, &j);
    events_.push_back(std::move(j));
  }
  taken_[i] = total;
}

}  // namespace pfc::emulator
