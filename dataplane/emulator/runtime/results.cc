// SPDX-License-Identifier: BSD-3-Clause
// Fabric: what a run leaves behind (results.json, flows.csv, timing.json
// and the per-port and per-bin drop CSVs through the recorder), and the drop totals the
// verdict reads.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/pfcswitch/stats_report.h"
#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/pfcwd_stage.h"

namespace pfc::emulator {
namespace fs = std::filesystem;
using nlohmann::json;

uint64_t Fabric::LosslessDrops() const {
  uint64_t total = 0;
  ForEachDrop([&](bool lossless, DropReason r, uint64_t n) {
    // Not a routing loop's own victims, nor the drops DCFIT and the storm
    // watchdog chose (reported apart): see PFC_DROP_REASONS.
    if (lossless && DropIsLosslessLoss(r)) total += n;
  });
  return total;
}

uint64_t Fabric::DropsOf(DropReason r) const {
  uint64_t total = 0;
  ForEachDrop([&](bool, DropReason x, uint64_t n) { total += x == r ? n : 0; });
  return total;
}

const emulator::FlowRx* Fabric::RxFlow(size_t i) const {
  for (const Host& h : hosts_)
    if (const emulator::FlowRx* x = h.model->rx_flow(static_cast<uint32_t>(i + 1))) return x;
  return nullptr;
}

const emulator::FlowTx* Fabric::TxFlow(size_t i) const {
  for (const Host& h : hosts_)
    for (const emulator::FlowTx& tx : h.model->tx_flows())
      if (tx.spec.id == i + 1) return &tx;
  return nullptr;
}

emulator::Fct Fabric::FlowFct(size_t i) const {
  const emulator::FlowSpecFile& fl = spec_.flows[i];
  const emulator::HostPlan* hp = plan_.host(fl.from);
  const uint64_t link = hp != nullptr ? hp->rate_bps : spec_.link_rate_bps;
  const uint64_t send = fl.rate_bps != 0 ? std::min(fl.rate_bps, link) : link;
  if (fl.rc) {
    const emulator::FlowTx* tx = TxFlow(i);
    return tx != nullptr && tx->rc ? emulator::FctOfRc(*tx->rc, fl.start_ns, send)
                                   : emulator::Fct{};
  }
  return emulator::FctOf(fl.bytes, fl.frame_len, fl.start_ns, send, RxFlow(i));
}

// fct.csv: one line per sized flow, the simulator's fct.txt in columns;
// no file when no flow is sized.
bool Fabric::WriteFctCsv(const std::string& path, std::string* err) const {
  bool any = false;
  for (const emulator::FlowSpecFile& fl : spec_.flows) any |= fl.bytes != 0;
  if (!any) return true;
  std::ofstream f(path);
  f << "flow,from,to,bytes,start_ns,completed,fct_ns,ideal_ns,slowdown\n";
  for (size_t i = 0; i < spec_.flows.size(); i++) {
    const emulator::FlowSpecFile& fl = spec_.flows[i];
    if (fl.bytes == 0) continue;
    const emulator::Fct c = FlowFct(i);
    char line[320];
    std::snprintf(line, sizeof line, "%s,%s,%s,%lu,%lu,%d,%lu,%lu,%.4f\n", fl.name.c_str(),
                  spec_.topo.node(fl.from).name.c_str(), spec_.topo.node(fl.to).name.c_str(),
                  fl.bytes, fl.start_ns, c.completed ? 1 : 0, c.fct_ns, c.ideal_ns, c.slowdown);
    f << line;
  }
  if (!f) {
    *err = path + ": cannot write";
    return false;
  }
  return true;
}

namespace {

// v.dump(1) as it reads `depth` levels down in a document dumped whole
// with indent 1: every line after the first indented `depth` more (a
// string's newlines are escaped, so each line break is the layout's).
void DumpAt(const json& v, int depth, std::ostream& out) {
  const std::string text = v.dump(1);
  const std::string pad(static_cast<size_t>(depth), ' ');
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    out << std::string_view(text).substr(from, nl + 1 - from) << pad;
  out << std::string_view(text).substr(from);
}

}  // namespace

json Fabric::SwitchResults(const SwitchRun& s) const {
  json j = pfcswitch::StatsJson(*s.sw);
  // How far the pool grew depends on which partition's thread found it
  // empty first (--threads): timing.json has it, with the wall time.
  j.erase("pool_populated");
  // What the detector did with the messages (dcfit/detector.h), for
  // telling why a loop was or was not found.
  if (const stages::SwitchDcfit* d = stages::DcfitOf(*s.sw)) {
    const dcfit::DetectorCounters& c = d->det.counters();
    j["dcfit_detector"] = {{"rx", c.rx},
                           {"tx", c.tx},
                           {"repeat", c.repeat},
                           {"outranked", c.outranked},
                           {"no_delta", c.no_delta},
                           {"not_paused", c.not_paused},
                           {"stale", c.stale},
                           {"bad", c.bad},
                           {"temporal_dropped", c.temporal_dropped}};
  }
  return j;
}

void Fabric::WriteResultsJson(const json& r, std::ostream& out) const {
  // The bytes r.dump(1) would give with "switches" in it, written a switch
  // at a time: the whole document of a large fabric's counters as one
  // JSON tree and one string would take as much memory again as the
  // fabric (660 MB more at k=16).
  std::map<std::string, const SwitchRun*> by_name;  // JSON objects sort their keys
  for (const SwitchRun& s : switches_) by_name.emplace(s.sw->name, &s);
  std::vector<std::string> keys;
  for (const auto& kv : r.items()) keys.push_back(kv.key());
  keys.push_back("switches");
  std::sort(keys.begin(), keys.end());
  out << "{";
  for (size_t k = 0; k < keys.size(); k++) {
    out << (k == 0 ? "\n " : ",\n ") << json(keys[k]).dump() << ": ";
    if (keys[k] != "switches") {
      DumpAt(r[keys[k]], 1, out);
      continue;
    }
    if (by_name.empty()) {
      out << "{}";
      continue;
    }
    bool first = true;
    for (const auto& [name, s] : by_name) {
      out << (first ? "{\n  " : ",\n  ") << json(name).dump() << ": ";
      DumpAt(SwitchResults(*s), 2, out);
      first = false;
    }
    out << "\n }";
  }
  out << "\n}\n";
}

bool Fabric::WriteResults(double wall_seconds, double startup_seconds, const json& verdict,
                          std::string* err) const {
  std::error_code ec;
  fs::create_directories(spec_.out_dir, ec);
  json r;
  r["fabric"] = spec_.path;
  r["clock"] = spec_.clock == emulator::ClockKind::kVirtual ? "virtual" : "real";
  r["seed"] = spec_.seed;
  r["duration_ns"] = spec_.duration_ns;
  r["end_ns"] = now_;
  r["switch_rounds"] = rounds_;
  r["lossless_drops"] = LosslessDrops();
  json flows = json::array();
  for (size_t i = 0; i < spec_.flows.size(); i++) {
    const emulator::FlowSpecFile& fl = spec_.flows[i];
    json j;
    j["name"] = fl.name;
    j["from"] = spec_.topo.node(fl.from).name;
    j["to"] = spec_.topo.node(fl.to).name;
    if (const emulator::FlowTx* t = TxFlow(i)) {  // the sender's side
      const emulator::FlowTx& tx = *t;
      j["tx_frames"] = tx.tx_frames;
      j["tx_bytes"] = tx.tx_bytes;
      j["cnps_received"] = tx.cnp_rx;
      if (tx.rp) {
        const emulator::DcqcnCounters& c = tx.rp->counters();
        j["dcqcn"] = {{"rate_bps_end", tx.rp->rate_bps()},
                      {"cuts", c.cuts},
                      {"fast_recovery", c.recoveries},
                      {"additive", c.ai},
                      {"hyper", c.hai}};
        if (spec_.dcqcn.byte_counter_bytes != 0) j["dcqcn"]["byte_counter"] = c.byte_counter;
      }
      if (tx.rc) {
        const emulator::RcRequesterCounters& c = tx.rc->counters();
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
    if (const emulator::FlowRx* rx = RxFlow(i)) {  // the receiver's
      j["rx_frames"] = rx->frames;
      j["rx_bytes"] = rx->bytes;
      j["lost"] = rx->lost;
      j["reordered"] = rx->reordered;
      j["ce_frames"] = rx->ce;
      j["cnps_sent"] = rx->cnp_tx;
      j["mean_delay_ns"] = rx->frames ? rx->sum_delay_ns / rx->frames : 0;
      if (rx->rc) {
        const emulator::RcResponderCounters& c = rx->rc->counters();
        j["responder"] = {{"accepted", c.accepted},
                          {"duplicates", c.duplicates},
                          {"out_of_sequence", c.out_of_sequence},
                          {"acks", c.acks},
                          {"naks", c.naks},
                          {"messages", c.messages}};
      }
    } else {
      j["rx_frames"] = 0;
    }
    if (fl.bytes != 0) {
      const emulator::Fct f = FlowFct(i);
      j["fct"] = {{"completed", f.completed},
                  {"frames", f.frames},
                  {"fct_ns", f.fct_ns},
                  {"ideal_ns", f.ideal_ns},
                  {"slowdown", f.slowdown}};
    }
    flows.push_back(j);
  }
  r["flows"] = flows;
  r["ttl_expired_drops"] = DropsOf(DropReason::kTtlExpired);
  json hosts = json::object();
  for (const Host& h : hosts_) {
    const emulator::HostCounters& c = h.model->counters();
    hosts[h.name] = {{"tx_frames", c.tx_frames},
                     {"rx_frames", c.rx_frames},
                     {"pfc_rx", c.pfc_rx},
                     {"pfc_tx", c.pfc_tx},
                     {"pfc_ignored", c.pfc_ignored},
                     {"cnp_tx", c.cnp_tx},
                     {"cnp_rx", c.cnp_rx},
                     {"cnp_unknown", c.cnp_unknown},
                     {"rx_malformed", c.rx_malformed}};
    if (c.ack_tx + c.nak_tx + c.ack_rx + c.nak_rx + c.qp_unknown != 0) {
      hosts[h.name].update({{"ack_tx", c.ack_tx},
                            {"nak_tx", c.nak_tx},
                            {"ack_rx", c.ack_rx},
                            {"nak_rx", c.nak_rx},
                            {"qp_unknown", c.qp_unknown}});
    }
  }
  r["hosts"] = hosts;
  r["events"] = event_log_;
  // Virtual clock: with each loop and its detection time (dcfit_report.h).
  r["dcfit_events"] = dcfit_.events();
  r["dcfit_break_drops"] = DropsOf(DropReason::kDcfitBreak);
  r["dcfit_host_lossy_drops"] = DropsOf(DropReason::kDcfitHostLossy);
  r["dcfit_rate_limit_drops"] = DropsOf(DropReason::kDcfitRateLimit);
  // Pause-storm watchdog events of every switch (stages/pfcwd_state.h),
  // in emulated time.
  json wd = json::array();
  for (const SwitchRun& s : switches_) {
    const stages::PfcwdEventLog* log = stages::PfcwdLogOf(*s.sw);
    for (const stages::PfcwdEvent& e :
         log ? log->Snapshot(nullptr) : std::vector<stages::PfcwdEvent>{}) {
      wd.push_back({{"switch", s.sw->name},
                    {"kind", e.restored ? "restored" : "storm"},
                    {"port", s.sw->ports[e.port].name},
                    {"prio", e.prio},
                    {"t_ns", e.t_ns},
                    {"since_ns", e.since_ns},
                    {"drops", e.drops}});
    }
  }
  r["pfcwd_events"] = wd;
  r["pfcwd_storm_drops"] = DropsOf(DropReason::kPfcwdStorm);
  r["verdict"] = verdict;
  const fs::path dir(spec_.out_dir);
  {
    std::ofstream out(dir / "results.json");
    WriteResultsJson(r, out);
  }
  // Flow throughput per bin at the receiver.
  std::ofstream fcsv(dir / "flows.csv");
  fcsv << "t_ms,flow,gbps\n";
  const uint64_t bins = (spec_.duration_ns + spec_.bin_ns - 1) / spec_.bin_ns;
  for (size_t i = 0; i < spec_.flows.size(); i++) {
    const emulator::FlowRx* rx = RxFlow(i);
    for (uint64_t b = 0; b < bins; b++) {
      const uint64_t bytes = rx != nullptr && b < rx->bin_bytes.size() ? rx->bin_bytes[b] : 0;
      char line[160];
      std::snprintf(line, sizeof line, "%.6f,%s,%.6f\n", (b + 1) * spec_.bin_ns / 1e6,
                    spec_.flows[i].name.c_str(), bytes * 8.0 / spec_.bin_ns);
      fcsv << line;
    }
  }
  if (!rec_.WriteCsv((dir / "ports.csv").string(), err)) return false;
  if (!rec_.WriteDropsCsv((dir / "drops.csv").string(), err)) return false;
  if (!WriteFctCsv((dir / "fct.csv").string(), err)) return false;
  // Wall-clock facts apart, so results.json stays byte-identical across runs.
  std::ofstream(dir / "timing.json")
      << json{{"wall_seconds", wall_seconds},
              {"startup_seconds", startup_seconds},
              {"virtual_over_real", wall_seconds > 0 ? now_ / 1e9 / wall_seconds : 0},
              {"pool_mbufs_populated", dp_->pool->populated_size}}
             .dump()
      << "\n";
  if (!fcsv) {
    *err = (dir / "flows.csv").string() + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace pfc::emulator
