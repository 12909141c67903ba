// SPDX-License-Identifier: BSD-3-Clause
// Switch construction: ports (DPDK devices or emulated link ends), egress
// rings, the buffer accountant and tables; and the memory a config needs
// (the pool is sized so the buffer accountant runs out before the pool can,
// see config/eal_needs.h).
#include "dataplane/switch/switch.h"

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "dataplane/config/eal_needs.h"
#include "dataplane/switch/heap_ring.h"
#include "dataplane/switch/log.h"

namespace pfc::sw {
namespace {

// The memory plan computes DPDK's object layout without DPDK; keep it honest.
static_assert(sizeof(rte_mbuf) == config::kMbufStructBytes);
static_assert(RTE_PKTMBUF_HEADROOM == config::kMbufHeadroom);
static_assert(RTE_MBUF_DEFAULT_DATAROOM == config::kMbufDefaultRoom);
static_assert(TxStash::kCap == config::kTxStashSlots);

std::string AvailablePorts() {
  std::string s;
  uint16_t pid;
  RTE_ETH_FOREACH_DEV(pid) {
    char name[RTE_ETH_NAME_MAX_LEN];
    if (rte_eth_dev_get_name_by_port(pid, name) == 0)
      s += std::string(s.empty() ? "" : ", ") + name;
  }
  return s.empty() ? "none (pass --vdev or a PCI device to EAL)" : s;
}

// What to tell a user whose config names a device EAL does not have.
std::string MissingDeviceHint(const std::string& device) {
  if (config::IsPciAddress(device))
    return "bind " + device + " to a DPDK driver (dpdk-devbind.py) and do not block it (-b)";
  return "give EAL --vdev " + device + ",... before -- (e.g. --vdev " + device +
         ",iface=eth0 for af_packet)";
}

// Descriptor counts for pid after the driver's limits, asked before the pool
// is sized (the pool must cover every rx descriptor).
void AdjustedDesc(uint16_t pid, uint16_t* nrx, uint16_t* ntx) {
  *nrx = config::kRxDesc;
  *ntx = config::kTxDesc;
  rte_eth_dev_adjust_nb_rx_tx_desc(pid, nrx, ntx);
}

// Drivers whose receive interrupts the workers use (stages/worker.cc):
// net_vhost's is the guest's kick, which a guest sends only while the
// switch asks for it (rte_eth_dev_rx_intr_enable). Others stay polled.
bool WantsRxInterrupts(uint16_t pid) {
  rte_eth_dev_info info;
  return rte_eth_dev_info_get(pid, &info) == 0 && info.driver_name != nullptr &&
         std::strcmp(info.driver_name, "net_vhost") == 0;
}

// Configures and starts DPDK port `pid` (found by CreateSwitch) for pc.
bool SetupPort(const config::PortConfig& pc, size_t idx, uint16_t pid, rte_mempool* pool,
               bool rx_interrupts, PortRuntime* pr, std::string* err) {
  const std::string f = "ports[" + std::to_string(idx) + "].device '" + pc.device + "'";
  pr->io.dpdk_port = pid;
  rte_eth_conf conf{};
  pr->io.rx_intr = rx_interrupts && WantsRxInterrupts(pid);
  conf.intr_conf.rxq = pr->io.rx_intr ? 1 : 0;
  if (int rc = rte_eth_dev_configure(pid, 1, 1, &conf); rc != 0) {
    *err = f + ": rte_eth_dev_configure failed: " + rte_strerror(-rc);
    return false;
  }
  uint16_t nrx, ntx;
  AdjustedDesc(pid, &nrx, &ntx);
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

void Switch::Publish(std::unique_ptr<Tables> next) {
  std::lock_guard<std::mutex> g(publish_mu_);
  const Tables* old = tables_.exchange(next.release(), std::memory_order_acq_rel);
  generation_.fetch_add(1, std::memory_order_relaxed);
  if (old == nullptr) return;
  // Grace period: every online worker passes a quiescent state (it finished
  // the round that may have used `old`) before it is freed.
  uint64_t token = rte_rcu_qsbr_start(dp.qsbr);
  rte_rcu_qsbr_check(dp.qsbr, token, true);
  delete old;
}

bool Switch::ApplyConfig(const config::SwitchConfig& next, std::string* err) {
  auto t = Tables::Build(next, generation() + 1, err);
  if (!t) return false;
  Publish(std::move(t));
  return true;
}

Switch::~Switch() {
  // At the process's end the frames go with the pool and the rings with
  // the process (Dataplane::process_ending): devices are still stopped.
  const bool ending = dp.process_ending;
  if (!ending)
    for (auto& h : held) h->FreeAll();
  for (auto& p : ports) {
    // Stopped, not closed: the owner of the process closes devices (after
    // every switch, before the pool goes: a driver such as pcap frees the
    // mbufs it caches on close).
    if (p.io.ethdev()) rte_eth_dev_stop(p.io.dpdk_port);
    if (ending) continue;
    for (auto* r : p.egress) {
      if (!r) continue;
      rte_mbuf* m;
      while (rte_ring_dequeue(r, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
      FreeHeapRing(r);
    }
    if (p.control) {
      rte_mbuf* m;
      while (rte_ring_dequeue(p.control, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
      FreeHeapRing(p.control);
    }
    if (p.owner_state) {
      auto free_stash = [](TxStash& st) {
        for (int i = 0; i < st.n; i++) rte_pktmbuf_free(st.pkts[(st.head + i) % TxStash::kCap]);
      };
      for (TxStash& st : p.owner_state->data_stash) free_stash(st);
      free_stash(p.owner_state->ctrl_stash);
    }
  }
  delete tables_.load();
}

config::MemoryPlan PlanSwitchMemory(const config::SwitchConfig& cfg,
                                    const PortProviderLookup& provided) {
  config::EalNeedsInput need;
  need.hugepages = rte_eal_has_hugepages() != 0;
  need.rx_desc = 0;
  need.tx_desc = 0;
  for (const config::PortConfig& pc : cfg.ports) {
    uint16_t pid;
    if (provided && provided(pc.device) != nullptr) continue;  // no descriptors
    if (rte_eth_dev_get_port_by_name(pc.device.c_str(), &pid) != 0)
      continue;  // CreateSwitch says so
    uint16_t nrx, ntx;
    AdjustedDesc(pid, &nrx, &ntx);
    *need.rx_desc += nrx;
    *need.tx_desc += ntx;
  }
  return config::PlanMemory(cfg, need);
}

std::unique_ptr<Switch> CreateSwitch(Dataplane& dp, const config::SwitchConfig& cfg,
                                     const std::string& name, unsigned index, int pin_worker,
                                     const PortProviderLookup& provided, std::string* err) {
  // Find every device (naming each missing one) before allocating anything.
  const size_t nports = cfg.ports.size();
  std::vector<uint16_t> pids(nports);
  std::vector<PortProvider*> providers(nports, nullptr);
  for (size_t i = 0; i < nports; i++) {
    const config::PortConfig& pc = cfg.ports[i];
    if (provided) providers[i] = provided(pc.device);
    if (providers[i] != nullptr) continue;
    if (rte_eth_dev_get_port_by_name(pc.device.c_str(), &pids[i]) != 0) {
      *err = "port " + pc.name + " (ports[" + std::to_string(i) + "].device): device '" +
             pc.device + "' is not a DPDK port (EAL has: " + AvailablePorts() +
             "): " + MissingDeviceHint(pc.device);
      return nullptr;
    }
  }
  auto sw = std::make_unique<Switch>(dp, name, index);
  sw->cfg = cfg;
  if (!sw->buffer.Configure(cfg.buffer, err)) return nullptr;

  const uint64_t ring_sz = PlanSwitchMemory(cfg, provided).egress_ring_slots;
  // One worker is the only producer: skip the multi-producer CAS.
  const bool one_producer = pin_worker >= 0 || dp.workers == 1;
  const std::string prefix = "s" + std::to_string(index) + "_";

  sw->ports.resize(nports);
  for (size_t i = 0; i < nports; i++) {
    PortRuntime& pr = sw->ports[i];
    const config::PortConfig& pc = cfg.ports[i];
    pr.name = pc.name;
    pr.ipv4 = pc.ipv4;
    sw->local_ipv4.push_back(pc.ipv4);
    pr.mask = pc.prefix_len ? 0xffffffffu << (32 - pc.prefix_len) : 0;
    pr.speed_bps = pc.speed_bps;
    pr.owner =
        pin_worker >= 0 ? static_cast<unsigned>(pin_worker) : static_cast<unsigned>(i % dp.workers);
    if (providers[i] != nullptr) {
      // No device to read a MAC from.
      if (!pc.has_mac) {
        *err = "ports[" + std::to_string(i) +
               "].mac: expected a MAC for a port without a device (" + pc.device + ")";
        return nullptr;
      }
      pr.io.provider = providers[i];
      std::memcpy(pr.mac.data(), pc.mac.data(), 6);
    } else if (!SetupPort(pc, i, pids[i], dp.pool, cfg.rx_interrupts, &pr, err)) {
      return nullptr;
    }
    for (int q = 0; q < kNumPrio; q++) {
      std::string rn = prefix + "eg_" + std::to_string(i) + "_" + std::to_string(q);
      const unsigned flags = RING_F_SC_DEQ | (one_producer ? RING_F_SP_ENQ : 0);
      pr.egress[q] = CreateHeapRing(rn, sizeof(void*), static_cast<unsigned>(ring_sz), flags,
                                    dp.own_memory, err);
      if (!pr.egress[q]) return nullptr;
    }
    std::string cn = prefix + "ctl_" + std::to_string(i);
    pr.control =
        CreateHeapRing(cn, sizeof(void*), config::kControlRing, RING_F_SC_DEQ, dp.own_memory, err);
    if (!pr.control) return nullptr;
    pr.owner_state = std::make_unique<PortOwnerState>();
    pr.owner_state->sched.Configure(pc.sched, 0);
    // Received quanta are timed at the rate our egress really runs at.
    pr.owner_state->pause_bps = pc.sched.shaper_bps ? pc.sched.shaper_bps : pc.speed_bps;
    // The generator runs on the priorities the port enables (pfc_enable);
    // pause requests for the lossless priorities it does not are ignored.
    const pause::PfcGenConfig gc = config::PfcGenFor(cfg, pc);
    pr.owner_state->pfc_ignore_rx =
        static_cast<uint8_t>(cfg.tag_map.lossless_mask & ~gc.lossless_mask);
    if (!pr.owner_state->pfc_gen.Configure(gc, err)) {
      *err = "ports[" + std::to_string(i) + "] pfc: " + *err;
      return nullptr;
    }
  }

  std::sort(sw->local_ipv4.begin(), sw->local_ipv4.end());
  sw->local_ipv4.erase(std::unique(sw->local_ipv4.begin(), sw->local_ipv4.end()),
                       sw->local_ipv4.end());
  for (unsigned w = 0; w < dp.workers; w++) sw->stats.push_back(std::make_unique<WorkerStats>());
  for (unsigned w = 0; w < dp.workers; w++)
    sw->held.push_back(std::make_unique<HeldQueues>(nports));
  sw->ecn = cfg.ecn.any();
  if (!sw->ApplyConfig(cfg, err)) {
    *err = cfg.path + ": " + *err;
    return nullptr;
  }
  return sw;
}

bool CreateStandalone(const config::SwitchConfig& cfg, std::unique_ptr<Dataplane>* dp,
                      std::unique_ptr<Switch>* sw, std::string* err) {
  const config::MemoryPlan plan = PlanSwitchMemory(cfg, nullptr);
  *dp = CreateDataplane(cfg.workers, plan.mbufs, static_cast<uint16_t>(plan.data_room), err);
  if (!*dp) {
    *err = "cannot allocate the mbuf pool (" + *err + "): the config " + plan.Describe() +
           ": start EAL with -m " + std::to_string(plan.EalMb()) +
           " or more, or lower buffer.total_bytes or raise buffer.cell_bytes";
    return false;
  }
  (*dp)->idle_sleep_us = cfg.idle_sleep_us;
  (*dp)->interrupt_sleep_ms = cfg.interrupt_sleep_ms;
  // The plan mirrors DPDK's object layout; say so if a DPDK build differs.
  rte_mempool_objsz objsz;
  rte_mempool_calc_obj_size(sizeof(rte_mbuf) + plan.data_room, 0, &objsz);
  if (objsz.total_size > plan.obj_bytes)
    PFC_LOG(NOTICE, switch,
            "pfcswitch: note: mbuf objects are %u B, the memory plan assumed %u B\n",
            objsz.total_size, plan.obj_bytes);
  *sw = CreateSwitch(**dp, cfg, "", 0, -1, nullptr, err);
  if (*sw) return true;
  dp->reset();
  return false;
}

}  // namespace pfc::sw
