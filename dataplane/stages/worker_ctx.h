// SPDX-License-Identifier: BSD-3-Clause
// What one worker lcore carries from stage to stage for one switch it
// serves: the switch, its own counters for that switch, the ports of the
// switch it owns (polls and transmits), the table snapshot and clock of the
// current round and a small ARP-request rate limiter. A worker serving several switches (the
// fabric emulator) has one WorkerCtx per switch, in a fixed order (Worker).
// Owned by exactly one worker.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "dataplane/buffer/accountant.h"
#include "dataplane/common/deadline.h"
#include "dataplane/stages/hooks.h"
#include "dataplane/switch/switch.h"

namespace pfc::stages {

// Which ports a worker's rounds visit, a policy its driver may install
// (WorkerCtx::active) when ActivePortsAllowed: `rx`, ports with frames on
// their way in (their provider sets the bit when it sends a frame towards
// the port; a round clears it when none is left), and `tx`, ports whose
// egress round may do something (set when the port received, when
// something is queued to it (MarkQueued) and by the driver; cleared when a
// round finds the port quiet with its provider's transmit side idle). What
// a round skips would change nothing and report no deadline, so skipping it
// changes no result, and a hop costs the same at every radix. Owned by the
// driver, written by the worker and the ports' providers in its rounds.
struct ActivePorts {
  PortMask rx = 0, tx = 0;
  // When the next frame on its way to port p lands (.at, kNever for none)
  // and which frame it is (a prefetch hint): set by the port's provider as
  // it sends a frame towards the port (the earlier of the two), and by a
  // round to what is left after it took the frames landed by then. A round
  // compares it with its clock instead of asking the provider, whose
  // receive state is several cache lines a port; a port with nothing on its
  // way (kNever) leaves `rx`.
  std::array<sw::Landing, kMaxPorts> next_rx{};
};

// kWorkerAlign-aligned: a worker writes its context every round (clock,
// snapshot, pool slack); nothing of another worker may share those lines.
// What every round reads comes first, with the hooks' summary (Hooks::
// present) in the first line; the hook lists, slot tables and ARP limiter
// after.
struct alignas(kWorkerAlign) WorkerCtx {
  sw::Switch* sw = nullptr;
  sw::WorkerStats* st = nullptr;  // sw->stats[id]
  // The published snapshot for the current poll round (loaded once per
  // round, valid until the worker reports quiescence): every setting a stage
  // reads comes from here, never from sw->cfg.
  const sw::Tables* t = nullptr;
  uint64_t now_ns = 0;  // clock of the current poll round
  // The ports rounds visit, when the driver installed a set; null: every
  // owned port.
  ActivePorts* active = nullptr;
  // What full lossless egress rings refused from this worker's ingress,
  // waiting in order (switch/held_queue.h); sw->held[id].
  sw::HeldQueues* held = nullptr;
  // This worker serves every port of sw: whatever queues to a port's rings
  // runs on the port's owner, so owner-only state can track it (the rings
  // a port's `queued` mask names).
  bool solo = false;
  // solo, and no other thread reads the rings' positions either (the
  // fabric emulator's rings, Dataplane::own_memory: no stats thread counts
  // them): an emptied egress ring may start again at its first slot
  // (stages/egress.cc, rte_ring_reset).
  bool private_rings = false;
  // The current round stopped short of something due now: an rx burst came
  // back full, or an egress took a whole burst (data or control frames).
  // Set by the stages, cleared when a round starts; see RoundLeftWork.
  bool burst_full = false;
  // The features plugged into this switch's pipeline (hooks.h).
  Hooks hooks;
  // This worker's unpublished change of sw's shared pool (accountant.h);
  // published by the batches past the slack and by an idle round.
  buffer::PoolSlack pool_slack;
  unsigned id = 0;            // worker index (RCU thread id, stats slot)
  PortMask owned = 0;         // `ports` as a mask (up to kMaxPorts)
  std::vector<PortId> ports;  // owned ports of sw
  // (port, priority) slot tables the burst loops keep between bursts
  // (SlotTable): EgressPort's release batch, the ingress burst's undo batch
  // and its grouping by (out port, egress priority). One user each.
  buffer::SlotTable egress_rel_slots, ingress_undo_slots, ingress_group_slots;
  // The mechanisms' state for this worker (switch/mechanism_state.h,
  // stages/mechanism.h), by slot.
  sw::MechanismSlots mech;
  // ARP requests for unresolved next hops: at most one per address per
  // kArpRetryNs, so a burst to an unknown host does not become an ARP storm.
  static constexpr uint64_t kArpRetryNs = 100'000'000;
  std::array<uint32_t, 64> arp_ip{};
  std::array<uint64_t, 64> arp_last_ns{};
};

// Builds the context of worker `id` for `sw`: the ports the switch placed on
// that worker (possibly none).
WorkerCtx MakeWorkerCtx(sw::Switch& sw, unsigned id);
// Whether rounds of w may visit only its active ports: it serves the whole
// switch, every port is provided (port_io.h: it tells when it next has a
// frame), and no feature acts on a port by its own clock or from a round of
// its own (the watchdog, DCFIT).
bool ActivePortsAllowed(const WorkerCtx& w);
// Every owned port visited again by the next round (a driver's event may
// have changed any of them); nothing without an active set.
inline void ActivateAll(WorkerCtx& w) {
  if (w.active != nullptr) w.active->rx = w.active->tx = w.owned;
}

// A worker lcore: the switches it serves, polled in this order every round.
struct Worker {
  sw::Dataplane* dp = nullptr;
  unsigned id = 0;
  std::vector<WorkerCtx> slots;
};

}  // namespace pfc::stages
