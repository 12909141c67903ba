// SPDX-License-Identifier: BSD-3-Clause
// Runtime construction: DPDK ports, the mbuf pool (sized so the buffer
// accountant runs out before the pool can), egress rings, RCU, tables.
#include "dataplane/app/runtime.h"

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include <algorithm>
#include <cstring>

namespace pfc {
namespace {

constexpr uint16_t kRxDesc = 1024, kTxDesc = 1024;
constexpr unsigned kControlRing = 256;
constexpr uint64_t kRingMemoryBudget = 32ull << 20;   // all egress rings together

std::string AvailablePorts() {
  std::string s;
  uint16_t pid;
  RTE_ETH_FOREACH_DEV(pid) {
    char name[RTE_ETH_NAME_MAX_LEN];
    if (rte_eth_dev_get_name_by_port(pid, name) == 0) s += std::string(s.empty() ? "" : ", ") + name;
  }
  return s.empty() ? "none (pass --vdev or a PCI device to EAL)" : s;
}

// Configures and starts DPDK port `pid` (found by CreateRuntime) for pc.
bool SetupPort(const PortConfig& pc, size_t idx, uint16_t pid, rte_mempool* pool, PortRuntime* pr,
               std::string* err) {
  const std::string f = "ports[" + std::to_string(idx) + "].device '" + pc.device + "'";
  pr->dpdk_port = pid;
  rte_eth_conf conf{};
  if (int rc = rte_eth_dev_configure(pid, 1, 1, &conf); rc != 0) {
    *err = f + ": rte_eth_dev_configure failed: " + rte_strerror(-rc);
    return false;
  }
  uint16_t nrx = kRxDesc, ntx = kTxDesc;
  rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
  int sock = rte_eth_dev_socket_id(pid);
  if (sock < 0) sock = 0;
  if (int rc = rte_eth_rx_queue_setup(pid, 0, nrx, sock, nullptr, pool); rc != 0) {
    *err = f + ": rx queue setup failed: " + rte_strerror(-rc);
    return false;
  }
  if (int rc = rte_eth_tx_queue_setup(pid, 0, ntx, sock, nullptr); rc != 0) {
    *err = f + ": tx queue setup failed: " + rte_strerror(-rc);
    return false;
  }
  if (pc.mtu != 1500) {
    if (int rc = rte_eth_dev_set_mtu(pid, pc.mtu); rc != 0) {
      *err = f + ": cannot set mtu " + std::to_string(pc.mtu) + ": " + rte_strerror(-rc);
      return false;
    }
  }
  rte_ether_addr mac;
  if (pc.has_mac) {
    std::memcpy(mac.addr_bytes, pc.mac.data(), 6);
  } else if (rte_eth_macaddr_get(pid, &mac) != 0) {
    *err = f + ": cannot read the device MAC (set ports[].mac)";
    return false;
  }
  std::memcpy(pr->mac.data(), mac.addr_bytes, 6);
  if (int rc = rte_eth_dev_start(pid); rc != 0) {
    *err = f + ": start failed: " + rte_strerror(-rc);
    return false;
  }
  // A switch port takes every frame; the L3 stage filters by destination MAC
  // itself (the software MAC may differ from the device's).
  rte_eth_promiscuous_enable(pid);
  return true;
}

}  // namespace

uint64_t Runtime::NowNs() const {
  // A multiply, not a 128-bit division: this runs after every rx burst.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rte_get_tsc_cycles()) * ns_mult) >> 32);
}

void Runtime::Publish(std::unique_ptr<Tables> next) {
  std::lock_guard<std::mutex> g(publish_mu_);
  const Tables* old = tables_.exchange(next.release(), std::memory_order_acq_rel);
  generation_.fetch_add(1, std::memory_order_relaxed);
  if (old == nullptr) return;
  // Grace period: every online worker passes a quiescent state (it finished
  // the round that may have used `old`) before it is freed.
  uint64_t token = rte_rcu_qsbr_start(qsbr);
  rte_rcu_qsbr_check(qsbr, token, true);
  delete old;
}

bool Runtime::ApplyConfig(const SwitchConfig& next, std::string* err) {
  auto t = Tables::Build(next, generation() + 1, err);
  if (!t) return false;
  for (const auto& nb : next.neighbors) {
    if (!neighbors.Learn(nb.ip, nb.mac.data(), true)) {
      *err = "neighbor table full";
      return false;
    }
  }
  Publish(std::move(t));
  return true;
}

Runtime::~Runtime() {
  for (auto& p : ports) {
    rte_eth_dev_stop(p.dpdk_port);
    for (auto* r : p.egress) {
      if (!r) continue;
      rte_mbuf* m;
      while (rte_ring_dequeue(r, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
      rte_ring_free(r);
    }
    if (p.control) {
      rte_mbuf* m;
      while (rte_ring_dequeue(p.control, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
      rte_ring_free(p.control);
    }
    if (p.owner_state) {
      for (auto* st : {&p.owner_state->data_stash, &p.owner_state->ctrl_stash})
        for (int i = 0; i < st->n; i++) rte_pktmbuf_free(st->pkts[(st->head + i) % TxStash::kCap]);
    }
  }
  delete tables_.load();
  if (qsbr) rte_free(qsbr);
  // Ports are stopped, rings and stashes drained: every mbuf is home.
  if (pool) rte_mempool_free(pool);
}

std::unique_ptr<Runtime> CreateRuntime(const SwitchConfig& cfg, std::string* err) {
  // Find every device (naming each missing one) before allocating anything.
  std::vector<uint16_t> pids(cfg.ports.size());
  for (size_t i = 0; i < cfg.ports.size(); i++) {
    if (rte_eth_dev_get_port_by_name(cfg.ports[i].device.c_str(), &pids[i]) != 0) {
      *err = "ports[" + std::to_string(i) + "].device '" + cfg.ports[i].device +
             "': no such DPDK port (available: " + AvailablePorts() + ")";
      return nullptr;
    }
  }
  auto rt = std::make_unique<Runtime>();
  rt->cfg = cfg;
  rt->tsc_hz = rte_get_tsc_hz();
  rt->ns_mult = static_cast<uint64_t>((static_cast<unsigned __int128>(1000000000u) << 32) / rt->tsc_hz);
  if (!rt->buffer.Configure(cfg.buffer, err)) return nullptr;

  static const rte_mbuf_dynfield kMetaField = {"pfcswitch_pkt_meta", sizeof(PktMeta), alignof(PktMeta), 0};
  rt->meta_off = rte_mbuf_dynfield_register(&kMetaField);
  if (rt->meta_off < 0) {
    *err = "cannot register the mbuf metadata field";
    return nullptr;
  }

  // Every admitted packet holds at least one buffer cell, so a pool of
  // (cells + every descriptor + slack) cannot run dry before the accountant
  // refuses a packet: no silent loss at rx.
  const size_t nports = cfg.ports.size();
  const uint64_t cells = cfg.buffer.total_bytes / cfg.cell_bytes + 1;
  const uint64_t nmbufs = cells + nports * (kRxDesc + kTxDesc + kControlRing + 4 * kMaxBurst) + 1024;
  uint32_t max_frame = 0;
  for (const auto& p : cfg.ports) max_frame = std::max(max_frame, p.mtu + 18 + 4);
  uint16_t room = static_cast<uint16_t>(std::max<uint32_t>(RTE_MBUF_DEFAULT_DATAROOM, max_frame) + RTE_PKTMBUF_HEADROOM);
  rt->pool = rte_pktmbuf_pool_create("pfc_pool", static_cast<unsigned>(nmbufs), 256, 0, room, rte_socket_id());
  if (!rt->pool) {
    *err = "cannot allocate " + std::to_string(nmbufs) + " mbufs for buffer.total_bytes=" +
           std::to_string(cfg.buffer.total_bytes) + " (cell " + std::to_string(cfg.cell_bytes) +
           "): give EAL more memory (-m) or lower buffer.total_bytes: " + rte_strerror(rte_errno);
    return nullptr;
  }

  uint64_t ring_sz = rte_align64pow2(cells + 1);
  uint64_t cap = rte_align64prevpow2(kRingMemoryBudget / 8 / (nports * kNumPrio));
  ring_sz = std::clamp<uint64_t>(std::min(ring_sz, cap), 256, 1u << 20);

  rt->ports.resize(nports);
  for (size_t i = 0; i < nports; i++) {
    PortRuntime& pr = rt->ports[i];
    const PortConfig& pc = cfg.ports[i];
    pr.name = pc.name;
    pr.ipv4 = pc.ipv4;
    pr.mask = pc.prefix_len ? 0xffffffffu << (32 - pc.prefix_len) : 0;
    pr.speed_bps = pc.speed_bps;
    pr.owner = static_cast<unsigned>(i % cfg.workers);
    if (!SetupPort(pc, i, pids[i], rt->pool, &pr, err)) return nullptr;
    for (int q = 0; q < kNumPrio; q++) {
      std::string rn = "eg_" + std::to_string(i) + "_" + std::to_string(q);
      // One worker is the only producer: skip the multi-producer CAS.
      const unsigned flags = RING_F_SC_DEQ | (cfg.workers == 1 ? RING_F_SP_ENQ : 0);
      pr.egress[q] = rte_ring_create(rn.c_str(), static_cast<unsigned>(ring_sz), rte_socket_id(), flags);
      if (!pr.egress[q]) {
        *err = "cannot create egress ring " + rn + ": " + rte_strerror(rte_errno);
        return nullptr;
      }
    }
    std::string cn = "ctl_" + std::to_string(i);
    pr.control = rte_ring_create(cn.c_str(), kControlRing, rte_socket_id(), RING_F_SC_DEQ);
    if (!pr.control) {
      *err = "cannot create control ring: " + std::string(rte_strerror(rte_errno));
      return nullptr;
    }
    pr.owner_state = std::make_unique<PortOwnerState>();
    pr.owner_state->sched.Configure(pc.sched, 0);
    // Received quanta are timed at the rate our egress really runs at.
    pr.owner_state->pause_bps = pc.sched.shaper_bps ? pc.sched.shaper_bps : pc.speed_bps;
    if (!pr.owner_state->pfc_gen.Configure(PfcGenFor(cfg, pc), err)) {
      *err = "ports[" + std::to_string(i) + "] pfc: " + *err;
      return nullptr;
    }
  }

  size_t qsz = rte_rcu_qsbr_get_memsize(cfg.workers);
  rt->qsbr = static_cast<rte_rcu_qsbr*>(rte_zmalloc("pfc_qsbr", qsz, RTE_CACHE_LINE_SIZE));
  if (!rt->qsbr || rte_rcu_qsbr_init(rt->qsbr, cfg.workers) != 0) {
    *err = "cannot initialise RCU";
    return nullptr;
  }
  for (unsigned w = 0; w < cfg.workers; w++) rt->stats.push_back(std::make_unique<WorkerStats>());
  if (!rt->ApplyConfig(cfg, err)) return nullptr;
  return rt;
}

}  // namespace pfc
