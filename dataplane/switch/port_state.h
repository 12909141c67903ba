// SPDX-License-Identifier: BSD-3-Clause
// State of one port that only its owning worker reads and writes: the egress
// scheduler, packets the device did not accept yet (retried before anything
// else, so a slow device back-pressures instead of dropping), and the PFC
// machinery (received-pause timers, XOFF/XON generator).
#pragma once
#include <rte_mbuf.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "dataplane/common/types.h"
#include "dataplane/pause/pause_timer.h"
#include "dataplane/pause/pfc_generator.h"
#include "dataplane/sched/egress_scheduler.h"

namespace pfc::sw {

struct TxStash {
  static constexpr int kCap = 2 * kMaxBurst;
  std::array<rte_mbuf*, kCap> pkts{};
  int head = 0, n = 0;
};

// kWorkerAlign-aligned: ports of different workers have their own states
// side by side on the heap, and a shared line would bounce between cores.
// What a round reads of every port it looks at comes first (the flags and
// the PFC generator's state and config: one cache line, then the rest of
// the generator and the received-pause timers); the scheduler and the
// stashes, read only by a port with something to send, come last.
struct alignas(kWorkerAlign) PortOwnerState {
  // The stashes holding packets: bit q for data_stash[q], kCtrlStashBit for
  // ctrl_stash (kept by stages/egress.cc), so "anything refused?" is one load.
  static constexpr uint16_t kCtrlStashBit = 1u << kNumPrio;
  uint16_t stash_mask = 0;
  // The port's rings that may hold packets (see WorkerCtx::solo): bit q for
  // egress[q], kControlRing for control. Set by whoever queues to a ring
  // (stages/egress.h MarkQueued), cleared by the owner when it finds that
  // ring empty, so a round reads only the rings in use (each ring's head and
  // tail are two cache lines of their own, nine rings a port). Written only
  // when one worker serves the whole switch, so only by the owner.
  static constexpr uint16_t kControlRing = 1u << kNumPrio;
  static constexpr uint16_t kAllRings = (1u << (kNumPrio + 1)) - 1;
  uint16_t queued = kAllRings;
  // The link's state at the last egress round (stages/worker.cc
  // LinkChanged): a link that goes down ends the pauses either way.
  bool link_up = true;
  // A device port's link as the control thread's watch last saw it
  // (switch/link_watch.h), written by it on a change only; a provided
  // port's is its provider's (port_io.h).
  std::atomic<bool> dev_link_up{true};
  // What PfcPublish needs to know to skip a port whose gauges cannot have
  // moved: a PFC frame was received or sent since the last publish, and the
  // priorities paused either way at the last publish (a running pause makes
  // paused_ns/pausing_ns grow). Starts "changed" so the first round publishes.
  bool pfc_changed = true;
  uint8_t pfc_live = 0;
  // The priorities a PFC frame received or sent on this port has named: the
  // others' gauges are 0 and stay so, and PfcPublish skips them.
  uint8_t pfc_named = 0;
  // Lossless priorities this port does not enable (ports[].pfc_enable):
  // pause requests received for them are ignored (and counted).
  uint8_t pfc_ignore_rx = 0;
  // pause.open_mask() since the timers last changed (PfcReceive, LinkChanged):
  // with none open, a round need not read the timers (another line) to know
  // that nothing is paused or expires.
  uint8_t pause_open = 0;
  pause::PfcGenerator pfc_gen;  // XOFF/XON we send on this port
  uint64_t pause_bps = 0;       // rate for quanta: the shaper's when shaped
  pause::PauseTimer pause;      // pause requests received on this port
  sched::EgressScheduler sched;
  TxStash ctrl_stash;  // control frames the device refused
  // Data packets the device refused, by egress priority: a priority paused
  // since keeps its refused packets until it resumes, the others still go.
  TxStash data_stash[kNumPrio];
};

}  // namespace pfc::sw
