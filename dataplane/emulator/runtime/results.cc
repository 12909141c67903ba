// SPDX-License-Identifier: BSD-3-Clause
// What a run leaves behind (results.h).
#include "dataplane/emulator/runtime/results.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "dataplane/emulator/model/series_csv.h"
#include "dataplane/pfcswitch/stats_report.h"

namespace pfc::emulator {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// fct.csv: one line per sized flow, the simulator's fct.txt in columns;
// no file when no flow is sized.
bool WriteFctCsv(const FabricSpec& spec, const RunFacts& facts, const std::string& path,
                 std::string* err) {
  bool any = false;
  for (const FlowSpecFile& fl : spec.flows) any |= fl.bytes != 0;
  if (!any) return true;
  std::ofstream f(path);
  f << "flow,from,to,bytes,start_ns,completed,fct_ns,ideal_ns,slowdown\n";
  for (size_t i = 0; i < spec.flows.size(); i++) {
    const FlowSpecFile& fl = spec.flows[i];
    if (fl.bytes == 0) continue;
    const Fct& c = facts.fct[i];
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

// ports.csv: t_ms,switch,port,prio,paused,pausing,buffer_bytes,tx_gbps
bool WritePortsCsv(const RunFacts& facts, const std::vector<FabricPlan::SwitchNames>& all,
                   const std::string& path, std::string* err) {
  std::ofstream f(path);
  f << "t_ms,switch,port,prio,paused,pausing,buffer_bytes,tx_gbps\n";
  // By hand, as WriteSeriesCsv writes flows.csv, rather than snprintf (the
  // same text: AppendFixed6 is %.6f): a fabric's run has hundreds of
  // thousands of rows (640,000 on the HPCC simulator's fat-tree).
  std::string buf;
  buf.reserve(kCsvChunk);
  auto put_u = [&buf](uint64_t v) {
    char d[24];
    buf.append(d, std::to_chars(d, d + sizeof d, v).ptr);
  };
  for (const PortSample& r : facts.rows) {
    const FabricPlan::SwitchNames& sw = all[r.sw];
    AppendFixed6(r.t_ns / 1e6, &buf);
    buf += ',';
    buf += sw.name;
    buf += ',';
    buf += sw.ports[r.port];
    buf += ',';
    put_u(r.prio);
    buf += ',';
    put_u(r.paused);
    buf += ',';
    put_u(r.pausing);
    buf += ',';
    put_u(r.buffer_bytes);
    buf += ',';
    AppendFixed6(r.tx_bytes * 8.0 / r.span_ns, &buf);
    buf += '\n';
    WriteChunk(&buf, f);
  }
  WriteChunk(&buf, f, true);
  if (!f) {
    *err = path + ": cannot write";
    return false;
  }
  return true;
}

// drops.csv: t_ms,lossless,lossy,link_down (link_down empty on the real clock)
bool WriteDropsCsv(const RunFacts& facts, const std::string& path, std::string* err) {
  std::ofstream f(path);
  f << "t_ms,lossless,lossy,link_down\n";
  char line[128];
  for (const DropSample& d : facts.drop_rows) {
    std::snprintf(line, sizeof line, "%.6f,%llu,%llu,", d.t_ns / 1e6,
                  static_cast<unsigned long long>(d.lossless),
                  static_cast<unsigned long long>(d.lossy));
    f << line;
    if (facts.exact) f << d.link_down;
    f << "\n";
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

// results.json: r (every key but "switches") and the switches, written as
// r.dump(1) would with them in it, one switch's JSON at a time.
void WriteResultsJson(const json& r, const SwitchEntries& sws, std::ostream& out) {
  // The bytes r.dump(1) would give with "switches" in it, written a switch
  // at a time: the whole document of a large fabric's counters as one
  // JSON tree and one string would take as much memory again as the
  // fabric (660 MB more at k=16).
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
    if (sws.names.empty()) {
      out << "{}";
      continue;
    }
    for (size_t i = 0; i < sws.names.size(); i++) {
      out << (i == 0 ? "{\n  " : ",\n  ") << json(sws.names[i]).dump() << ": ";
      DumpAt(sws.entry(i), 2, out);
    }
    out << "\n }";
  }
  out << "\n}\n";
}

// qlen.csv (monitor.qlen): switch,port,kb,samples, the non-zero buckets.
bool WriteQlenCsv(const RunFacts& facts, const std::vector<FabricPlan::SwitchNames>& all,
                  const std::string& path, std::string* err) {
  std::ofstream f(path);
  f << "switch,port,kb,samples\n";
  for (const QlenMonitor::Row& r : facts.qlen)
    f << all[r.sw].name << ',' << all[r.sw].ports[r.port] << ',' << r.kb << ',' << r.samples
      << '\n';
  if (!f) {
    *err = path + ": cannot write";
    return false;
  }
  return true;
}

// timing.json's "threads" (null on one thread). `balance`: the threads'
// mean time in windows over the slowest's, window by window (1: every
// window as long on each thread; the wall time's floor is the critical
// seconds plus the boundaries).
json ThreadsJson(const WindowTimes& t) {
  if (t.busy_seconds.empty()) return nullptr;
  double busy = 0;
  for (const double b : t.busy_seconds) busy += b;
  const double mean = busy / static_cast<double>(t.busy_seconds.size());
  return json{{"busy_seconds", t.busy_seconds},
              {"wait_seconds", t.wait_seconds},
              {"boundary_seconds", t.boundary_seconds},
              {"critical_seconds", t.critical_seconds},
              {"windows", t.windows},
              {"balance", t.critical_seconds > 0 ? mean / t.critical_seconds : 1.0}};
}

}  // namespace

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

std::vector<const SwitchRun*> SwitchesByName(const Fabric& fab) {
  std::vector<const SwitchRun*> out;
  for (const SwitchRun& s : fab.switches()) out.push_back(&s);
  // JSON objects sort their keys.
  std::sort(out.begin(), out.end(),
            [](const SwitchRun* a, const SwitchRun* b) { return a->sw->name < b->sw->name; });
  return out;
}

SwitchEntries LocalSwitchEntries(const Fabric& fab) {
  SwitchEntries e;
  std::vector<const SwitchRun*> by_name = SwitchesByName(fab);
  for (const SwitchRun* s : by_name) e.names.push_back(s->sw->name);
  e.entry = [by_name](size_t i) { return SwitchResults(*by_name[i]); };
  return e;
}

bool WriteResults(const FabricSpec& spec, const std::vector<FabricPlan::SwitchNames>& all,
                  RunFacts&& facts, const SwitchEntries& sws, const RunTiming& timing,
                  const json& verdict, std::string* err) {
  std::error_code ec;
  fs::create_directories(spec.out_dir, ec);
  json r;
  r["fabric"] = spec.path;
  r["clock"] = spec.clock == ClockKind::kVirtual ? "virtual" : "real";
  r["seed"] = spec.seed;
  r["duration_ns"] = spec.duration_ns;
  r["end_ns"] = facts.end_ns;
  if (!facts.interrupted.empty()) r["interrupted"] = facts.interrupted;
  r["switch_rounds"] = facts.rounds;
  r["lossless_drops"] = LosslessDrops(facts);
  json flows = json::array();
  for (size_t i = 0; i < spec.flows.size(); i++) {
    json j = std::move(facts.flows[i]);
    if (spec.flows[i].bytes != 0) {
      const Fct& f = facts.fct[i];
      j["fct"] = {{"completed", f.completed},
                  {"frames", f.frames},
                  {"fct_ns", f.fct_ns},
                  {"ideal_ns", f.ideal_ns},
                  {"slowdown", f.slowdown}};
    }
    flows.push_back(std::move(j));
  }
  r["flows"] = std::move(flows);
  r["ttl_expired_drops"] = DropsOf(facts, DropReason::kTtlExpired);
  r["hosts"] = std::move(facts.hosts);
  r["events"] = facts.events;
  // Virtual clock: with each loop and its detection time (dcfit_report.h).
  r["dcfit_events"] = facts.dcfit_events;
  r["dcfit_break_drops"] = DropsOf(facts, DropReason::kDcfitBreak);
  r["dcfit_host_lossy_drops"] = DropsOf(facts, DropReason::kDcfitHostLossy);
  r["dcfit_rate_limit_drops"] = DropsOf(facts, DropReason::kDcfitRateLimit);
  // Pause-storm watchdog events of every switch (stages/pfcwd_state.h),
  // in emulated time.
  json wd = json::array();
  for (const auto& [sw, e] : facts.pfcwd) wd.push_back(e);
  r["pfcwd_events"] = wd;
  r["pfcwd_storm_drops"] = DropsOf(facts, DropReason::kPfcwdStorm);
  r["verdict"] = verdict;
  const fs::path dir(spec.out_dir);
  {
    std::ofstream out(dir / "results.json");
    WriteResultsJson(r, sws, out);
  }
  // Flow throughput per bin at the receiver.
  std::ofstream fcsv(dir / "flows.csv");
  {
    std::vector<std::string> names(spec.flows.size());
    for (size_t i = 0; i < names.size(); i++) names[i] = spec.flows[i].name;
    const uint64_t from = spec.series_start_ns;
    const uint64_t span = spec.duration_ns > from ? spec.duration_ns - from : 0;
    WriteSeriesCsv(spec.bin_ns, (span + spec.bin_ns - 1) / spec.bin_ns, names, facts.bins,
                   facts.bin_from, fcsv, from);
  }
  if (!WritePortsCsv(facts, all, (dir / "ports.csv").string(), err)) return false;
  if (!WriteDropsCsv(facts, (dir / "drops.csv").string(), err)) return false;
  if (!WriteFctCsv(spec, facts, (dir / "fct.csv").string(), err)) return false;
  if (spec.qlen_mon.interval_ns != 0 && !WriteQlenCsv(facts, all, (dir / "qlen.csv").string(), err))
    return false;
  // Wall-clock facts apart, so results.json stays byte-identical across runs;
  // with each process's peak memory (one a rank over MPI).
  json peak_mb = json::array();
  for (const uint64_t kb : facts.peak_rss_kb) peak_mb.push_back((kb + 512) / 1024);
  const double wall = timing.wall_seconds;
  std::ofstream(dir / "timing.json")
      << json{{"wall_seconds", wall},
              // Apart from what else ran on the machine meanwhile (a shared
              // machine's wall time moves with its load): hops per CPU second.
              {"cpu_seconds", timing.cpu_seconds},
              {"startup_seconds", timing.startup_seconds},
              {"virtual_over_real", wall > 0 ? facts.end_ns / 1e9 / wall : 0},
              {"pool_mbufs_populated", facts.pool_mbufs},
              {"peak_rss_mb", peak_mb},
              {"malloc_huge_pages", timing.malloc_huge_pages},
              // Rounds one entity at a time in windows of this many ns, or
              // in time order (null): the same results either way.
              {"entity_window_ns",
               timing.entity_window_ns == kNever ? json(nullptr) : json(timing.entity_window_ns)},
              {"threads", ThreadsJson(timing.threads)}}
             .dump()
      << "\n";
  if (!fcsv) {
    *err = (dir / "flows.csv").string() + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace pfc::emulator
