// SPDX-License-Identifier: BSD-3-Clause
// What a run leaves behind (results.h).
#include "dataplane/emulator/runtime/results.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/runtime/fabric_totals.h"
#include "dataplane/pfcswitch/stats_report.h"
#include "dataplane/stages/pfcwd_stage.h"

namespace pfc::emulator {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// fct.csv: one line per sized flow, the simulator's fct.txt in columns;
// no file when no flow is sized.
bool WriteFctCsv(const Fabric& fab, const std::string& path, std::string* err) {
  const FabricSpec& spec = fab.spec();
  bool any = false;
  for (const FlowSpecFile& fl : spec.flows) any |= fl.bytes != 0;
  if (!any) return true;
  std::ofstream f(path);
  f << "flow,from,to,bytes,start_ns,completed,fct_ns,ideal_ns,slowdown\n";
  for (size_t i = 0; i < spec.flows.size(); i++) {
    const FlowSpecFile& fl = spec.flows[i];
    if (fl.bytes == 0) continue;
    const Fct c = FlowFct(fab, i);
    char line[320];
    std::snprintf(line, sizeof line, "%s,%s,%s,%lu,%lu,%d,%lu,%lu,%.4f\n", fl.name.c_str(),
                  spec.topo.node(fl.from).name.c_str(), spec.topo.node(fl.to).name.c_str(),
                  fl.bytes, fl.start_ns, c.completed ? 1 : 0, c.fct_ns, c.ideal_ns, c.slowdown);
    f << line;
  }
  if (!f) {
    *err = path + ": cannot write";
    return false;
  }
  return true;
}

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

// results.json's entry for one switch: its counters (StatsJson) and its
// mechanisms' own (MechanismState::ReportCounters: DCFIT's detector's).
json SwitchResults(const SwitchRun& s) {
  json j = pfcswitch::StatsJson(*s.sw);
  // How far the pool grew depends on which partition's thread found it
  // empty first (--threads): timing.json has it, with the wall time.
  j.erase("pool_populated");
  sw::MechanismState::Counters kv;
  for (const auto& m : s.sw->mech) {
    if (m == nullptr) continue;
    kv.clear();
    if (const char* section = m->ReportCounters(&kv)) {
      json& o = j[section] = json::object();
      for (const auto& [k, v] : kv) o[k] = v;
    }
  }
  return j;
}

// results.json: r (every key but "switches") and the switches, written as
// r.dump(1) would with them in it, one switch's JSON at a time.
void WriteResultsJson(const Fabric& fab, const json& r, std::ostream& out) {
  // The bytes r.dump(1) would give with "switches" in it, written a switch
  // at a time: the whole document of a large fabric's counters as one
  // JSON tree and one string would take as much memory again as the
  // fabric (660 MB more at k=16).
  std::map<std::string, const SwitchRun*> by_name;  // JSON objects sort their keys
  for (const SwitchRun& s : fab.switches()) by_name.emplace(s.sw->name, &s);
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

}  // namespace

bool WriteResults(const Fabric& fab, const Clock& run, double wall_seconds, double startup_seconds,
                  const json& verdict, std::string* err) {
  const FabricSpec& spec = fab.spec();
  std::error_code ec;
  fs::create_directories(spec.out_dir, ec);
  json r;
  r["fabric"] = spec.path;
  r["clock"] = spec.clock == ClockKind::kVirtual ? "virtual" : "real";
  r["seed"] = spec.seed;
  r["duration_ns"] = spec.duration_ns;
  r["end_ns"] = run.now_ns();
  r["switch_rounds"] = run.rounds();
  r["lossless_drops"] = LosslessDrops(fab);
  json flows = json::array();
  for (size_t i = 0; i < spec.flows.size(); i++) {
    const FlowSpecFile& fl = spec.flows[i];
    json j;
    j["name"] = fl.name;
    j["from"] = spec.topo.node(fl.from).name;
    j["to"] = spec.topo.node(fl.to).name;
    if (const FlowTx* t = TxFlow(fab, i)) {  // the sender's side
      const FlowTx& tx = *t;
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
    if (const FlowRx* rx = RxFlow(fab, i)) {  // the receiver's
      j["rx_frames"] = rx->frames;
      j["rx_bytes"] = rx->bytes;
      j["lost"] = rx->lost;
      j["reordered"] = rx->reordered;
      j["ce_frames"] = rx->ce;
      j["cnps_sent"] = rx->cnp_tx;
      j["mean_delay_ns"] = rx->frames ? rx->sum_delay_ns / rx->frames : 0;
      if (rx->rc) {
        const RcResponderCounters& c = rx->rc->counters();
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
      const Fct f = FlowFct(fab, i);
      j["fct"] = {{"completed", f.completed},
                  {"frames", f.frames},
                  {"fct_ns", f.fct_ns},
                  {"ideal_ns", f.ideal_ns},
                  {"slowdown", f.slowdown}};
    }
    flows.push_back(j);
  }
  r["flows"] = flows;
  r["ttl_expired_drops"] = DropsOf(fab, DropReason::kTtlExpired);
  json hosts = json::object();
  for (const Host& h : fab.hosts()) {
    const HostCounters& c = h.model->counters();
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
  r["events"] = run.timeline().log();
  // Virtual clock: with each loop and its detection time (dcfit_report.h).
  r["dcfit_events"] = run.dcfit().events();
  r["dcfit_break_drops"] = DropsOf(fab, DropReason::kDcfitBreak);
  r["dcfit_host_lossy_drops"] = DropsOf(fab, DropReason::kDcfitHostLossy);
  r["dcfit_rate_limit_drops"] = DropsOf(fab, DropReason::kDcfitRateLimit);
  // Pause-storm watchdog events of every switch (stages/pfcwd_state.h),
  // in emulated time.
  json wd = json::array();
  for (const SwitchRun& s : fab.switches()) {
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
  r["pfcwd_storm_drops"] = DropsOf(fab, DropReason::kPfcwdStorm);
  r["verdict"] = verdict;
  const fs::path dir(spec.out_dir);
  {
    std::ofstream out(dir / "results.json");
    WriteResultsJson(fab, r, out);
  }
  // Flow throughput per bin at the receiver.
  std::ofstream fcsv(dir / "flows.csv");
  fcsv << "t_ms,flow,gbps\n";
  const uint64_t bins = (spec.duration_ns + spec.bin_ns - 1) / spec.bin_ns;
  for (size_t i = 0; i < spec.flows.size(); i++) {
    const FlowRx* rx = RxFlow(fab, i);
    for (uint64_t b = 0; b < bins; b++) {
      const uint64_t bytes = rx != nullptr && b < rx->bin_bytes.size() ? rx->bin_bytes[b] : 0;
      char line[160];
      std::snprintf(line, sizeof line, "%.6f,%s,%.6f\n", (b + 1) * spec.bin_ns / 1e6,
                    spec.flows[i].name.c_str(), bytes * 8.0 / spec.bin_ns);
      fcsv << line;
    }
  }
  if (!run.recorder().WriteCsv((dir / "ports.csv").string(), err)) return false;
  if (!run.recorder().WriteDropsCsv((dir / "drops.csv").string(), err)) return false;
  if (!WriteFctCsv(fab, (dir / "fct.csv").string(), err)) return false;
  // Wall-clock facts apart, so results.json stays byte-identical across runs.
  std::ofstream(dir / "timing.json")
      << json{{"wall_seconds", wall_seconds},
              {"startup_seconds", startup_seconds},
              {"virtual_over_real", wall_seconds > 0 ? run.now_ns() / 1e9 / wall_seconds : 0},
              {"pool_mbufs_populated", fab.dp().pool->populated_size}}
             .dump()
      << "\n";
  if (!fcsv) {
    *err = (dir / "flows.csv").string() + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace pfc::emulator
