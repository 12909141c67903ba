// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/app/telemetry.h"

#include <rte_telemetry.h>

#include <cstdlib>
#include <mutex>

#include "dataplane/app/stats_report.h"
#include "dataplane/app/telemetry_cmd.h"

namespace pfc {
namespace {

Runtime* g_rt = nullptr;        // set once before the commands are registered
std::mutex g_reload_mu;         // one reload at a time
SwitchConfig* g_running = nullptr;   // the config reloads apply on top of

int PortArg(const char* params) {
  std::vector<std::string> names;
  for (const auto& p : g_rt->ports) names.push_back(p.name);
  return PortParam(params, names);
}

int CmdInfo(const char*, const char*, rte_tel_data* d) {
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_string(d, "config", g_rt->cfg.path.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
  rte_tel_data_add_dict_string(d, "mode", g_rt->cfg.mode == SwitchConfig::Mode::kL3 ? "l3" : "l2");
  rte_tel_data_add_dict_u64(d, "generation", g_rt->generation());
  rte_tel_data_add_dict_u64(d, "ports", g_rt->ports.size());
  rte_tel_data_add_dict_u64(d, "workers", g_rt->cfg.workers);
  const Tables* t = g_rt->CurrentTables();
  rte_tel_data_add_dict_u64(d, "rules", t->rule_count);
  rte_tel_data_add_dict_u64(d, "routes", t->routes.size());
  rte_tel_data_add_dict_u64(d, "neighbors", g_rt->neighbors.size());
  rte_tel_data_add_dict_u64(d, "lossless_mask", t->tag_map.lossless_mask);
  return 0;
}

int CmdPorts(const char*, const char*, rte_tel_data* d) {
  rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
  for (const auto& p : g_rt->ports) rte_tel_data_add_array_string(d, p.name.c_str());
  return 0;
}

void AddArray(rte_tel_data* d, const std::string& name, const uint64_t (&v)[kNumPrio]) {
  rte_tel_data* a = rte_tel_data_alloc();
  rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
  for (uint64_t x : v) rte_tel_data_add_array_u64(a, x);
  rte_tel_data_add_dict_container(d, name.c_str(), a, 0);
}

int CmdPortStats(const char*, const char* params, rte_tel_data* d) {
  int p = PortArg(params);
  if (p < 0) return -EINVAL;
  nlohmann::json j = PortStatsJson(*g_rt, static_cast<PortId>(p));
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_string(d, "name", g_rt->ports[p].name.c_str());
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.value().is_number_unsigned()) rte_tel_data_add_dict_u64(d, it.key().c_str(), it.value().get<uint64_t>());
  // Per-priority values as arrays indexed by priority (DPDK 22.11 telemetry
  // nests only arrays inside a dict).
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
      const auto& x = prio[q].contains(it.key()) ? prio[q][it.key()] : nlohmann::json(0);
      v[q] = x.is_boolean() ? x.get<bool>() : x.get<uint64_t>();
    }
    AddArray(d, "prio_" + it.key(), v);
  }
  return 0;
}

int CmdReload(const char*, const char* params, rte_tel_data* d) {
  rte_tel_data_start_dict(d);
  std::string path;
  if (!ReloadParam(params, &path)) {
    rte_tel_data_add_dict_string(d, "error", kReloadUsage);
    return 0;
  }
  std::lock_guard<std::mutex> g(g_reload_mu);
  SwitchConfig next;
  std::string err;
  if (!LoadUpdate(path, *g_running, &next, &err) || !g_rt->ApplyConfig(next, &err)) {
    rte_tel_data_add_dict_string(d, "error", err.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
    return 0;
  }
  *g_running = std::move(next);
  rte_tel_data_add_dict_string(d, "status", "ok");
  rte_tel_data_add_dict_u64(d, "generation", g_rt->generation());
  rte_tel_data_add_dict_u64(d, "rules", g_running->rewrite.rules.size());
  rte_tel_data_add_dict_u64(d, "routes", g_running->routes.size());
  return 0;
}

}  // namespace

void RegisterTelemetry(Runtime* rt) {
  g_rt = rt;
  g_running = new SwitchConfig(rt->cfg);   // lives as long as the process
  rte_telemetry_register_cmd("/pfcswitch/info", CmdInfo, "Switch summary. No parameters");
  rte_telemetry_register_cmd("/pfcswitch/ports", CmdPorts, "Port names in config order. No parameters");
  rte_telemetry_register_cmd("/pfcswitch/port_stats", CmdPortStats,
                             "Counters of one port. Parameter: port name or index");
  rte_telemetry_register_cmd("/pfcswitch/reload", CmdReload,
                             "Load rewrite rules / routes / qos from a file. Parameter: file path");
}

}  // namespace pfc
