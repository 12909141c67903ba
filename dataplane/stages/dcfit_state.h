// SPDX-License-Identifier: BSD-3-Clause
// A switch's DCFIT state (DCFIT's slot of the switch, mechanism_state.h;
// DcfitOf is null when dcfit.enabled is false): the pure detector (dataplane/dcfit/detector.h,
// which owns the causality structure) and what the glue (stages/dcfit_stage.h) keeps beside it.
//
// Threads. With one worker serving the switch (the default, and every
// fabric switch) that worker is the only writer of everything here. With
// several (switch.workers > 1, `shared`):
//  * the causality counts are sharded per worker (causality.h), so the
//    per-burst enqueue / dequeue updates take no lock;
//  * everything else the hooks touch (the detector, the trigger handler,
//    the sketch and limiters, told_off, paused_since, out, acts) is changed
//    only under `lock`, taken by hooks that come with PFC frames, ticks and
//    trigger handling, never by plain forwarding;
//  * what the packet path reads of it is mirrored into atomics written under
//    the lock: hh_any, and host_hold (the trigger handler's ignore masks);
//  * a deadlock is declared by the worker that received the message on the
//    loop port, which is that port's owner, so recovery's discard of the
//    port's queue happens on the worker that owns the queue.
// `log` is the one thing other threads read (telemetry, the fabric's
// results): events are rare (a few per deadlock), so a mutex there costs
// nothing on the packet path, which never takes it.
#pragma once
#include <rte_pause.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/dcfit/detector.h"
#include "dataplane/dcfit/heavy_hitter.h"
#include "dataplane/dcfit/trigger_handler.h"
#include "dataplane/switch/event_log.h"
#include "dataplane/switch/log.h"
#include "dataplane/switch/mechanism_state.h"

namespace pfc::stages {

// Heavy hitters a rate limit names (at most kMaxLimited).
inline constexpr int kMaxLimited = 4;

// One event as reported: a detector event and what recovery did, or (act.kind
// != kNone) a step of initial-trigger handling (trigger_handler.h), with the
// heavy hitters a rate limit names; then ev.at_ns and ev.msg repeat the
// action's, and in_port = out_port = its port.
struct DcfitEventRecord {
  dcfit::Event ev;
  bool broke = false;        // recovery: break discarded the looped queue
  uint32_t break_drops = 0;  // packets it discarded
  dcfit::Action act;
  uint8_t n_hitters = 0;
  std::array<dcfit::HeavyHitters::Entry, kMaxLimited> hitters{};
  PortMask limit_ports = 0;  // rate limit: the congested egress ports
  uint64_t limit_bps = 0;
};

// A heavy hitter under a rate limit (trigger handling, switch trigger):
// packets of `key` bound for a port of `ports` at `prio` pass the bucket or
// are dropped (DropReason::kDcfitRateLimit).
struct DcfitLimiter {
  uint64_t key = 0;
  PortMask ports = 0;
  uint8_t prio = 0;
  PortId tri_port = 0;  // the hold it belongs to
  dcfit::TokenBucket bucket;
};

// One line for logs and telemetry, in words an engineer reads the right way
// round: "deadlock on priority 1: our egress to L3 is paused, we pause L2
// upstream; declared by S2 port L1 (seq 5), trigger S2 port L1, 4 hops, at
// 2.051200 ms". in/out: the names of the event's ports; the namer names the
// episode's switches and ports (log.h), "switch N port P" without one.
std::string DcfitEventText(const DcfitEventRecord& r, const std::string& in, const std::string& out,
                           const sw::DcfitNamer& namer = {});

using DcfitEventLog = sw::EventLog<DcfitEventRecord>;

struct SwitchDcfit final : sw::MechanismState {
  dcfit::Detector det;
  dcfit::Output out;  // reused: no allocation in steady state
  bool recovery_break = false;
  uint64_t tick_ns = 0;       // how often the detector's timeouts are checked
  uint64_t next_tick_ns = 0;  //
  // Per port: the lossless priorities the detector was told we pause
  // (OnXoffSent without OnXonSent since), so a frame the device refused and
  // the generator reports again is not a second XOFF to the detector.
  std::array<uint8_t, kMaxPorts> told_off{};
  // Per (port, priority): since when the peer pauses our egress (continuously),
  // 0 when not paused. Read by the fabric to date a loop's formation.
  std::array<std::array<uint64_t, kNumPrio>, kMaxPorts> paused_since{};
  DcfitEventLog log;

  // Initial-trigger handling (dcfit.trigger_handling; trigger_handler.h).
  bool trigger_handling = false;
  dcfit::TriggerHandler trig;
  std::vector<dcfit::Action> acts;  // reused
  // Rate limit of a heavy hitter: a fraction of the egress port's line rate,
  // or (non-zero) an absolute rate.
  double limit_fraction = 0.5;
  uint64_t limit_bps = 0;
  // Heavy hitters: per lossless priority, the egress ports congested at a
  // switch trigger (set when it starts an episode as the initial trigger,
  // cleared when it pauses no upstream of that priority any more), whose
  // arriving packets feed the sketch; and the sketch.
  std::array<PortMask, kNumPrio> hh_watch{};
  dcfit::HeavyHitters sketch;
  // Limiters in force, and per priority the egress ports they cover.
  std::vector<DcfitLimiter> limiters;
  std::array<PortMask, kNumPrio> limit_ports{};
  // One test per ingress group: some port watched or limited.
  std::atomic<bool> hh_any{false};

  // Several workers serve the switch: the hooks take `lock` (above).
  bool shared = false;
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  // Per port, the priorities the trigger handler makes it ignore pause on
  // (trig.ignore_mask), for the packet path of any worker.
  std::array<std::atomic<uint8_t>, kMaxPorts> host_hold{};

  // The log's new events, one line each on pfc.dcfit (switch/log.h).
  void PrintEvents(const sw::Switch& sw, uint64_t* seen, const sw::PortNamer& namer) const override;
  // "dcfit_detector": what the detector did with the messages
  // (dcfit/detector.h), for telling why a loop was or was not found.
  const char* ReportCounters(Counters* out) const override;
};

// What one worker keeps for DCFIT on one switch it serves (its slot of
// WorkerCtx::mech); that worker's alone.
struct DcfitWorker final : sw::MechanismState {
  // Its shard of the causality counts (0 unless several workers serve the
  // switch).
  unsigned shard = 0;
  // It runs the switch's detector ticks: the owner of port 0, one worker a
  // switch.
  bool lead = false;
  // Per port it owns, the lossless priorities the detector holds paused by
  // the peer, and the ports with any, so a pause that expires without XON
  // is noticed without the lock.
  PortMask paused_ports = 0;
  std::array<uint8_t, kMaxPorts> paused{};
};

// Holds the switch's DCFIT lock for a scope when several workers serve it;
// nothing at all with one. The holders are short and rare (PFC frames,
// ticks), so a spin is enough.
class DcfitGuard {
 public:
  explicit DcfitGuard(SwitchDcfit& d) : d_(d.shared ? &d : nullptr) {
    if (d_)
      while (d_->lock.test_and_set(std::memory_order_acquire)) rte_pause();
  }
  ~DcfitGuard() {
    if (d_) d_->lock.clear(std::memory_order_release);
  }
  DcfitGuard(const DcfitGuard&) = delete;
  DcfitGuard& operator=(const DcfitGuard&) = delete;

 private:
  SwitchDcfit* d_;
};

}  // namespace pfc::stages
