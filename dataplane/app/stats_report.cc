// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/app/stats_report.h"

#include <rte_ethdev.h>

namespace pfc {
namespace {

template <typename F>
uint64_t Sum(const Runtime& rt, F f) {
  uint64_t s = 0;
  for (const auto& w : rt.stats) s += f(*w).Get();
  return s;
}

}  // namespace

nlohmann::json PortStatsJson(const Runtime& rt, PortId p) {
  using nlohmann::json;
  json j;
  const PortRuntime& pr = rt.ports[p];
  j["name"] = pr.name;
#define PORT_CTR(f) j[#f] = Sum(rt, [&](const WorkerStats& w) -> const Counter& { return w.port[p].f; })
  PORT_CTR(rx_packets); PORT_CTR(rx_bytes); PORT_CTR(tx_packets); PORT_CTR(tx_bytes);
  PORT_CTR(arp_rx); PORT_CTR(arp_reply_tx); PORT_CTR(arp_request_tx); PORT_CTR(icmp_echo_reply);
  PORT_CTR(ipv4_options); PORT_CTR(ipv4_fragments); PORT_CTR(non_ip);
  PORT_CTR(pfc_frames_rx); PORT_CTR(pause_8023x_rx); PORT_CTR(pfc_frames_tx);
#undef PORT_CTR
  // What the device itself lost or refused, before the switch could count a
  // packet (e.g. an AF_PACKET ring overflowing while the worker was not
  // running): reported beside the switch's own drop reasons.
  rte_eth_stats ds{};
  if (rte_eth_stats_get(pr.dpdk_port, &ds) == 0) {
    j["dev_rx_missed"] = ds.imissed;
    j["dev_rx_errors"] = ds.ierrors;
    j["dev_rx_nombuf"] = ds.rx_nombuf;
    j["dev_tx_errors"] = ds.oerrors;
  }
  uint64_t port_drops = 0;
  json prios = json::array();
  for (int q = 0; q < kNumPrio; q++) {
    json pj;
    pj["prio"] = q;
    pj["lossless"] = rt.cfg.tag_map.IsLossless(q);
#define PRIO_CTR(f) pj[#f] = Sum(rt, [&](const WorkerStats& w) -> const Counter& { return w.prio[p][q].f; })
    PRIO_CTR(rx_packets); PRIO_CTR(rx_bytes); PRIO_CTR(tx_packets); PRIO_CTR(tx_bytes);
    PRIO_CTR(lossy_fallback); PRIO_CTR(rewrites); PRIO_CTR(to_lossy_tag);
    PRIO_CTR(pfc_xoff_tx); PRIO_CTR(pfc_xon_tx); PRIO_CTR(pfc_refresh_tx);
    PRIO_CTR(pfc_xoff_rx); PRIO_CTR(pfc_xon_rx);
    PRIO_CTR(paused_ns); PRIO_CTR(pausing_ns); PRIO_CTR(paused_now); PRIO_CTR(pausing_now);
#undef PRIO_CTR
    json drops = json::object();
    uint64_t total = 0;
    for (int r = 0; r < kNumDropReasons; r++) {
      uint64_t v = Sum(rt, [&](const WorkerStats& w) -> const Counter& { return w.prio[p][q].drops[r]; });
      drops[std::string(DropReasonName(static_cast<DropReason>(r)))] = v;
      total += v;
    }
    pj["drops"] = drops;
    pj["drops_total"] = total;
    port_drops += total;
    pj["queue_depth"] = rte_ring_count(pr.egress[q]);
    pj["buffer_bytes"] = rt.buffer.occupancy(p, q);
    pj["buffer_watermark"] = rt.buffer.watermark(p, q);
    // Every priority has the same fields (0 where a lossy group has no
    // XOFF/XON or headroom), so each live view can be an array by priority.
    const bool lossless = rt.cfg.tag_map.IsLossless(q);
    pj["xoff_threshold"] = lossless ? rt.buffer.XoffThreshold(p, q) : 0;
    pj["xon_threshold"] = lossless ? rt.buffer.XonThreshold(p, q) : 0;
    pj["headroom_used"] = lossless ? rt.buffer.headroom_used(p, q) : 0;
    pj["headroom_watermark"] = lossless ? rt.buffer.headroom_watermark(p, q) : 0;
    prios.push_back(pj);
  }
  j["drops_total"] = port_drops;
  j["prio"] = prios;
  return j;
}

nlohmann::json SwitchStatsJson(const Runtime& rt) {
  nlohmann::json j;
  j["generation"] = rt.generation();
  j["buffer_shared_used"] = rt.buffer.shared_used();
  j["buffer_shared_size"] = rt.buffer.shared_size();
  j["pool_in_use"] = rte_mempool_in_use_count(rt.pool);
  j["pool_size"] = rt.pool->size;
  uint64_t loops = 0, sleeps = 0;
  for (const auto& w : rt.stats) {
    loops += w->loops.Get();
    sleeps += w->idle_sleeps.Get();
  }
  j["worker_loops"] = loops;
  j["idle_sleeps"] = sleeps;
  return j;
}

nlohmann::json StatsJson(const Runtime& rt) {
  nlohmann::json j = SwitchStatsJson(rt);
  uint64_t drops = 0;
  nlohmann::json ports = nlohmann::json::array();
  for (PortId p = 0; p < rt.ports.size(); p++) {
    ports.push_back(PortStatsJson(rt, p));
    drops += ports.back()["drops_total"].get<uint64_t>();
  }
  j["ports"] = ports;
  j["drops_total"] = drops;
  return j;
}

}  // namespace pfc
