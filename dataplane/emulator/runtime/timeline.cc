// SPDX-License-Identifier: BSD-3-Clause
// The timeline's events applied (timeline.h).
#include "dataplane/emulator/runtime/timeline.h"

#include "dataplane/pfcswitch/telemetry.h"
#include "dataplane/switch/log.h"

namespace pfc::emulator {
namespace {

// " storm on priorities 3, 4" or " storm off": a storm event as logged.
std::string StormText(uint8_t prios) {
  if (prios == 0) return " storm off";
  std::string s = " storm on priorities ";
  for (int q = 0; q < 8; q++)
    if (prios >> q & 1) s += (s.back() == ' ' ? "" : ", ") + std::to_string(q);
  return s;
}

}  // namespace

void Timeline::SetLink(Fabric& fab, uint32_t a, uint32_t b, bool up, uint64_t now,
                       const Wake& wake) {
  const tagger::Topology& t = fab.spec().topo;
  for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    EmuPort* p = fab.PortOf(x, static_cast<uint16_t>(t.PortTo(x, y)));
    if (p == nullptr) continue;
    if (wake) {
      // At the event's time, before any round then, whichever partition
      // runs the receiver; the owner runs now to see its link's new state.
      p->SetUpNow(up, now);
      // An end another MPI rank runs only keeps the link's epoch here.
      if (fab.spec().Local(x)) wake(p->wake_id, now);
    } else {
      p->RequestUp(up);  // the owner applies it at its next Tx or Poll
    }
  }
}

void Timeline::Apply(Fabric& fab, const EventSpec& e, uint64_t now, const Wake& wake) {
  const FabricSpec& spec = fab.spec();
  const FabricPlan& plan = fab.plan();
  const tagger::Topology& t = spec.topo;
  std::vector<SwitchRun>& switches = fab.switches();
  std::vector<Host>& hosts = fab.hosts();
  std::string what, err;
  bool ok = true;
  // A switch's index (its id in Fabric::HostId's numbering) by its node;
  // what the event changed runs at its time.
  auto index_of = [&](uint32_t node) { return static_cast<uint32_t>(plan.switch_index[node]); };
  auto wake_id = [&](uint32_t id) {
    if (wake) wake(id, now);
  };
  // An event may change any port (a link's state, routes, rules): every
  // port of every switch is looked at again.
  for (SwitchRun& s : switches) stages::ActivateAll(s.ctx);
  // A switch that runs elsewhere (--here) gets its events there.
  // Over MPI ranks its line is left empty here, for rank 0 to take the
  // owner's (rank_results.h).
  if ((e.kind == EventSpec::Kind::kRoute || e.kind == EventSpec::Kind::kRules) &&
      !spec.Local(e.a)) {
    if (spec.ranks > 1) log_.emplace_back();
    return;
  }
  switch (e.kind) {
    case EventSpec::Kind::kLink:
      what = "link " + t.node(e.a).name + "-" + t.node(e.b).name + (e.up ? " up" : " down");
      SetLink(fab, e.a, e.b, e.up, now, wake);
      break;
    case EventSpec::Kind::kRoute: {
      const uint32_t id = index_of(e.a);
      SwitchRun& sr = switches[id];
      const uint16_t port = static_cast<uint16_t>(t.PortTo(e.a, e.c));
      uint32_t prefix = e.prefix;
      uint8_t len = e.prefix_len;
      if (e.b != tagger::kNoNode) {  // the host's subnet (its /30 or its own)
        const HostPlan& h = *plan.host(e.b);
        len = h.prefix_len;
        prefix = h.ip & ~(~0u >> len);
      }
      // The next hop's address; a switch another MPI rank runs from the
      // whole fabric's list.
      uint32_t via = 0;
      if (const SwitchPlan* via_sw = plan.sw(e.c)) {
        via = via_sw->ports[t.PortTo(e.c, e.a)].ip;
      } else if (const HostPlan* via_host = plan.host(e.c)) {
        via = via_host->ip;
      } else {
        for (const FabricPlan::SwitchNames& n : plan.all_switches)
          if (n.node == e.c) via = n.ips[t.PortTo(e.c, e.a)];
      }
      what = "route at " + sr.sw->name + ": " + Ipv4String(prefix) + "/" + std::to_string(len) +
             " via " + t.node(e.c).name;
      ok = pfcswitch::EditRunningConfig(
          *sr.sw,
          [&](config::SwitchConfig* c, std::string*) {
            std::erase_if(c->routes, [&](const tables::RouteTable::Route& r) {
              return r.prefix == prefix && r.len == len;
            });
            c->routes.push_back({prefix, len, static_cast<uint16_t>(c->next_hops.size())});
            c->next_hops.push_back({port, via});
            return true;
          },
          &err);
      wake_id(id);
      break;
    }
    case EventSpec::Kind::kFlow: {
      const FlowSpecFile& fl = spec.flows[e.flow];
      what = "flow " + fl.name + (e.up ? " start" : " stop");
      for (size_t j = 0; j < hosts.size(); j++) {
        Host& h = hosts[j];
        if (h.node != fl.from) continue;
        if (e.up)
          h.model->StartFlow(static_cast<uint32_t>(e.flow + 1), now);
        else
          h.model->StopFlow(static_cast<uint32_t>(e.flow + 1), now);
        wake_id(fab.HostId(j));
      }
      break;
    }
    case EventSpec::Kind::kHost:
      // The line the same wherever the host runs (another MPI rank).
      what = "host " + t.node(e.a).name;
      if (e.ignore_pause) what += *e.ignore_pause ? " ignores pause" : " honours pause";
      if (e.storm_prios) what += StormText(*e.storm_prios);
      for (size_t j = 0; j < hosts.size(); j++) {
        Host& h = hosts[j];
        if (h.node != e.a) continue;
        if (e.ignore_pause) h.model->SetIgnorePause(*e.ignore_pause);
        if (e.storm_prios) h.model->SetStorm(*e.storm_prios, now);
        wake_id(fab.HostId(j));
      }
      break;
    case EventSpec::Kind::kRules: {
      const uint32_t id = index_of(e.a);
      SwitchRun& sr = switches[id];
      what = "rules at " + sr.sw->name + " from " + e.file;
      ok = pfcswitch::ReloadSwitch(*sr.sw, e.file, &err);
      wake_id(id);
      break;
    }
  }
  char ts[32];
  std::snprintf(ts, sizeof ts, "%.6f ms: ", now / 1e6);
  log_.push_back(ts + what + (ok ? "" : " FAILED: " + err));
  PFC_LOG(INFO, fabric, "pfcfabric: %s\n", log_.back().c_str());
}

}  // namespace pfc::emulator
