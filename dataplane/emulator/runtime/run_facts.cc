// SPDX-License-Identifier: BSD-3-Clause
// A run's facts, taken, packed and merged (run_facts.h).
#include "dataplane/emulator/runtime/run_facts.h"

#include <rte_mempool.h>
#include <sys/resource.h>

#include <algorithm>

#include "dataplane/emulator/runtime/fabric_totals.h"
#include "dataplane/stages/pfcwd_stage.h"

namespace pfc::emulator {
using nlohmann::json;

namespace {

// results.json's keys of flow i that its sender knows.
void SenderKeys(const FlowTx& tx, const FabricSpec& spec, json* out) {
  json& j = *out;
  j["tx_frames"] = tx.tx_frames;
  j["tx_bytes"] = tx.tx_bytes;
  j["cnps_received"] = tx.cnp_rx;
  if (tx.rp) {
    const DcqcnCounters& c = tx.rp->counters();
    j["dcqcn"] = {{"rate_bps_end", tx.rp->rate_bps()},
                  {"cuts", c.cuts},
                  {"fast_recovery", c.recoveries},
                  {"additive", c.ai},
                  {"hyper", c.hai}};
    if (spec.dcqcn.byte_counter_bytes != 0) j["dcqcn"]["byte_counter"] = c.byte_counter;
  }
  if (tx.cc) {
    // The ACK-driven control's state at the end and what it did.
    json c = {{"mode", AckCcName(tx.cc->mode())},
              {"rate_bps_end", tx.cc->pace_bps()},
              {"window_bytes_end", tx.cc->window_bytes()},
              {"acks_without_echo", tx.cc->acks_without_echo()}};
    if (const HpccRp* h = tx.cc->hpcc()) {
      c["updates"] = h->counters().updates;
      c["fast_reacts"] = h->counters().fast_reacts;
    } else if (const HpccPintRp* h = tx.cc->hpcc_pint()) {
      c["updates"] = h->counters().updates;
      c["fast_reacts"] = h->counters().fast_reacts;
      c["sampled_out"] = h->counters().sampled_out;
    } else if (const TimelyRp* t = tx.cc->timely()) {
      c["decreases"] = t->counters().decreases;
    } else if (const DctcpRp* d = tx.cc->dctcp()) {
      c["ecn_echoes"] = d->counters().ece;
      c["cuts"] = d->counters().cuts;
    }
    j["cc"] = c;
  }
  if (tx.rc) {
    const RcRequesterCounters& c = tx.rc->counters();
    j["rc"] = {{"packets", c.packets},
               {"retransmits", c.retransmits},
               {"acks", c.acks},
               {"naks", c.naks},
               {"timeouts", c.timeouts},
               {"messages_done", c.messages_done},
               {"completed", tx.rc->completed()},
               {"failed", tx.rc->failed()}};
  }
}

// And those its receiver knows.
void ReceiverKeys(const FlowRx& rx, json* out) {
  json& j = *out;
  j["rx_frames"] = rx.frames;
  j["rx_bytes"] = rx.bytes;
  j["lost"] = rx.lost;
  j["reordered"] = rx.reordered;
  j["ce_frames"] = rx.ce;
  j["cnps_sent"] = rx.cnp_tx;
  j["mean_delay_ns"] = rx.frames ? rx.sum_delay_ns / rx.frames : 0;
  if (rx.rc) {
    const RcResponderCounters& c = rx.rc->counters();
    j["responder"] = {{"accepted", c.accepted},
                      {"duplicates", c.duplicates},
                      {"out_of_sequence", c.out_of_sequence},
                      {"acks", c.acks},
                      {"naks", c.naks},
                      {"messages", c.messages}};
  }
}

// A host's counters, and the time its NIC's priorities spent paused by the
// PFC frames it received, to end_ns (summed over priorities, as the
// switches' paused_ns; the HPCC simulator counts its NICs' pauses too).
json HostJson(const HostModel& m, uint64_t end_ns) {
  const HostCounters& c = m.counters();
  uint64_t paused_ns = 0;
  for (int p = 0; p < kNumPrio; p++) paused_ns += m.pause().PausedNs(p, end_ns);
  json h = {{"paused_ns", paused_ns},       {"tx_frames", c.tx_frames},
            {"rx_frames", c.rx_frames},     {"pfc_rx", c.pfc_rx},
            {"pfc_tx", c.pfc_tx},           {"pfc_ignored", c.pfc_ignored},
            {"cnp_tx", c.cnp_tx},           {"cnp_rx", c.cnp_rx},
            {"cnp_unknown", c.cnp_unknown}, {"rx_malformed", c.rx_malformed}};
  if (c.ack_tx + c.nak_tx + c.ack_rx + c.nak_rx + c.qp_unknown != 0) {
    h.update({{"ack_tx", c.ack_tx},
              {"nak_tx", c.nak_tx},
              {"ack_rx", c.ack_rx},
              {"nak_rx", c.nak_rx},
              {"qp_unknown", c.qp_unknown}});
  }
  return h;
}

}  // namespace

std::vector<FabricPlan::SwitchNames> AllSwitches(const FabricPlan& plan) {
  if (!plan.all_switches.empty()) return plan.all_switches;
  std::vector<FabricPlan::SwitchNames> all;
  for (const SwitchPlan& sp : plan.switches) all.push_back(FabricPlan::NamesOf(sp));
  return all;
}

RunFacts CollectFacts(const Fabric& fab, const Clock& run) {
  const FabricSpec& spec = fab.spec();
  const FabricPlan& plan = fab.plan();
  RunFacts f;
  f.end_ns = run.now_ns();
  f.rounds = run.rounds();
  ForEachDrop(fab, [&](bool lossless, DropReason r, uint64_t n) {
    f.drops[lossless ? 1 : 0][static_cast<size_t>(r)] += n;
  });
  fab.ForEachLinkEnd([&](uint32_t, uint16_t, const EmuPort& e) {
    f.link_down += e.counters().tx_down + e.counters().rx_stale;
    f.ring_full += e.counters().ring_full;
  });
  f.rank_nombuf = run.rank_frames_dropped();
  const size_t nf = spec.flows.size();
  f.flows.resize(nf);
  f.bins.resize(nf);
  f.bin_from.assign(nf, 0);
  f.fct.resize(nf);
  f.fct_here.assign(nf, 0);
  const FlowStates states = IndexFlows(fab);
  for (size_t i = 0; i < nf; i++) {
    const FlowSpecFile& fl = spec.flows[i];
    json& j = f.flows[i];
    j["name"] = fl.name;
    j["from"] = spec.topo.node(fl.from).name;
    j["to"] = spec.topo.node(fl.to).name;
    if (const FlowTx* tx = states.tx[i]) SenderKeys(*tx, spec, &j);
    if (const FlowRx* rx = states.rx[i]) {
      ReceiverKeys(*rx, &j);
      f.bins[i] = rx->bin_bytes;
      f.bin_from[i] = rx->bin0;
    }
    if (fl.bytes != 0) {
      // Known where the side that completes it runs: the sender for RC
      // (its last ACK), else the receiver (its last frame).
      f.fct[i] = FlowFct(fab, states, i);
      f.fct_here[i] = spec.Local(fl.rc ? fl.from : fl.to);
    }
  }
  for (const Host& h : fab.hosts()) f.hosts[h.name] = HostJson(*h.model, f.end_ns);
  auto global = [&](size_t i) {
    return plan.global_index.empty() ? static_cast<uint32_t>(i) : plan.global_index[i];
  };
  f.switch_here.assign(std::max(plan.all_switches.size(), fab.switches().size()), 0);
  for (size_t i = 0; i < fab.switches().size(); i++) {
    f.switch_here[global(i)] = 1;
    const sw::Switch& s = *fab.switches()[i].sw;
    const stages::PfcwdEventLog* log = stages::PfcwdLogOf(s);
    for (const stages::PfcwdEvent& e :
         log ? log->Snapshot(nullptr) : std::vector<stages::PfcwdEvent>{}) {
      f.pfcwd.emplace_back(global(i), json{{"switch", s.name},
                                           {"kind", e.restored ? "restored" : "storm"},
                                           {"port", s.ports[e.port].name},
                                           {"prio", e.prio},
                                           {"t_ns", e.t_ns},
                                           {"since_ns", e.since_ns},
                                           {"drops", e.drops}});
    }
  }
  f.events = run.timeline().log();
  f.dcfit_events = run.dcfit().events();
  f.rows = run.recorder().rows();
  for (PortSample& r : f.rows) r.sw = static_cast<uint16_t>(global(r.sw));
  f.drop_rows = run.recorder().drops();
  f.exact = run.recorder().exact();
  f.qlen = run.qlen().Rows();
  for (QlenMonitor::Row& r : f.qlen) r.sw = global(r.sw);
  const rte_mempool* mp = fab.dp().pool;
  f.pool_mbufs = mp->populated_size;
  f.pool_in_use = mp->populated_size - rte_mempool_avail_count(mp);
  f.pool_share = fab.pool_share();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  f.peak_rss_kb = {static_cast<uint64_t>(ru.ru_maxrss)};
  return f;
}

uint64_t LosslessDrops(const RunFacts& f) {
  uint64_t total = 0;
  for (int r = 0; r < kNumDropReasons; r++)
    if (DropIsLosslessLoss(static_cast<DropReason>(r))) total += f.drops[1][r];
  return total;
}

uint64_t DropsOf(const RunFacts& f, DropReason r) {
  return f.drops[0][static_cast<size_t>(r)] + f.drops[1][static_cast<size_t>(r)];
}

std::string PackFacts(const RunFacts& f) {
  json j;
  j["end_ns"] = f.end_ns;
  j["rounds"] = f.rounds;
  j["drops"] = f.drops;
  j["link_down"] = f.link_down;
  j["rank_nombuf"] = f.rank_nombuf;
  j["ring_full"] = f.ring_full;
  j["flows"] = f.flows;
  j["bins"] = f.bins;
  j["bin_from"] = f.bin_from;
  json fct = json::array();
  for (const Fct& c : f.fct)
    fct.push_back({c.completed, c.frames, c.fct_ns, c.ideal_ns, c.slowdown});
  j["fct"] = fct;
  j["fct_here"] = f.fct_here;
  j["hosts"] = f.hosts;
  j["pfcwd"] = f.pfcwd;
  j["events"] = f.events;
  j["dcfit_events"] = f.dcfit_events;
  std::vector<uint64_t> rows;
  rows.reserve(f.rows.size() * 9);
  for (const PortSample& r : f.rows)
    rows.insert(rows.end(), {r.t_ns, r.sw, r.port, r.prio, r.paused, r.pausing, r.buffer_bytes,
                             r.tx_bytes, r.span_ns});
  j["rows"] = rows;
  std::vector<uint64_t> drops;
  for (const DropSample& d : f.drop_rows)
    drops.insert(drops.end(), {d.t_ns, d.lossless, d.lossy, d.link_down});
  j["drop_rows"] = drops;
  j["exact"] = f.exact;
  std::vector<uint64_t> qlen;
  for (const QlenMonitor::Row& r : f.qlen) qlen.insert(qlen.end(), {r.sw, r.port, r.kb, r.samples});
  j["qlen"] = qlen;
  j["pool_mbufs"] = f.pool_mbufs;
  j["pool_in_use"] = f.pool_in_use;
  j["pool_share"] = f.pool_share;
  j["peak_rss_kb"] = f.peak_rss_kb;
  j["switch_here"] = f.switch_here;
  const std::vector<uint8_t> b = json::to_cbor(j);
  return std::string(b.begin(), b.end());
}

RunFacts UnpackFacts(const std::string& bytes) {
  const json j = json::from_cbor(bytes);
  RunFacts f;
  f.end_ns = j["end_ns"];
  f.rounds = j["rounds"];
  f.drops = j["drops"];
  f.link_down = j["link_down"];
  f.rank_nombuf = j["rank_nombuf"];
  f.ring_full = j["ring_full"];
  f.flows = j["flows"].get<std::vector<json>>();
  f.bins = j["bins"];
  f.bin_from = j["bin_from"].get<std::vector<uint64_t>>();
  for (const json& c : j["fct"])
    f.fct.push_back({c[0].get<bool>(), c[1].get<uint64_t>(), c[2].get<uint64_t>(),
                     c[3].get<uint64_t>(), c[4].get<double>()});
  f.fct_here = j["fct_here"].get<std::vector<uint8_t>>();
  f.hosts = j["hosts"];
  f.pfcwd = j["pfcwd"].get<std::vector<std::pair<uint32_t, json>>>();
  f.events = j["events"];
  f.dcfit_events = j["dcfit_events"];
  const std::vector<uint64_t> rows = j["rows"];
  for (size_t i = 0; i + 9 <= rows.size(); i += 9)
    f.rows.push_back({rows[i], static_cast<uint16_t>(rows[i + 1]),
                      static_cast<uint16_t>(rows[i + 2]), static_cast<uint8_t>(rows[i + 3]),
                      static_cast<uint8_t>(rows[i + 4]), static_cast<uint8_t>(rows[i + 5]),
                      rows[i + 6], rows[i + 7], rows[i + 8]});
  const std::vector<uint64_t> drops = j["drop_rows"];
  for (size_t i = 0; i + 4 <= drops.size(); i += 4)
    f.drop_rows.push_back({drops[i], drops[i + 1], drops[i + 2], drops[i + 3]});
  f.exact = j["exact"];
  const std::vector<uint64_t> qlen = j["qlen"];
  for (size_t i = 0; i + 4 <= qlen.size(); i += 4)
    f.qlen.push_back({static_cast<uint32_t>(qlen[i]), static_cast<uint16_t>(qlen[i + 1]),
                      static_cast<uint32_t>(qlen[i + 2]), qlen[i + 3]});
  f.pool_mbufs = j["pool_mbufs"];
  f.pool_in_use = j["pool_in_use"];
  f.pool_share = j["pool_share"];
  f.peak_rss_kb = j["peak_rss_kb"].get<std::vector<uint64_t>>();
  f.switch_here = j["switch_here"].get<std::vector<uint8_t>>();
  return f;
}

void MergeFacts(RunFacts* into, RunFacts&& from) {
  RunFacts& a = *into;
  a.rounds += from.rounds;
  a.pool_mbufs += from.pool_mbufs;
  a.pool_in_use += from.pool_in_use;
  a.pool_share += from.pool_share;
  a.peak_rss_kb.insert(a.peak_rss_kb.end(), from.peak_rss_kb.begin(), from.peak_rss_kb.end());
  for (size_t c = 0; c < 2; c++)
    for (size_t r = 0; r < a.drops[c].size(); r++) a.drops[c][r] += from.drops[c][r];
  a.link_down += from.link_down;
  a.rank_nombuf += from.rank_nombuf;
  a.ring_full += from.ring_full;
  for (size_t i = 0; i < a.flows.size() && i < from.flows.size(); i++) {
    a.flows[i].update(from.flows[i]);
    if (!from.bins[i].empty()) {
      a.bins[i] = std::move(from.bins[i]);
      a.bin_from[i] = from.bin_from[i];
    }
    if (from.fct_here[i] && !a.fct_here[i]) {
      a.fct[i] = from.fct[i];
      a.fct_here[i] = 1;
    }
  }
  a.hosts.update(from.hosts);
  a.pfcwd.insert(a.pfcwd.end(), from.pfcwd.begin(), from.pfcwd.end());
  // The same events applied at the same times on every rank: line i is
  // the one of the rank that applied it.
  for (size_t i = 0; i < a.events.size() && i < from.events.size(); i++)
    if (a.events[i].empty()) a.events[i] = std::move(from.events[i]);
  a.rows.insert(a.rows.end(), from.rows.begin(), from.rows.end());
  a.qlen.insert(a.qlen.end(), from.qlen.begin(), from.qlen.end());
  // Every rank samples at the same times.
  for (size_t i = 0; i < a.drop_rows.size() && i < from.drop_rows.size(); i++) {
    a.drop_rows[i].lossless += from.drop_rows[i].lossless;
    a.drop_rows[i].lossy += from.drop_rows[i].lossy;
    a.drop_rows[i].link_down += from.drop_rows[i].link_down;
  }
  a.switch_here.resize(std::max(a.switch_here.size(), from.switch_here.size()), 0);
  for (size_t i = 0; i < from.switch_here.size(); i++) a.switch_here[i] |= from.switch_here[i];
}

void SettleFacts(RunFacts* f) {
  for (json& j : f->flows)
    if (!j.contains("rx_frames")) j["rx_frames"] = 0;  // nothing arrived
  std::stable_sort(f->pfcwd.begin(), f->pfcwd.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::stable_sort(f->rows.begin(), f->rows.end(), [](const PortSample& a, const PortSample& b) {
    return a.t_ns != b.t_ns ? a.t_ns < b.t_ns : a.sw < b.sw;
  });
  std::stable_sort(
      f->qlen.begin(), f->qlen.end(),
      [](const QlenMonitor::Row& a, const QlenMonitor::Row& b) { return a.sw < b.sw; });
  std::erase_if(f->events, [](const std::string& s) { return s.empty(); });
}

}  // namespace pfc::emulator
