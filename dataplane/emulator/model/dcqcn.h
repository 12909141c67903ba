// SPDX-License-Identifier: BSD-3-Clause
// DCQCN congestion control for an emulated RDMA NIC: the reaction point (a
// sender's per-flow rate) and the notification point (a receiver's CNPs).
// The algorithm is DCQCN (Zhu et al., "Congestion Control for Large-Scale
// RDMA Deployments", SIGCOMM 2015) in the form NICs run it and the RDMA
// simulator of the HPCC work models it (its "Mellanox version",
// simulation/src/point-to-point/model/rdma-hw.cc), with parameters named
// as that simulator's config (mix/config_doc.txt):
//
//  * a CNP marks the flow: the first one sets alpha = 1 and starts the
//    flow's timers (from then on the flow is under control);
//  * every ALPHA_RESUME_INTERVAL: alpha = (1 - g) alpha, + g if a CNP
//    arrived since the last update (g = EWMA_GAIN);
//  * every RATE_DECREASE_INTERVAL (first 1 ns after the alpha timer's
//    period, so an update at the same instant comes first): if a CNP
//    arrived since the last check, target = rate (unless CLAMP_TARGET_RATE
//    is off and no increase happened since the last cut), rate =
//    max(MIN_RATE, rate (1 - alpha / 2)), and the increase stage restarts
//    with the RP timer;
//  * every RP_TIMER after a cut, an increase event, stage s counting them
//    from 0: s < FAST_RECOVERY_TIMES: fast recovery, rate = (rate +
//    target) / 2; s == FAST_RECOVERY_TIMES: additive increase, target +=
//    RATE_AI first; beyond: hyper increase, target += RATE_HAI first; the
//    target never above the line rate.
// Timers due at the same instant run in the order they were scheduled, as
// ns-3's scheduler runs events (by time, then by when they were inserted),
// each timer rescheduled as the simulator's handler does it (the decrease
// check reschedules itself before a cut restarts the increase timer, the
// increase timer before it increases). So with RP_TIMER a multiple of
// RATE_DECREASE_INTERVAL, the increase a cut scheduled runs before the
// decrease check of its instant, which was scheduled later.
// With BYTE_COUNTER (the DCQCN paper's B; 0, the default, leaves it off as
// the simulator has no byte counter) every that many bytes the flow sends
// since the last cut are an increase event too, and the phase follows the
// paper's rule on T (timer events) and BC (byte-counter events) since the
// cut, counted before this one: max(T, BC) < F fast recovery, min(T, BC) > F
// hyper increase, else additive increase (F = FAST_RECOVERY_TIMES).
//
// The notification point sends a flow at most one CNP per cnp_interval
// (default 4 us, see DcqcnParams), for the first CE-marked packet after it.
//
// Pure code: time is an argument (ns); rates are integer bits/s, each
// step rounded down. Owned by the thread that runs the host.
#pragma once
#include <cstdint>

#include "dataplane/common/deadline.h"
#include "dataplane/emulator/model/params.h"

namespace pfc::emulator {

// Defaults: the simulator's mix/config.txt (the values its experiments
// run with), except the first-CNP rate, an attribute of its model.
struct DcqcnParams {
  uint64_t line_bps = 0;                       // the NIC's link: start and ceiling
  uint64_t rate_ai_bps = 50'000'000;           // RATE_AI 50Mb/s
  uint64_t rate_hai_bps = 100'000'000;         // RATE_HAI 100Mb/s
  uint64_t min_rate_bps = 100'000'000;         // MIN_RATE 100Mb/s
  double ewma_gain = 1.0 / 256;                // EWMA_GAIN 0.00390625
  uint64_t alpha_resume_interval_ns = 1'000;   // ALPHA_RESUME_INTERVAL 1 (us)
  uint64_t rate_decrease_interval_ns = 4'000;  // RATE_DECREASE_INTERVAL 4 (us)
  uint64_t rp_timer_ns = 900'000;              // RP_TIMER 900 (us)
  uint32_t fast_recovery_times = 1;            // FAST_RECOVERY_TIMES 1
  bool clamp_target_rate = false;              // CLAMP_TARGET_RATE 0
  double rate_on_first_cnp = 1.0;              // RateOnFirstCnp (rdma-hw.cc) 1.0
  uint64_t byte_counter_bytes = 0;             // the paper's B (10 MB there); 0 = off
  // NP: at most one CNP per flow per this. 4 us: one per rate-decrease
  // interval, so each decision sees the marks of the interval before it
  // (the simulator flags every ACK of a marked packet instead; the DCQCN
  // paper's N is 50 us, with its 55 us alpha timer).
  uint64_t cnp_interval_ns = 4'000;
  // The CNPs' DSCP and priority (the NP's, for a flow's CE-marked frames).
  uint8_t cnp_dscp = 48, cnp_prio = 6;
};

// The fabric file's dcqcn section (model/params.h): the keys, in order.
std::span<const Param<DcqcnParams>> DcqcnParamTable();

struct DcqcnCounters {
  uint64_t cnps = 0;        // CNPs received
  uint64_t cuts = 0;        // rate decreases
  uint64_t recoveries = 0;  // fast-recovery steps
  uint64_t ai = 0, hai = 0;
  uint64_t byte_counter = 0;  // increase events from the byte counter
};

// One flow's sending rate (the reaction point).
class DcqcnRp {
 public:
  explicit DcqcnRp(const DcqcnParams& p);

  // A CNP for this flow arrived at now_ns. Runs what was due before it.
  void OnCnp(uint64_t now_ns);
  // Runs every timer due at or before now_ns, in time order.
  void Advance(uint64_t now_ns);
  // The flow sent `bytes` at now_ns (the byte counter; nothing when off or
  // before the first CNP).
  void OnSent(uint32_t bytes, uint64_t now_ns);
  // When the next timer is due (kNever before the first CNP).
  Deadline NextEventNs() const;

  uint64_t rate_bps() const { return rate_; }
  uint64_t target_bps() const { return target_; }
  double alpha() const { return alpha_; }
  bool active() const { return active_; }
  const DcqcnCounters& counters() const { return c_; }

 private:
  void AlphaUpdate();
  void DecreaseCheck();
  void Increase();

  DcqcnParams p_;
  uint64_t rate_, target_;
  double alpha_ = 1.0;
  bool active_ = false;        // a CNP has arrived: the timers run
  bool alpha_cnp_ = false;     // a CNP since the last alpha update
  bool decrease_cnp_ = false;  // ... since the last decrease check
  uint32_t stage_ = 0;         // timer increase events since the last cut (T)
  uint32_t bc_stage_ = 0;      // byte-counter increase events since the last cut (BC)
  uint64_t sent_ = 0;          // bytes toward the next byte-counter event
  // A timer: when it is due, and its place in the order timers were
  // scheduled (ties at one instant run the earlier scheduled first).
  struct Timer {
    Deadline at = kNever;
    uint64_t seq = 0;
  };
  void Schedule(Timer* t, Deadline at) { *t = {at, ++seq_}; }
  Timer alpha_t_, decrease_t_, increase_t_;
  uint64_t seq_ = 0;
  DcqcnCounters c_;
};

// One flow's CNP generation at its receiver (the notification point).
class DcqcnNp {
 public:
  explicit DcqcnNp(uint64_t interval_ns) : interval_(interval_ns) {}
  // A CE-marked packet of the flow arrived: true when a CNP goes now.
  bool OnCe(uint64_t now_ns) {
    if (sent_ && now_ns < last_ + interval_) return false;
    sent_ = true;
    last_ = now_ns;
    return true;
  }

 private:
  uint64_t interval_;
  uint64_t last_ = 0;
  bool sent_ = false;
};

}  // namespace pfc::emulator
