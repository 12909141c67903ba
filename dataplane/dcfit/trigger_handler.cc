// SPDX-License-Identifier: BSD-3-Clause
// DCFIT initial-trigger handling. See trigger_handler.h.
#include "dataplane/dcfit/trigger_handler.h"

namespace pfc::dcfit {
namespace {

bool SameRouteKey(const CheckMsg& a, const CheckMsg& b) {
  return a.SameTrigger(b) && a.prio == b.prio;
}

}  // namespace

bool TriggerHandler::Configure(const TriggerConfig& cfg, std::string* err) {
  if (cfg.num_ports < 1 || cfg.num_ports > kMaxPorts) {
    *err = "dcfit: num_ports " + std::to_string(cfg.num_ports) + ", expected 1.." +
           std::to_string(kMaxPorts);
    return false;
  }
  if (cfg.hold_ns == 0) {
    *err = "dcfit: hold_time = 0, expected > 0";
    return false;
  }
  cfg_ = cfg;
  routes_ = {};
  holds_.assign(static_cast<size_t>(cfg.num_ports) * kNumPrio, Hold{});
  ignore_ = {};
  limit_ = {};
  next_expiry_ = 0;
  n_ = TriggerCounters{};
  return true;
}

void TriggerHandler::Learn(PortId in, const CheckMsg& m, uint64_t now) {
  // Only the trigger's own chain (its switch is the initiator) leads back to
  // it: a middle switch's episode (§3.4) carries the same trigger round the
  // loop, and a route learnt from it would send the notice round the loop.
  if (in >= cfg_.num_ports || m.tri_sw == cfg_.self || m.gen_sw != m.tri_sw ||
      (m.flags & (kNotice | kMiddle)))
    return;
  Route* slot = &routes_[0];
  for (Route& r : routes_) {
    if (r.valid && SameRouteKey(r.trig, m)) {
      // A longer way (round the loop) does not replace a fresh shorter one.
      if (m.hops > r.hops && now - r.seen_ns <= kRouteStaleNs) return;
      slot = &r;
      break;
    }
    // Otherwise the first free slot, else the least recently seen.
    if (slot->valid && (!r.valid || r.seen_ns < slot->seen_ns)) slot = &r;
  }
  CheckMsg key;
  key.tri_sw = m.tri_sw;
  key.tri_port = m.tri_port;
  key.prio = m.prio;
  key.flags = m.flags & kTriggerHost;
  *slot = Route{key, in, m.hops, now, true};
}

int TriggerHandler::RouteTo(const CheckMsg& m) const {
  for (const Route& r : routes_)
    if (r.valid && SameRouteKey(r.trig, m)) return r.port;
  return -1;
}

void TriggerHandler::OnDeadlock(const CheckMsg& m, uint64_t now, std::vector<Action>* out) {
  CheckMsg n = m;
  n.flags = static_cast<uint8_t>((m.flags & kTriggerHost) | kNotice);
  n.hops = 0;
  if (m.tri_sw == cfg_.self)
    Deliver(n, now, out);
  else
    Pass(n, ActionKind::kNoticeSent, now, out);
}

void TriggerHandler::OnNotice(PortId in, const CheckMsg& n, uint64_t now,
                              std::vector<Action>* out) {
  (void)in;
  ++n_.notices_rx;
  if (n.tri_sw == cfg_.self) {
    Deliver(n, now, out);
    return;
  }
  CheckMsg f = n;
  f.hops = static_cast<uint8_t>(n.hops + 1);
  if (f.hops >= kMaxNoticeHops) {
    ++n_.notices_no_route;
    out->push_back(Action{ActionKind::kNoticeNoRoute, now, 0, in, n});
    return;
  }
  Pass(f, ActionKind::kNoticeForwarded, now, out);
}

void TriggerHandler::Pass(const CheckMsg& n, ActionKind sent, uint64_t now,
                          std::vector<Action>* out) {
  const int p = RouteTo(n);
  if (p < 0) {
    ++n_.notices_no_route;
    out->push_back(Action{ActionKind::kNoticeNoRoute, now, 0, 0, n});
    return;
  }
  ++(sent == ActionKind::kNoticeSent ? n_.notices_sent : n_.notices_forwarded);
  out->push_back(Action{sent, now, 0, static_cast<PortId>(p), n});
}

void TriggerHandler::Deliver(const CheckMsg& n, uint64_t now, std::vector<Action>* out) {
  if (n.tri_port >= cfg_.num_ports || n.prio >= kNumPrio) {
    ++n_.notices_no_route;
    out->push_back(Action{ActionKind::kNoticeNoRoute, now, 0, 0, n});
    return;
  }
  Hold& h = HoldOf(n.tri_port, n.prio);
  if (h.until_ns != 0) {
    ++n_.repeats;
    return;
  }
  h = Hold{n, now + cfg_.hold_ns};
  ++n_.holds;
  Recompute();
  const bool host = n.flags & kTriggerHost;
  out->push_back(Action{host ? ActionKind::kHostLossy : ActionKind::kRateLimit, now, h.until_ns,
                        n.tri_port, n});
}

void TriggerHandler::Tick(uint64_t now, std::vector<Action>* out) {
  if (next_expiry_ == 0 || now < next_expiry_) return;
  for (size_t i = 0; i < holds_.size(); i++) {
    Hold& h = holds_[i];
    if (h.until_ns == 0 || now < h.until_ns) continue;
    const bool host = h.msg.flags & kTriggerHost;
    out->push_back(Action{host ? ActionKind::kHostRestored : ActionKind::kRateLimitEnd, now,
                          h.until_ns, static_cast<PortId>(i / kNumPrio), h.msg});
    h = Hold{};
  }
  Recompute();
}

void TriggerHandler::Recompute() {
  ignore_ = {};
  limit_ = {};
  next_expiry_ = 0;
  for (size_t i = 0; i < holds_.size(); i++) {
    const Hold& h = holds_[i];
    if (h.until_ns == 0) continue;
    const uint8_t bit = static_cast<uint8_t>(1u << (i % kNumPrio));
    ((h.msg.flags & kTriggerHost) ? ignore_ : limit_)[i / kNumPrio] |= bit;
    if (next_expiry_ == 0 || h.until_ns < next_expiry_) next_expiry_ = h.until_ns;
  }
}

}  // namespace pfc::dcfit
