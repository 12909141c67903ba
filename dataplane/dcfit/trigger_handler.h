// SPDX-License-Identifier: BSD-3-Clause
// DCFIT's initial-trigger handling (DCFIT §4), pure: after a deadlock is
// declared and broken, the initial trigger {S_tri, P_tri} is dealt with so
// that the same deadlock does not form again.
//
//  * Telling the trigger. The declaring switch is usually another switch.
//    Every switch remembers, for each initial trigger whose own messages
//    (initiator = S_tri, not a middle switch's, which go round the loop) it
//    received, the port they came in on with the fewest hops (Learn; a
//    newer one on equal hops, or any once the route is kRouteStaleNs old):
//    that port leads back along the pause chain toward S_tri. Not simply
//    the last: the trigger's own messages also go round the loop it feeds
//    and come back to the loop's switches from the loop's side, and a
//    route learnt from those sends the notice round the loop (the fabric's
//    switch-trigger case, tests/fabric/dcfit_trigger_test.py). The
//    declaring switch sends a trigger notice (a checking message with
//    kNotice, message.h, in a standalone checking packet) out of that port;
//    each switch on the way does the same until the notice reaches S_tri. A
//    switch that knows no way on drops it (kNoticeNoRoute); a notice that
//    crossed kMaxNoticeHops switches is dropped too (a guard against a
//    route that points round in a circle).
//  * At S_tri, port P_tri, for hold_ns:
//      - a host trigger (kTriggerHost): the port is lossy for the held
//        priority (the paper: "prevent the NIC from generating pause frames
//        and disable lossless mode at the switch port"): it ignores the
//        host's pause, sends it none, and drops what would need headroom
//        (the glue, stages/dcfit_stage.h); ignore_mask() says which
//        priorities;
//      - a switch trigger: the glue names the heavy hitters feeding the
//        congested egress (heavy_hitter.h) and rate-limits them.
//    A trigger already held ignores further notices until its hold ends
//    (counted as repeats); then it returns to normal (Tick).
// Every step is an Action the glue logs, counts and reports.
//
// Single-threaded: owned by the worker that runs the switch, beside the
// detector (stages/dcfit_state.h).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/dcfit/message.h"

namespace pfc::dcfit {

struct TriggerConfig {
  SwitchId self = 0;
  int num_ports = 0;
  uint64_t hold_ns = 10'000'000;
};

#define PFC_DCFIT_ACTION_KINDS(X)                                                 \
  X(kNone, "none")                                                                \
  X(kNoticeSent, "notice_sent")           /* declaring switch: notice sent toward \
                                             S_tri on `port` */                   \
  X(kNoticeForwarded, "notice_forwarded") /* on the way: passed on, on `port` */  \
  X(kNoticeNoRoute, "notice_no_route")    /* no port known toward S_tri (or too   \
                                             many hops): dropped */               \
  X(kHostLossy, "host_lossy")             /* S_tri: port P_tri ignores the host's \
                                             pause until until_ns */              \
  X(kHostRestored, "host_restored")       /* ... and honours it again */          \
  X(kRateLimit, "rate_limit")             /* S_tri: heavy hitters into P_tri's    \
                                             congestion limited */                \
  X(kRateLimitEnd, "rate_limit_end")      /* ... and no longer */
PFC_NAMED_ENUM(ActionKind, ActionKindName, PFC_DCFIT_ACTION_KINDS)

struct Action {
  ActionKind kind = ActionKind::kNone;
  uint64_t at_ns = 0;
  uint64_t until_ns = 0;  // host lossy / rate limit: when the hold ends
  PortId port = 0;        // notice: the port it left by; else P_tri
  // The trigger {tri_sw, tri_port, prio, kTriggerHost}; gen_sw / gen_port /
  // seq: the switch that declared the deadlock and its episode.
  CheckMsg msg;
};

struct TriggerCounters {
  uint64_t notices_sent = 0;       // declared here, sent toward S_tri
  uint64_t notices_rx = 0;         // received
  uint64_t notices_forwarded = 0;  // received and passed on
  uint64_t notices_no_route = 0;   // dropped: no way on (or hop limit)
  uint64_t repeats = 0;            // the trigger was already held: ignored
  uint64_t holds = 0;              // host-lossy or rate-limit holds started
};

class TriggerHandler {
 public:
  static constexpr int kRoutes = 64;  // triggers remembered (oldest replaced)
  static constexpr uint8_t kMaxNoticeHops = 16;
  // A route not confirmed for this long gives way to a longer one (the
  // trigger's XOFF refreshes confirm it every half pause: 1.7 ms at 10G).
  static constexpr uint64_t kRouteStaleNs = 10'000'000;

  bool Configure(const TriggerConfig& cfg, std::string* err);
  const TriggerConfig& config() const { return cfg_; }
  const TriggerCounters& counters() const { return n_; }

  // A checking message (not a notice) arrived on `in`: S_tri lies that way.
  void Learn(PortId in, const CheckMsg& m, uint64_t now);
  // The port toward m's trigger, or -1.
  int RouteTo(const CheckMsg& m) const;

  // A deadlock was declared here; m: its episode (with the trigger),
  // declared on port gen_port. Acts here if S_tri is this switch, else
  // sends the notice on. Appends what it did to *out.
  void OnDeadlock(const CheckMsg& m, uint64_t now, std::vector<Action>* out);
  // A notice arrived on `in`.
  void OnNotice(PortId in, const CheckMsg& n, uint64_t now, std::vector<Action>* out);
  // Holds that ended by now.
  void Tick(uint64_t now, std::vector<Action>* out);

  // Priorities p holds lossy (host holds): its pause ignored, none sent.
  uint8_t ignore_mask(PortId p) const { return p < cfg_.num_ports ? ignore_[p] : 0; }
  // Priorities of p under a rate-limit hold.
  uint8_t limit_mask(PortId p) const { return p < cfg_.num_ports ? limit_[p] : 0; }
  // The earliest end of a hold, 0: none.
  uint64_t next_expiry() const { return next_expiry_; }

 private:
  struct Route {
    CheckMsg trig;  // tri_sw, tri_port, prio, kTriggerHost
    PortId port = 0;
    uint8_t hops = 0;  // of the message the route was learnt from
    uint64_t seen_ns = 0;
    bool valid = false;
  };
  struct Hold {
    CheckMsg msg;
    uint64_t until_ns = 0;  // 0: none
  };
  void Deliver(const CheckMsg& n, uint64_t now, std::vector<Action>* out);
  void Pass(const CheckMsg& n, ActionKind sent, uint64_t now, std::vector<Action>* out);
  Hold& HoldOf(PortId p, int prio) { return holds_[static_cast<size_t>(p) * kNumPrio + prio]; }
  void Recompute();

  TriggerConfig cfg_{};
  std::array<Route, kRoutes> routes_{};
  std::vector<Hold> holds_;  // [port][prio]
  std::array<uint8_t, kMaxPorts> ignore_{}, limit_{};
  uint64_t next_expiry_ = 0;
  TriggerCounters n_{};
};

}  // namespace pfc::dcfit
