// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/telemetry.h"

#include <rte_telemetry.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "dataplane/pfcswitch/stats_report.h"
#include "dataplane/pfcswitch/telemetry_cmd.h"
#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/pfcwd_stage.h"

namespace pfc::pfcswitch {
namespace {

struct Entry {
  sw::Switch* sw;
  config::SwitchConfig running;  // the config reloads apply on top of
};
std::vector<Entry>* g_switches = nullptr;  // set once before the commands are registered
std::mutex g_reload_mu;                    // one reload at a time

Entry* FindEntry(const sw::Switch& sw) {
  for (Entry& e : *g_switches) {
    if (e.sw == &sw) return &e;
  }
  return nullptr;
}

// The switch a command names and the rest of its parameters (telemetry_cmd.h).
sw::Switch* SwitchArg(const char* params, std::string* rest) {
  std::vector<std::string> names;
  for (const Entry& e : *g_switches) names.push_back(e.sw->name);
  const int i = SwitchParam(params, names, rest);
  return i < 0 ? nullptr : (*g_switches)[i].sw;
}

int PortArg(const sw::Switch& sw, const std::string& params) {
  std::vector<std::string> names;
  for (const auto& p : sw.ports) names.push_back(p.name);
  return PortParam(params.c_str(), names);
}

// The unsigned numbers of a JSON object, as dict entries.
void AddUnsigned(rte_tel_data* d, const nlohmann::json& j) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.value().is_number_unsigned())
      rte_tel_data_add_dict_u64(d, it.key().c_str(), it.value().get<uint64_t>());
}

int CmdSwitches(const char*, const char*, rte_tel_data* d) {
  rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
  for (const Entry& e : *g_switches) rte_tel_data_add_array_string(d, e.sw->name.c_str());
  return 0;
}

int CmdInfo(const char*, const char* params, rte_tel_data* d) {
  std::string rest;
  const sw::Switch* sw = SwitchArg(params, &rest);
  if (sw == nullptr) return -EINVAL;
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_string(d, "switch", sw->name.c_str());
  rte_tel_data_add_dict_string(d, "config",
                               sw->cfg.path.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
  rte_tel_data_add_dict_string(d, "mode",
                               sw->cfg.mode == config::SwitchConfig::Mode::kL3 ? "l3" : "l2");
  rte_tel_data_add_dict_u64(d, "ports", sw->ports.size());
  rte_tel_data_add_dict_u64(d, "workers", sw->dp.workers);
  {
    // This thread is no RCU reader: holding the reload lock keeps the
    // snapshot from being replaced (and freed) while it is read.
    std::lock_guard<std::mutex> g(g_reload_mu);
    const sw::Tables* t = sw->CurrentTables();
    rte_tel_data_add_dict_u64(d, "rules", t->rule_count);
    rte_tel_data_add_dict_u64(d, "routes", t->routes.size());
    // Configured plus learnt by ARP.
    rte_tel_data_add_dict_u64(d, "neighbors", t->neighbors.size() + sw->neighbors.size());
    rte_tel_data_add_dict_u64(d, "lossless_mask", t->tag_map.lossless_mask);
  }
  // generation, shared buffer and mbuf pool use: what the exit report has.
  AddUnsigned(d, SwitchStatsJson(*sw));
  return 0;
}

int CmdPorts(const char*, const char* params, rte_tel_data* d) {
  std::string rest;
  const sw::Switch* sw = SwitchArg(params, &rest);
  if (sw == nullptr) return -EINVAL;
  rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
  for (const auto& p : sw->ports) rte_tel_data_add_array_string(d, p.name.c_str());
  return 0;
}

void AddArray(rte_tel_data* d, const std::string& name, const uint64_t (&v)[kNumPrio]) {
  rte_tel_data* a = rte_tel_data_alloc();
  rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
  for (uint64_t x : v) rte_tel_data_add_array_u64(a, x);
  rte_tel_data_add_dict_container(d, name.c_str(), a, 0);
}

int CmdPortStats(const char*, const char* params, rte_tel_data* d) {
  std::string rest;
  const sw::Switch* sw = SwitchArg(params, &rest);
  if (sw == nullptr) return -EINVAL;
  const int p = PortArg(*sw, rest);
  if (p < 0) return -EINVAL;
  nlohmann::json j = PortStatsJson(*sw, static_cast<PortId>(p));
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_string(d, "name", sw->ports[p].name.c_str());
  AddUnsigned(d, j);
  // Per-priority values as arrays indexed by priority (DPDK 22.11 telemetry
  // nests only arrays inside a dict). Every priority carries the same fields
  // (PortStatsJson), so priority 0's names are every priority's.
  const auto& prio = j["prio"];
  for (auto it = prio[0].begin(); it != prio[0].end(); ++it) {
    if (it.key() == "prio") continue;
    if (it.key() == "drops") {
      for (auto r = it.value().begin(); r != it.value().end(); ++r) {
        uint64_t v[kNumPrio];
        for (int q = 0; q < kNumPrio; q++) v[q] = prio[q]["drops"][r.key()].get<uint64_t>();
        AddArray(d, "prio_drop_" + r.key(), v);
      }
      continue;
    }
    uint64_t v[kNumPrio];
    for (int q = 0; q < kNumPrio; q++) {
      // contains(): an exception must not escape into DPDK's C thread.
      const auto& x = prio[q].contains(it.key()) ? prio[q][it.key()] : nlohmann::json(0);
      v[q] = x.is_boolean() ? x.get<bool>() : x.get<uint64_t>();
    }
    AddArray(d, "prio_" + it.key(), v);
  }
  return 0;
}

// Adds the last (at most 500) of `ev` as text under `key`, newest last.
template <typename T, typename F>
void AddEventTexts(rte_tel_data* d, const char* key, const std::vector<T>& ev, F&& text) {
  rte_tel_data* a = rte_tel_data_alloc();
  rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
  const size_t from = ev.size() > 500 ? ev.size() - 500 : 0;
  for (size_t i = from; i < ev.size(); i++)
    rte_tel_data_add_array_string(a, text(ev[i]).substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
  rte_tel_data_add_dict_container(d, key, a, 0);
}

// Events, newest last: DCFIT's {"enabled", "total", "events": [text, ...]}
// (stages/dcfit_state.h DcfitEventText) and the pause-storm watchdog's
// {"pfcwd_total", "pfcwd_events": [text, ...]} (stages/pfcwd_state.h).
int CmdEvents(const char*, const char* params, rte_tel_data* d) {
  std::string rest;
  const sw::Switch* sw = SwitchArg(params, &rest);
  if (sw == nullptr) return -EINVAL;
  rte_tel_data_start_dict(d);
  const stages::SwitchDcfit* dcfit = stages::DcfitOf(*sw);
  rte_tel_data_add_dict_u64(d, "enabled", dcfit != nullptr);
  uint64_t total = 0;
  const std::vector<stages::DcfitEventRecord> ev =
      dcfit ? dcfit->log.Snapshot(&total) : std::vector<stages::DcfitEventRecord>{};
  rte_tel_data_add_dict_u64(d, "total", total);
  AddEventTexts(d, "events", ev, [&](const stages::DcfitEventRecord& r) {
    return stages::DcfitEventText(r, sw->ports[r.ev.in_port].name, sw->ports[r.ev.out_port].name);
  });
  total = 0;
  const stages::PfcwdEventLog* wd_log = stages::PfcwdLogOf(*sw);
  const std::vector<stages::PfcwdEvent> wd =
      wd_log ? wd_log->Snapshot(&total) : std::vector<stages::PfcwdEvent>{};
  rte_tel_data_add_dict_u64(d, "pfcwd_total", total);
  AddEventTexts(d, "pfcwd_events", wd, [&](const stages::PfcwdEvent& e) {
    return stages::PfcwdEventText(e, sw->ports[e.port].name);
  });
  return 0;
}

int CmdReload(const char*, const char* params, rte_tel_data* d) {
  rte_tel_data_start_dict(d);
  std::string rest, file;
  sw::Switch* sw = SwitchArg(params, &rest);
  if (sw == nullptr || !ReloadParam(rest.c_str(), &file)) {
    rte_tel_data_add_dict_string(d, "error", kReloadUsage);
    return 0;
  }
  std::string err;
  if (!ReloadSwitch(*sw, file, &err)) {
    // Whole, in pieces DPDK keeps (127 bytes each), cut between characters.
    const std::vector<std::string> pieces =
        Utf8Pieces(TelemetrySafe(err), RTE_TEL_MAX_STRING_LEN - 1);
    rte_tel_data_add_dict_string(d, "error", pieces[0].c_str());
    if (pieces.size() > 1) {
      rte_tel_data* more = rte_tel_data_alloc();
      rte_tel_data_start_array(more, RTE_TEL_STRING_VAL);
      for (size_t i = 1; i < pieces.size(); i++)
        rte_tel_data_add_array_string(more, pieces[i].c_str());
      rte_tel_data_add_dict_container(d, "error_more", more, 0);
    }
    return 0;
  }
  std::lock_guard<std::mutex> g(g_reload_mu);
  const config::SwitchConfig& running = FindEntry(*sw)->running;
  rte_tel_data_add_dict_string(d, "status", "ok");
  rte_tel_data_add_dict_u64(d, "generation", sw->generation());
  rte_tel_data_add_dict_u64(d, "rules", running.rewrite.rules.size());
  rte_tel_data_add_dict_u64(d, "routes", running.routes.size());
  return 0;
}

// Resets the egress queue watermarks (stats.h PFC_PRIO_MAXIMA) of every
// worker's block. Why a plain store from this thread is safe: the owner
// raises a watermark with load, compare, store of the depth it has just
// seen (Counter::RaiseTo). If this store of 0 lands between its load and
// its store, the owner writes that depth, which is the queue's depth at
// about the moment of the clear and so a correct maximum after it; it never
// writes back a peak from before the clear. Counters proper are never
// cleared in the switch: pfcctl keeps a baseline (pfcctl/baseline.h).
int CmdClear(const char*, const char* params, rte_tel_data* d) {
  rte_tel_data_start_dict(d);
  std::string rest;
  sw::Switch* sw = SwitchArg(params, &rest);
  if (sw == nullptr || rest != "watermarks") {
    rte_tel_data_add_dict_string(d, "error", kClearUsage);
    return 0;
  }
  for (auto& w : sw->stats) {
    for (PortId p = 0; p < sw->ports.size(); p++) {
      for (int q = 0; q < kNumPrio; q++)
        sw::ForEachMaximum(w->prio[p][q], [](const char*, sw::Counter& c) { c.Set(0); });
    }
  }
  sw->buffer.ClearWatermarks();  // ingress: from what each group holds now
  rte_tel_data_add_dict_string(d, "status", "ok");
  rte_tel_data_add_dict_string(d, "cleared",
                               "egress_watermark,buffer_watermark,headroom_watermark");
  return 0;
}

}  // namespace

bool ReloadSwitch(sw::Switch& sw, const std::string& path, std::string* err) {
  std::lock_guard<std::mutex> g(g_reload_mu);
  Entry* e = FindEntry(sw);
  if (e == nullptr) {
    *err = "switch '" + sw.name + "' is not registered";
    return false;
  }
  config::SwitchConfig next;
  if (!config::LoadUpdate(path, e->running, &next, err)) return false;
  if (!sw.ApplyConfig(next, err)) {
    *err = path + ": " + *err;  // LoadUpdate's errors name the file already
    return false;
  }
  e->running = std::move(next);
  return true;
}

bool EditRunningConfig(sw::Switch& sw,
                       const std::function<bool(config::SwitchConfig*, std::string*)>& edit,
                       std::string* err) {
  std::lock_guard<std::mutex> g(g_reload_mu);
  Entry* e = FindEntry(sw);
  if (e == nullptr) {
    *err = "switch '" + sw.name + "' is not registered";
    return false;
  }
  config::SwitchConfig next = e->running;
  if (!edit(&next, err) || !sw.ApplyConfig(next, err)) return false;
  e->running = std::move(next);
  return true;
}

void RegisterTelemetry(const std::vector<sw::Switch*>& switches) {
  g_switches = new std::vector<Entry>();  // lives as long as the process
  for (sw::Switch* sw : switches) g_switches->push_back({sw, sw->cfg});
  rte_telemetry_register_cmd("/pfcswitch/switches", CmdSwitches, "Switch names. No parameters");
  rte_telemetry_register_cmd("/pfcswitch/info", CmdInfo, "Switch summary. Parameter: [switch]");
  rte_telemetry_register_cmd("/pfcswitch/ports", CmdPorts,
                             "Port names in config order. Parameter: [switch]");
  rte_telemetry_register_cmd("/pfcswitch/port_stats", CmdPortStats,
                             "Counters of one port. Parameters: [switch,]port name or index");
  rte_telemetry_register_cmd("/pfcswitch/events", CmdEvents,
                             "DCFIT deadlock-detection events. Parameter: [switch]");
  rte_telemetry_register_cmd(
      "/pfcswitch/clear", CmdClear,
      "Reset the egress queue and ingress buffer watermarks. Parameters: [switch,]watermarks");
  rte_telemetry_register_cmd(
      "/pfcswitch/reload", CmdReload,
      "Load rewrite rules / routes / qos from a file. Parameters: [switch,]file path");
}

}  // namespace pfc::pfcswitch
