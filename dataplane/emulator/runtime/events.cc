// SPDX-License-Identifier: BSD-3-Clause
// Fabric: the timeline's events (links down and up, routes, rules, storms),
// applied by either clock at their time and logged; and the switches' own
// events (DCFIT, the watchdog), printed by the run loops.
#include "dataplane/emulator/runtime/fabric.h"
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

void Fabric::SetLink(uint32_t a, uint32_t b, bool up, uint64_t now) {
  const tagger::Topology& t = spec_.topo;
  for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    EmuPort* p = PortOf(x, static_cast<uint16_t>(t.PortTo(x, y)));
    if (p == nullptr) continue;
    if (spec_.clock == ClockKind::kVirtual) {
      // At the event's time, before any round then, whichever partition
      // runs the receiver; the owner runs now to see its link's new state.
      p->SetUpNow(up, now);
      DueOf(p->wake_id).Lower(p->wake_id, now);
    } else {
      p->RequestUp(up);  // the owner applies it at its next Tx or Poll
    }
  }
}

void Fabric::ApplyEvent(const EventSpec& e, uint64_t now) {
  const tagger::Topology& t = spec_.topo;
  std::string what, err;
  bool ok = true;
  auto sw_of = [&](uint32_t node) -> SwitchRun& { return switches_[plan_.switch_index[node]]; };
  // An event may change any port (a link's state, routes, rules): every
  // port of every switch is looked at again.
  for (SwitchRun& s : switches_) stages::ActivateAll(s.ctx);
  // A switch that runs elsewhere (--here) gets its events there.
  if ((e.kind == EventSpec::Kind::kRoute || e.kind == EventSpec::Kind::kRules) && !spec_.Local(e.a))
    return;
  switch (e.kind) {
    case EventSpec::Kind::kLink:
      what = "link " + t.node(e.a).name + "-" + t.node(e.b).name + (e.up ? " up" : " down");
      SetLink(e.a, e.b, e.up, now);
      break;
    case EventSpec::Kind::kRoute: {
      SwitchRun& sr = sw_of(e.a);
      const uint16_t port = static_cast<uint16_t>(t.PortTo(e.a, e.c));
      uint32_t prefix = e.prefix;
      uint8_t len = e.prefix_len;
      if (e.b != tagger::kNoNode) {  // the host's subnet (its /30 or its own)
        const emulator::HostPlan& h = *plan_.host(e.b);
        len = h.prefix_len;
        prefix = h.ip & ~(~0u >> len);
      }
      const emulator::SwitchPlan* via_sw = plan_.sw(e.c);
      const uint32_t via =
          via_sw != nullptr ? via_sw->ports[t.PortTo(e.c, e.a)].ip : plan_.host(e.c)->ip;
      what = "route at " + sr.sw->name + ": " + emulator::Ipv4String(prefix) + "/" +
             std::to_string(len) + " via " + t.node(e.c).name;
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
      {
        const auto id = static_cast<uint32_t>(&sr - switches_.data());
        DueOf(id).Lower(id, now);
      }
      break;
    }
    case EventSpec::Kind::kFlow: {
      const emulator::FlowSpecFile& fl = spec_.flows[e.flow];
      what = "flow " + fl.name + (e.up ? " start" : " stop");
      for (size_t j = 0; j < hosts_.size(); j++) {
        Host& h = hosts_[j];
        if (h.node != fl.from) continue;
        if (e.up)
          h.model->StartFlow(static_cast<uint32_t>(e.flow + 1), now);
        else
          h.model->StopFlow(static_cast<uint32_t>(e.flow + 1), now);
        DueOf(HostId(j)).Lower(HostId(j), now);
      }
      break;
    }
    case EventSpec::Kind::kHost:
      what = "host " + t.node(e.a).name;
      for (size_t j = 0; j < hosts_.size(); j++) {
        Host& h = hosts_[j];
        if (h.node != e.a) continue;
        if (e.ignore_pause) {
          h.model->SetIgnorePause(*e.ignore_pause);
          what += *e.ignore_pause ? " ignores pause" : " honours pause";
        }
        if (e.storm_prios) {
          h.model->SetStorm(*e.storm_prios, now);
          what += StormText(*e.storm_prios);
        }
        DueOf(HostId(j)).Lower(HostId(j), now);
      }
      break;
    case EventSpec::Kind::kRules: {
      SwitchRun& sr = sw_of(e.a);
      what = "rules at " + sr.sw->name + " from " + e.file;
      ok = pfcswitch::ReloadSwitch(*sr.sw, e.file, &err);
      {
        const auto id = static_cast<uint32_t>(&sr - switches_.data());
        DueOf(id).Lower(id, now);
      }
      break;
    }
  }
  char ts[32];
  std::snprintf(ts, sizeof ts, "%.6f ms: ", now / 1e6);
  event_log_.push_back(ts + what + (ok ? "" : " FAILED: " + err));
  PFC_LOG(INFO, fabric, "pfcfabric: %s\n", event_log_.back().c_str());
}

void Fabric::PrintEvents() {
  for (size_t i = 0; i < switches_.size(); i++) printers_[i].Print(*switches_[i].sw);
}

void Fabric::Sample(uint64_t now) {
  if (now >= rec_.next_ns()) {  // at most once a sample bin
    PrintEvents();
    if (on_bin) on_bin(now);
  }
  rec_.Sample(now);
}

}  // namespace pfc::emulator
