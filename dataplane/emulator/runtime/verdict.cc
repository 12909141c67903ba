// SPDX-License-Identifier: BSD-3-Clause
// The run's verdict (verdict.h).
#include "dataplane/emulator/runtime/verdict.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "dataplane/emulator/model/deadlock_cycles.h"

namespace pfc::emulator {
namespace {

using nlohmann::json;

// A link is stuck when its sender was paused and sent nothing in each of
// the last kQuietBins samples (tools/pfclib/fabric_results.py stuck_ports,
// the truth the DCFIT benches use).
constexpr size_t kQuietBins = 5;
// A rate-limited flow below this share of its asked rate is reported.
constexpr double kSlowShare = 0.9;

std::string Thousands(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string Ms(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  return b;
}

// The verdict's frames lost: on lossless priorities, and in all (both
// classes of priority and the links).
struct LostTotals {
  uint64_t lossless = 0, all = 0;
};
LostTotals TotalsOf(const json& v) {
  LostTotals t;
  for (const auto& [_, n] : v["lost"]["lossless_prios"].items()) t.lossless += n.get<uint64_t>();
  t.all = t.lossless + v["lost"]["link_down"].get<uint64_t>() +
          v["lost"].value("between_ranks_no_mbuf", uint64_t{0}) +
          v["lost"].value("link_ring_full", uint64_t{0});
  for (const auto& [_, n] : v["lost"]["lossy_prios"].items()) t.all += n.get<uint64_t>();
  return t;
}

}  // namespace

json Verdict(const FabricSpec& spec, const FabricPlan& plan,
             const std::vector<FabricPlan::SwitchNames>& all, const RunFacts& f) {
  const tagger::Topology& t = spec.topo;
  json v;
  // Stuck links from the recorder's samples: the trailing run of quiet,
  // paused samples of each (switch, port, priority).
  struct Run {
    size_t n = 0;
    uint64_t since = 0;
  };
  std::map<std::tuple<uint16_t, uint16_t, uint8_t>, Run> runs;
  for (const PortSample& r : f.rows) {
    Run& run = runs[{r.sw, r.port, r.prio}];
    if (r.paused && r.tx_bytes == 0) {
      if (run.n++ == 0) run.since = r.t_ns - r.span_ns;
    } else {
      run.n = 0;
    }
  }
  std::vector<int> index_of(t.num_nodes(), -1);  // a switch's index in `all`
  for (size_t i = 0; i < all.size(); i++) index_of[all[i].node] = static_cast<int>(i);
  std::vector<StuckLink> stuck;
  json by_host = json::array();
  for (const auto& [key, run] : runs) {
    if (run.n < kQuietBins) continue;
    const auto [sw, port, prio] = key;
    const uint32_t node = all[sw].node;
    const uint32_t peer = t.neighbor(t.gport(node, port));
    if (const int p = index_of[peer]; p >= 0 && f.switch_here[p])
      stuck.push_back({sw, static_cast<uint32_t>(p), prio, run.since});
    else if (t.is_switch(peer))
      continue;  // a switch another process runs (--here): its side is not seen here
    else
      by_host.push_back({{"switch", all[sw].name},
                         {"host", t.node(peer).name},
                         {"prio", prio},
                         {"since_ns", run.since}});
  }
  json dl = json::array();
  for (const DeadlockCycle& c : FindDeadlocks(static_cast<uint32_t>(all.size()), stuck)) {
    json names = json::array(), prios = json::array();
    for (uint32_t s : c.switches) names.push_back(all[s].name);
    for (int q = 0; q < kNumPrio; q++)
      if (c.prio_mask >> q & 1) prios.push_back(q);
    dl.push_back({{"cycle", names},
                  {"prios", prios},
                  {"since_ns", c.since_ns},
                  {"stuck_links", c.stuck_links}});
  }
  v["deadlocks"] = dl;
  v["stuck_links"] = stuck.size();
  v["held_by_hosts"] = by_host;
  // Frames lost, by class of priority and reason; and on the links.
  std::map<std::string, uint64_t> lossless, lossy;
  for (int c = 0; c < 2; c++)
    for (int r = 0; r < kNumDropReasons; r++)
      if (const uint64_t n = f.drops[c][r])
        (c == 1 ? lossless : lossy)[std::string(DropReasonName(static_cast<DropReason>(r)))] += n;
  v["lost"] = {{"lossless_prios", lossless}, {"lossy_prios", lossy}, {"link_down", f.link_down}};
  // Only when it happened (a run that fits in memory never has the key).
  if (f.rank_nombuf != 0) v["lost"]["between_ranks_no_mbuf"] = f.rank_nombuf;
  // Likewise: a link end's receive ring is sized for its link full of
  // minimum-size frames (EmuPort::Init), so only shorter frames fill it.
  if (f.ring_full != 0) v["lost"]["link_ring_full"] = f.ring_full;
  // Flows: rate-limited ones below their rate, sized ones not complete.
  json slow = json::array();
  uint64_t sized = 0, incomplete = 0;
  for (size_t i = 0; i < spec.flows.size(); i++) {
    const FlowSpecFile& fl = spec.flows[i];
    if (fl.bytes != 0) {
      sized++;
      incomplete += !f.fct[i].completed;
      continue;
    }
    const uint64_t end = std::min(fl.stop_ns, f.end_ns);
    if (fl.rate_bps == 0 || fl.start_ns >= end) continue;
    const HostPlan* hp = plan.host(fl.from);
    const uint64_t asked = hp != nullptr ? std::min(fl.rate_bps, hp->rate_bps) : fl.rate_bps;
    const json& j = f.flows[i];
    const uint64_t frames = j.value("rx_frames", uint64_t{0}),
                   bytes = j.value("rx_bytes", uint64_t{0});
    // Wire bits, as the rate counts them (WireTimeNs).
    const double got = (static_cast<double>(bytes) + double(spec.wire_overhead) * double(frames)) *
                       8e9 / static_cast<double>(end - fl.start_ns);
    if (got < kSlowShare * static_cast<double>(asked))
      slow.push_back({{"flow", fl.name}, {"asked_bps", asked}, {"got_bps", std::llround(got)}});
  }
  v["slow_flows"] = slow;
  v["sized_flows"] = sized;
  v["incomplete_flows"] = incomplete;
  v["ok"] = dl.empty() && TotalsOf(v).all == 0 && slow.empty() && incomplete == 0;
  return v;
}

std::vector<std::string> VerdictLines(const nlohmann::json& v, bool real_clock) {
  std::vector<std::string> out;
  for (const json& d : v["deadlocks"]) {
    std::string cyc;
    for (const json& s : d["cycle"]) cyc += s.get<std::string>() + " -> ";
    cyc += d["cycle"][0].get<std::string>();
    std::string prios;
    for (const json& q : d["prios"]) {
      if (!prios.empty()) prios.append(", ");
      prios.append(std::to_string(q.get<int>()));
    }
    out.push_back("DEADLOCK " + cyc + " (priority " + prios +
                  "): every link of it paused and idle since " + Ms(d["since_ns"].get<uint64_t>()) +
                  " (" + std::to_string(d["stuck_links"].get<int>()) +
                  " stuck links among these switches)");
  }
  std::string why;
  for (const char* cls : {"lossless_prios", "lossy_prios"}) {
    for (const auto& [reason, n] : v["lost"][cls].items()) {
      why += std::string(why.empty() ? "" : ", ") + reason + " " + Thousands(n.get<uint64_t>()) +
             (std::string(cls) == "lossless_prios" ? " (lossless)" : " (lossy)");
    }
  }
  const uint64_t down = v["lost"]["link_down"].get<uint64_t>();
  if (down != 0) why += std::string(why.empty() ? "" : ", ") + "link down " + Thousands(down);
  if (const uint64_t n = v["lost"].value("between_ranks_no_mbuf", uint64_t{0}))
    why += std::string(why.empty() ? "" : ", ") + "between MPI ranks, no mbuf " + Thousands(n);
  if (const uint64_t n = v["lost"].value("link_ring_full", uint64_t{0}))
    why += std::string(why.empty() ? "" : ", ") + "link receive ring full " + Thousands(n);
  if (const uint64_t all = TotalsOf(v).all; all != 0)
    out.push_back("lost " + Thousands(all) + " frames: " + why);
  if (!v["slow_flows"].empty()) {
    std::string s;
    for (const json& f : v["slow_flows"]) {
      char b[96];
      std::snprintf(b, sizeof b, "%s %.2f of %.2f Gb/s", f["flow"].get<std::string>().c_str(),
                    f["got_bps"].get<double>() / 1e9, f["asked_bps"].get<double>() / 1e9);
      s += (s.empty() ? "" : ", ") + std::string(b);
    }
    out.push_back(std::to_string(v["slow_flows"].size()) + " flow(s) below " +
                  std::to_string(static_cast<int>(kSlowShare * 100)) + "% of their asked rate: " +
                  s + (real_clock ? " (real clock: the machine may not have kept up)" : ""));
  }
  if (const uint64_t n = v["incomplete_flows"].get<uint64_t>())
    out.push_back(Thousands(n) + " of " + Thousands(v["sized_flows"].get<uint64_t>()) +
                  " sized flows did not complete");
  if (v["ok"].get<bool>())
    out.push_back("ok: no deadlock, no frame lost, every flow at its asked rate and complete");
  return out;
}

std::string FailedExpectations(const nlohmann::json& v, const std::vector<std::string>& expect) {
  const LostTotals lost = TotalsOf(v);
  std::string out;
  auto fail = [&](const std::string& what, uint64_t n, const char* unit) {
    out += (out.empty() ? "" : "; ") + what + " (" + Thousands(n) + " " + unit + ")";
  };
  for (const std::string& e : expect) {
    if (e == "no-deadlock" && !v["deadlocks"].empty())
      fail(e, v["deadlocks"].size(), "deadlock(s)");
    else if (e == "lossless" && lost.lossless != 0)
      fail(e, lost.lossless, "lossless frames lost");
    else if (e == "no-loss" && lost.all != 0)
      fail(e, lost.all, "frames lost");
    else if (e == "rates" && !v["slow_flows"].empty())
      fail(e, v["slow_flows"].size(), "flow(s) below their rate");
    else if (e == "complete" && v["incomplete_flows"].get<uint64_t>() != 0)
      fail(e, v["incomplete_flows"].get<uint64_t>(), "sized flow(s) not complete");
  }
  return out;
}

}  // namespace pfc::emulator
