// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/stats_report.h"

#include <rte_ethdev.h>

#include <algorithm>

#include "dataplane/stages/ecn_stage.h"

namespace pfc::pfcswitch {
namespace {

template <typename F>
uint64_t Sum(const sw::Switch& sw, F f) {
  uint64_t s = 0;
  for (const auto& w : sw.stats) s += f(*w).Get();
  return s;
}

// j[name] += v, starting from 0.
void AddTo(nlohmann::json* j, const char* name, uint64_t v) {
  const uint64_t prev = j->contains(name) ? (*j)[name].get<uint64_t>() : 0;
  (*j)[name] = prev + v;
}

// Adds every counter of the block `of` picks (stats.h's list), summed over
// the switch's workers, to j under its own name.
template <typename Of>
void AddCounters(const sw::Switch& sw, Of of, nlohmann::json* j) {
  for (const auto& w : sw.stats) {
    sw::ForEachCounter(of(*w),
                       [&](const char* name, const sw::Counter& c) { AddTo(j, name, c.Get()); });
  }
}

// The per-priority maxima (stats.h PFC_PRIO_MAXIMA): the largest over the
// workers, only the port's owner writing any.
void AddMaxima(const sw::Switch& sw, PortId p, int q, nlohmann::json* j) {
  for (const auto& w : sw.stats) {
    sw::ForEachMaximum(w->prio[p][q], [&](const char* name, const sw::Counter& c) {
      const uint64_t prev = j->contains(name) ? (*j)[name].get<uint64_t>() : 0;
      (*j)[name] = std::max(prev, c.Get());
    });
  }
}

}  // namespace

nlohmann::json PortStatsJson(const sw::Switch& sw, PortId p) {
  using nlohmann::json;
  json j;
  const sw::PortRuntime& pr = sw.ports[p];
  j["name"] = pr.name;
  AddCounters(
      sw, [&](const sw::WorkerStats& w) -> const sw::PortCounters& { return w.port[p]; }, &j);
  // What the device itself lost or refused, before the switch could count a
  // packet (e.g. an AF_PACKET ring overflowing while the worker was not
  // running): reported beside the switch's own drop reasons.
  if (pr.io.ethdev()) {
    rte_eth_stats ds{};
    if (rte_eth_stats_get(pr.io.dpdk_port, &ds) == 0) {
      j["dev_rx_missed"] = ds.imissed;
      j["dev_rx_errors"] = ds.ierrors;
      j["dev_rx_nombuf"] = ds.rx_nombuf;
      j["dev_tx_errors"] = ds.oerrors;
    }
    // As the link watch last saw it (switch/link_watch.h).
    j["link_up"] = pr.owner_state->dev_link_up.load(std::memory_order_relaxed) ? 1u : 0u;
  } else {
    // A provided port (port_io.h) reports its own.
    j["link_up"] = pr.io.provider->LinkUp() ? 1u : 0u;
    pr.io.provider->ForEachCounter([&](const char* name, uint64_t v) { j[name] = v; });
  }
  uint64_t port_drops = 0;
  json prios = json::array();
  for (int q = 0; q < kNumPrio; q++) {
    json pj;
    pj["prio"] = q;
    // Lossless on this port: qos.lossless and the port's pfc_enable.
    const bool lossless = p < sw.cfg.ports.size()
                              ? (config::PortPfcMask(sw.cfg, sw.cfg.ports[p]) >> q) & 1
                              : sw.cfg.tag_map.IsLossless(q);
    pj["lossless"] = lossless;
    // Whether the pause-storm watchdog guards this queue (pfcctl pfcwd).
    pj["pfcwd_enabled"] = lossless && p < sw.cfg.ports.size() &&
                          config::PfcWatchdogFor(sw.cfg, static_cast<PortId>(p)).enabled;
    AddCounters(
        sw, [&](const sw::WorkerStats& w) -> const sw::PrioCounters& { return w.prio[p][q]; }, &pj);
    AddMaxima(sw, p, q, &pj);
    json drops = json::object();
    uint64_t total = 0;
    for (int r = 0; r < kNumDropReasons; r++) {
      uint64_t v = Sum(sw, [&](const sw::WorkerStats& w) -> const sw::Counter& {
        return w.prio[p][q].drops[r];
      });
      drops[std::string(DropReasonName(static_cast<DropReason>(r)))] = v;
      total += v;
    }
    pj["drops"] = drops;
    pj["drops_total"] = total;
    port_drops += total;
    pj["queue_depth"] = rte_ring_count(pr.egress[q]);
    // Bytes queued (ring and stash), as ECN marking sees them; kept only
    // for queues with a WRED profile.
    if (sw.ecn && sw.CurrentTables()->ecn[p][q].enabled())
      pj["queue_bytes"] = stages::EcnDepth(sw, p, q);
    pj["buffer_bytes"] = sw.buffer.occupancy(p, q);
    pj["buffer_watermark"] = sw.buffer.watermark(p, q);
    // Every priority has the same fields (0 where a lossy group has no
    // XOFF/XON or headroom), so each live view can be an array by priority.
    // One reading of the pool for both, so XON is XOFF less the hysteresis
    // even while the workers move the pool.
    uint64_t xoff = 0, xon = 0;
    if (lossless) sw.buffer.Thresholds(p, q, &xoff, &xon);
    pj["xoff_threshold"] = xoff;
    pj["xon_threshold"] = xon;
    pj["headroom_used"] = lossless ? sw.buffer.headroom_used(p, q) : 0;
    pj["headroom_watermark"] = lossless ? sw.buffer.headroom_watermark(p, q) : 0;
    prios.push_back(pj);
  }
  j["drops_total"] = port_drops;
  j["prio"] = prios;
  return j;
}

nlohmann::json SwitchStatsJson(const sw::Switch& sw) {
  nlohmann::json j;
  j["generation"] = sw.generation();
  j["buffer_shared_used"] = sw.buffer.shared_used();
  j["buffer_shared_size"] = sw.buffer.shared_size();
  // The fabric's pool grows (switch/mbuf_pool.h): in use counts mbufs
  // taken out of the populated part; the size is its bound.
  j["pool_in_use"] = sw.dp.pool->populated_size - rte_mempool_avail_count(sw.dp.pool);
  j["pool_size"] = sw.dp.pool->size;
  j["pool_populated"] = sw.dp.pool->populated_size;
  for (const auto& w : sw.stats) {
    sw::ForEachWorkerCounter(
        *w, [&](const char* name, const sw::Counter& c) { AddTo(&j, name, c.Get()); });
  }
  return j;
}

nlohmann::json StatsJson(const sw::Switch& sw) {
  nlohmann::json j = SwitchStatsJson(sw);
  uint64_t drops = 0;
  nlohmann::json ports = nlohmann::json::array();
  for (PortId p = 0; p < sw.ports.size(); p++) {
    ports.push_back(PortStatsJson(sw, p));
    drops += ports.back()["drops_total"].get<uint64_t>();
  }
  j["ports"] = ports;
  j["drops_total"] = drops;
  return j;
}

}  // namespace pfc::pfcswitch
