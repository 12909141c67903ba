// SPDX-License-Identifier: BSD-3-Clause
// One switch: its ports, ingress buffer, neighbour table, published tables,
// running config and counters. pfcswitch runs one; the fabric emulator runs
// many in one process, all over the same Dataplane (pool, RCU, clock).
//
// Ownership and threads:
//  * cfg, name, port identities (I/O, MAC, address): written before workers
//    start, read-only after. cfg is the config the switch was created with
//    (ports, buffer sizes, workers: what a reload cannot change); a reload
//    does not update it. Workers never read it.
//  * tables: the published snapshot (tables_snapshot.h) of everything the
//    packet path reads, swapped by the control side (Publish, serialised by
//    publish_mu), read by workers once per round.
//  * buffer: atomic occupancy counters, charged by the ingress port's worker
//    and released by the egress port's worker.
//  * neighbors: lock-free ARP cache of learnt neighbours, written by workers
//    (ARP); configured neighbours are in the snapshot.
//  * PortRuntime::egress rings: multi-producer when several workers serve
//    the switch (any worker routes to any port), single-consumer (the port's
//    owner transmits). PortRuntime::control: frames the switch makes on the
//    packet path (ARP replies and requests, ICMP echo replies), sent by the
//    owner ahead of data; PFC frames do not wait there, the generator hands
//    them to the port directly.
//  * PortRuntime::owner_state: only the owning worker touches it.
//  * stats[w], held[w]: written by worker w only.
//  * mech: each mechanism's state; what is inside says who writes what
//    (DCFIT's: stages/dcfit_state.h).
#pragma once
#include <rte_ring.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dataplane/buffer/accountant.h"
#include "dataplane/config/config.h"
#include "dataplane/config/eal_needs.h"
#include "dataplane/switch/dataplane.h"
#include "dataplane/switch/held_queue.h"
#include "dataplane/switch/mechanism_state.h"
#include "dataplane/switch/port_io.h"
#include "dataplane/switch/port_state.h"
#include "dataplane/switch/stats.h"
#include "dataplane/switch/tables_snapshot.h"
#include "dataplane/tables/neighbor_table.h"

namespace pfc::sw {

// A line's alignment and what a round reads of every port it looks at
// first (its owner state, the device, the rings), so that is one line.
struct alignas(64) PortRuntime {
  std::unique_ptr<PortOwnerState> owner_state;
  PortIo io;
  rte_ring* egress[kNumPrio] = {};  // by egress (new-tag) priority
  rte_ring* control = nullptr;      // ARP/ICMP frames, sent ahead of data
  unsigned owner = 0;               // worker index that polls and transmits
  config::MacAddr mac{};
  uint32_t ipv4 = 0, mask = 0;
  uint64_t speed_bps = 0;
  std::string name;
};

class Switch {
 public:
  Switch(Dataplane& dp, std::string name, unsigned index)
      : dp(dp), name(std::move(name)), index(index) {}

  Dataplane& dp;
  const std::string name;  // "" for a standalone pfcswitch
  const unsigned index;    // in its process; names DPDK objects
  config::SwitchConfig cfg;
  std::vector<PortRuntime> ports;
  // The ports' addresses (PortRuntime::ipv4, 0 for none), sorted, each once:
  // what IsLocalAddress compares a packet for a connected subnet with, in a
  // line or two instead of a line a port. Set with the ports, never changed.
  std::vector<uint32_t> local_ipv4;
  buffer::BufferAccountant buffer;
  tables::NeighborTable neighbors{4096};
  std::vector<std::unique_ptr<WorkerStats>> stats;  // one per worker
  // Packets full lossless egress rings refused, one set per producing
  // worker (held_queue.h); only that worker touches its set.
  std::vector<std::unique_ptr<HeldQueues>> held;
  bool ecn = false;  // some egress queue marks ECN (stages/ecn_stage.h)
  // The pipeline mechanisms' own state (mechanism_state.h), by slot.
  MechanismSlots mech;

  const Tables* CurrentTables() const { return tables_.load(std::memory_order_acquire); }
  // Publishes a new snapshot and frees the old one after every worker has
  // passed a quiescent state. Control thread only; serialised internally.
  void Publish(std::unique_ptr<Tables> next);
  // Builds a complete snapshot from `next` (already validated: tag map,
  // rules, routes, static neighbours, packet-path settings) and publishes
  // it. All or nothing: on failure nothing changed and *err names the config
  // field. `cfg` is not touched (workers never read it); the caller keeps
  // the running config reloads apply on top of (pfcswitch/telemetry.cc).
  bool ApplyConfig(const config::SwitchConfig& next, std::string* err);
  uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }

  PktMeta* Meta(rte_mbuf* m) const { return dp.Meta(m); }

  ~Switch();

 private:
  std::atomic<const Tables*> tables_{nullptr};
  std::atomic<uint64_t> generation_{0};
  std::mutex publish_mu_;
};

// The devices CreateSwitch does not open: a port whose device names a
// provider (port_io.h) its creator owns, e.g. one end of an emulated link;
// null for the ethdev of that name. An empty function: every port is an
// ethdev.
using PortProviderLookup = std::function<PortProvider*(const std::string& device)>;

// The memory a switch with this config needs (config/eal_needs.h): mbufs
// for everything it can hold at once (buffer, descriptors of its devices as
// the drivers adjust them, rings, stashes), so the buffer accountant, not
// the pool, runs out first; and its egress ring size. A provided port has
// no descriptors. After rte_eal_init.
config::MemoryPlan PlanSwitchMemory(const config::SwitchConfig& cfg,
                                    const PortProviderLookup& provided);

// Builds a switch over `dp`: its ports (ethdev devices by name, or what
// `provided` returns for the device), rings, buffer and tables. Placement:
// with pin_worker >= 0 every port is owned by that worker (the fabric pins
// whole switches, so per-switch state has one writer); otherwise port i is
// owned by worker i mod dp.workers. nullptr with *err naming what failed.
std::unique_ptr<Switch> CreateSwitch(Dataplane& dp, const config::SwitchConfig& cfg,
                                     const std::string& name, unsigned index, int pin_worker,
                                     const PortProviderLookup& provided, std::string* err);

// pfcswitch's process (also the stage tests' and benchmarks'): a Dataplane
// sized for one switch with cfg.workers workers, and the switch over it
// (ports spread over the workers). Destroy *sw before *dp.
bool CreateStandalone(const config::SwitchConfig& cfg, std::unique_ptr<Dataplane>* dp,
                      std::unique_ptr<Switch>* sw, std::string* err);

}  // namespace pfc::sw
