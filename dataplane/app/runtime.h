// SPDX-License-Identifier: BSD-3-Clause
// Everything the running switch owns, built once on the main thread after the
// config validated and EAL started, torn down at exit.
//
// Ownership and threads:
//  * cfg, port identities (DPDK id, MAC, address): written before workers
//    start, read-only after.
//  * tables: the published snapshot (tables_snapshot.h), swapped by the
//    control side (Publish, serialised by publish_mu), read by workers.
//  * buffer: atomic occupancy counters, charged by the ingress port's worker
//    and released by the egress port's worker.
//  * neighbors: lock-free ARP cache, written by workers (ARP) and control.
//  * PortRuntime::egress/control rings: multi-producer (any worker routes to
//    any port), single-consumer (the port's owner transmits).
//  * PortRuntime::owner_state: only the owning worker touches it.
//  * stats[w]: written by worker w only.
#pragma once
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dataplane/app/port_state.h"
#include "dataplane/app/stats.h"
#include "dataplane/app/tables_snapshot.h"
#include "dataplane/buffer/accountant.h"
#include "dataplane/config/config.h"
#include "dataplane/tables/neighbor_table.h"

namespace pfc {

// Per-packet metadata kept in an mbuf dynamic field from admission until the
// packet leaves: which ingress priority group to release.
struct PktMeta {
  uint16_t in_port;
  uint8_t in_prio;
  uint8_t flags;
  uint32_t charged;   // bytes charged to the buffer (cell-rounded)
};

struct PortRuntime {
  std::string name;
  uint16_t dpdk_port = 0;
  MacAddr mac{};
  uint32_t ipv4 = 0, mask = 0;
  uint64_t speed_bps = 0;
  unsigned owner = 0;                 // worker index that polls and transmits
  rte_ring* egress[kNumPrio] = {};    // by egress (new-tag) priority
  rte_ring* control = nullptr;        // PFC and ARP frames, sent ahead of data
  std::unique_ptr<PortOwnerState> owner_state;
};

class Runtime {
 public:
  SwitchConfig cfg;
  std::vector<PortRuntime> ports;
  BufferAccountant buffer;
  NeighborTable neighbors{4096};
  rte_mempool* pool = nullptr;
  rte_rcu_qsbr* qsbr = nullptr;
  std::vector<std::unique_ptr<WorkerStats>> stats;
  std::atomic<bool> stop{false};
  uint64_t tsc_hz = 0;
  uint64_t ns_mult = 0;               // ns per TSC cycle, 32.32 fixed point
  int meta_off = -1;                  // mbuf dynfield offset of PktMeta

  const Tables* CurrentTables() const { return tables_.load(std::memory_order_acquire); }
  // Publishes a new snapshot and frees the old one after every worker has
  // passed a quiescent state. Control thread only; serialised internally.
  void Publish(std::unique_ptr<Tables> next);
  // Builds tables from `next` (already validated), publishes, and adopts its
  // routes/rules/neighbors as the new running config.
  bool ApplyConfig(const SwitchConfig& next, std::string* err);
  uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }

  PktMeta* Meta(rte_mbuf* m) const { return RTE_MBUF_DYNFIELD(m, meta_off, PktMeta*); }
  uint64_t NowNs() const;

  ~Runtime();

 private:
  std::atomic<const Tables*> tables_{nullptr};
  std::atomic<uint64_t> generation_{0};
  std::mutex publish_mu_;
};

// Builds the runtime: ports (by DPDK device name), mempool, rings, RCU,
// tables. Returns nullptr with *err naming what failed.
std::unique_ptr<Runtime> CreateRuntime(const SwitchConfig& cfg, std::string* err);

}  // namespace pfc
