// SPDX-License-Identifier: BSD-3-Clause
// The DCFIT state machine. See detector.h for what each input does and why.
#include "dataplane/dcfit/detector.h"

#include <bit>

namespace pfc::dcfit {
namespace {

PortMask Bit(PortId p) { return PortMask{1} << p; }
uint8_t Hop(uint8_t h) { return h == 255 ? h : static_cast<uint8_t>(h + 1); }

// Calls f(port) for each set bit, lowest first.
template <typename F>
void EachPort(PortMask m, F f) {
  while (m) {
    f(static_cast<PortId>(std::countr_zero(m)));
    m &= m - 1;
  }
}

bool Smaller(const CheckMsg& a, const CheckMsg& b) {
  return a.gen_sw != b.gen_sw ? a.gen_sw < b.gen_sw : a.gen_port < b.gen_port;
}

// What a port's sent slot does with message m. A slot holds one message:
// when several episodes meet (several triggers at once, §3.2's "different
// causality-chains", or several middle switches of one trigger, §3.4), the
// one with the smaller {S_gen-ini, P_gen-ini} wins everywhere, so the
// winner's chain is kept whole around a loop instead of every episode
// overwriting the others. A newer Seq of the same initiator replaces the
// older one, and within one trigger a middle episode (which can find the
// loop) replaces the trigger's own chain (which cannot: the trigger is off
// the loop) and is never replaced by it. Detector::TakeSent adds the two
// exceptions that need the switch's state: a message nothing backs any more
// loses to any other, and a middle episode replaces the chain it started
// from.
enum class Offer : uint8_t { kTake, kRepeat, kOutranked };
Offer OfferTo(const MsgSlot& s, const CheckMsg& m) {
  if (!s.valid) return Offer::kTake;
  if (s.msg.SameEpisode(m) && s.msg.SameTrigger(m)) return Offer::kRepeat;
  if (s.msg.SameGen(m)) return Offer::kTake;
  if (s.msg.SameTrigger(m)) {
    const bool mid_m = m.flags & kMiddle, mid_s = s.msg.flags & kMiddle;
    if (mid_m != mid_s) return mid_m ? Offer::kTake : Offer::kOutranked;
    if (!mid_m) return Offer::kTake;  // the trigger's chain, restarted
  }
  return Smaller(m, s.msg) ? Offer::kTake : Offer::kOutranked;
}

}  // namespace

bool Detector::Configure(const DetectorConfig& cfg, std::string* err) {
  if (!c_.Configure(cfg.num_ports, cfg.lossless_mask, err, cfg.shards)) return false;
  if (cfg.temporal_timeout_ns == 0) {
    *err = "dcfit: temporal_timeout_ns = 0, expected > 0";
    return false;
  }
  cfg_ = cfg;
  eps_.assign(static_cast<size_t>(kNumPrio) * cfg.num_ports, Episode{});
  temporal_ = 0;
  next_seq_.assign(static_cast<size_t>(kNumPrio) * cfg.num_ports, 0);
  n_ = DetectorCounters{};
  return true;
}

void Detector::Emit(Output* out, EventKind k, uint64_t now, const CheckMsg& m, PortId in,
                    PortId outp, FailReason why) {
  out->events.push_back(Event{k, now, m, in, outp, why});
}

bool Detector::TakeSent(MsgSlot* s, const CheckMsg& m, int prio, const CheckMsg* refines) {
  Offer o = OfferTo(*s, m);
  if (o == Offer::kOutranked && refines != nullptr && s->msg.SameEpisode(*refines) &&
      s->msg.SameTrigger(*refines)) {
    o = Offer::kTake;
  } else if (o == Offer::kOutranked && !Backed(s->msg, prio)) {
    ++n_.unbacked;
    o = Offer::kTake;
  }
  switch (o) {
    case Offer::kTake:
      *s = MsgSlot{m, true, false};
      return true;
    case Offer::kRepeat:
      ++n_.repeat;
      return false;
    case Offer::kOutranked:
      ++n_.outranked;
      return false;
  }
  return false;
}

bool Detector::Backed(const CheckMsg& m, int prio) {
  if (m.gen_sw == cfg_.self) return Current(m, prio);
  for (PortId p = 0; p < cfg_.num_ports; ++p) {
    const MsgSlot* st = c_.stored(p, prio);
    if (st->valid && st->msg.SameEpisode(m) && st->msg.SameTrigger(m)) return true;
  }
  return false;
}

void Detector::Send(Output* out, PortId p, const CheckMsg& m, bool piggyback) {
  out->msgs.push_back(OutMsg{p, m, piggyback});
  ++n_.tx;
}

const CheckMsg* Detector::Piggyback(PortId i, int prio) const {
  const MsgSlot* s = c_.sent(i, prio);
  if (s == nullptr || !s->valid || (c_.pausing_up(prio) & Bit(i)) == 0) return nullptr;
  return &s->msg;
}

CheckMsg Detector::NewEpisode(PortId i, int prio, PortId tri_port, uint8_t flags, uint64_t now,
                              Output* out) {
  CheckMsg m;
  m.gen_sw = cfg_.self;
  m.gen_port = static_cast<uint8_t>(i);
  m.seq = ++next_seq_[static_cast<size_t>(prio) * cfg_.num_ports + i];
  m.tri_sw = cfg_.self;
  m.tri_port = static_cast<uint8_t>(tri_port);
  m.prio = static_cast<uint8_t>(prio);
  m.flags = flags;
  Begin(Ep(i, prio), m, now);
  Emit(out, (flags & kTriggerHost) ? EventKind::kTriggerHost : EventKind::kTriggerSwitch, now, m,
       tri_port, i);
  return m;
}

CheckMsg Detector::StartMiddle(PortId i, int prio, const CheckMsg& trig, uint64_t now,
                               Output* out) {
  CheckMsg m;
  m.gen_sw = cfg_.self;
  m.gen_port = static_cast<uint8_t>(i);
  m.seq = trig.seq;  // §3.4: the Seq of the later message
  m.tri_sw = trig.tri_sw;
  m.tri_port = trig.tri_port;
  m.prio = static_cast<uint8_t>(prio);
  m.flags = static_cast<uint8_t>((trig.flags & kTriggerHost) | kMiddle);
  // A middle episode of this trigger already running on i goes on: a newer
  // Seq of the trigger (which pauses on and off outside the loop) must not
  // restart a pass that is on its way round the loop.
  Episode& ep = Ep(i, prio);
  if (ep.st != State::kIdle && (ep.msg.flags & kMiddle) && ep.msg.SameTrigger(m)) return ep.msg;
  Begin(ep, m, now);
  Emit(out, EventKind::kMiddleInitiator, now, m, 0, i);
  return m;
}

void Detector::SendMiddle(PortMask ports, int prio, const CheckMsg& trig, uint64_t now,
                          Output* out) {
  EachPort(ports, [&](PortId i) {
    const CheckMsg m = StartMiddle(i, prio, trig, now, out);
    if (!TakeSent(c_.sent(i, prio), m, prio, &trig)) return;
    Send(out, i, m, false);
  });
}

void Detector::OnXoffSent(PortId i, int prio, uint64_t now, Output* out) {
  if (!Usable(i, prio)) return;
  c_.SetPausingUp(i, prio, true);
  const PortMask paused_w = c_.WaitsOn(i, prio) & c_.paused(prio);
  CheckMsg m;
  if (paused_w == 0) {
    // §3.1: congestion here, not pause from downstream: the initial trigger.
    m = NewEpisode(i, prio, i, 0, now, out);
  } else {
    // The first paused port with a message; one that is waiting to start a
    // middle episode (§3.4) first, since only this XOFF can carry it.
    MsgSlot* cause = nullptr;
    EachPort(paused_w, [&](PortId e) {
      MsgSlot* s = c_.stored(e, prio);
      if (s->valid && (cause == nullptr || (s->middle_pending && !cause->middle_pending)))
        cause = s;
    });
    if (cause == nullptr) {
      // Paused by a peer that sends no message: it is the initial trigger.
      m = NewEpisode(i, prio, static_cast<PortId>(std::countr_zero(paused_w)), kTriggerHost, now,
                     out);
    } else if (cause->middle_pending) {
      cause->middle_pending = false;
      m = StartMiddle(i, prio, cause->msg, now, out);
    } else if (cause->msg.gen_sw == cfg_.self && !Current(cause->msg, prio)) {
      // Our own message from an episode that has ended (we resumed its port
      // since) came back and pauses us again. Forwarded, it would go round
      // a loop that forms now and come back stale every time, hiding the
      // loop: the chain starts again from here instead, keeping its trigger.
      m = NewEpisode(i, prio, cause->msg.tri_port, cause->msg.flags & kTriggerHost, now, out);
    } else {
      m = cause->msg;
      m.flags &= ~kSecondPass;
      m.hops = Hop(m.hops);
    }
  }
  *c_.sent(i, prio) = MsgSlot{m, true, false};
  Send(out, i, m, true);
}

bool Detector::Current(const CheckMsg& m, int prio) {
  if (m.gen_port >= cfg_.num_ports) return false;
  const Episode& ep = Ep(m.gen_port, prio);
  return ep.st != State::kIdle && ep.msg.SameEpisode(m);
}

void Detector::OnXonSent(PortId i, int prio, uint64_t now, Output* out) {
  if (!Usable(i, prio)) return;
  c_.SetPausingUp(i, prio, false);
  *c_.sent(i, prio) = MsgSlot{};
  Episode& ep = Ep(i, prio);
  if (ep.st == State::kTemporal) Fail(i, prio, FailReason::kInitiatorResumed, now, out);
  Set(ep, State::kIdle);
}

void Detector::Fail(PortId i, int prio, FailReason why, uint64_t now, Output* out) {
  Episode& ep = Ep(i, prio);
  Emit(out, EventKind::kTemporalFailed, now, ep.msg, ep.loop_in, i, why);
  // Still pausing on P_gen-ini: the episode goes on, and a loop that forms
  // again (its message comes back again) is checked again.
  Set(ep, (c_.pausing_up(prio) & Bit(i)) ? State::kChecking : State::kIdle);
}

void Detector::OnPfcReceived(PortId e, int prio, RxKind kind, const CheckMsg* msg, uint64_t now,
                             Output* out) {
  if (!Usable(e, prio)) return;
  if (kind == RxKind::kXon) {
    c_.OnPeerResumed(e, prio);
    for (PortId i = 0; i < cfg_.num_ports; ++i) {
      const Episode& ep = Ep(i, prio);
      if (ep.st == State::kTemporal && ep.loop_in == e)
        Fail(i, prio, FailReason::kLoopPortResumed, now, out);
    }
    if (msg != nullptr) ++n_.bad;  // XON frames carry no message (message.h)
    return;
  }
  if (kind == RxKind::kXoff) c_.OnPeerPaused(e, prio);
  if (msg == nullptr) return;
  ++n_.rx;
  if (msg->prio != prio) {
    ++n_.bad;
    return;
  }
  if ((c_.paused(prio) & Bit(e)) == 0) {
    ++n_.not_paused;
    return;
  }
  if (msg->flags & kSecondPass)
    SecondPass(e, prio, *msg, now, out);
  else
    FirstPass(e, prio, *msg, now, out);
}

void Detector::FirstPass(PortId e, int prio, const CheckMsg& m, uint64_t now, Output* out) {
  // A stored slot mirrors what its peer last sent: the peer's sent slot
  // already chose between episodes (TakeSent), and its sending something
  // else means the chain it held before goes no further.
  MsgSlot* st = c_.stored(e, prio);
  if (m.gen_sw == cfg_.self) {
    // Never a repeat: after a failed temporal pass the episode goes on, and a
    // refresh re-carrying our message is how a loop that formed again is seen.
    *st = MsgSlot{m, true, false};
    OwnReturned(e, prio, m, now, out);
    return;
  }
  if (st->valid && st->msg.SameEpisode(m) && st->msg.SameTrigger(m)) {
    ++n_.repeat;  // a refresh re-carrying it, a chain that went round
    return;
  }
  *st = MsgSlot{m, true, false};
  // §3.4: the same {S_tri, P_tri} already came in on another port: this is
  // a middle switch. So is a switch the chain has come round to (§3.2's
  // causality loop: the chain visits the same switch twice): m's episode is
  // stored at another port too, or already went out on a port of δ_e with
  // no more hops than m has now (a chain off its trigger that circles a loop
  // by itself, its trigger long gone, as a host's short pause storm leaves
  // behind: nobody else would ever find that loop). Except when m is the
  // chain of a smaller middle switch that has not come round: that episode
  // can find the loop as well as ours and wins against ours everywhere
  // (OfferTo), so it is forwarded (two middle switches of one loop would
  // otherwise each stop the other's chain).
  bool same_trigger = false, came_round = false;
  for (PortId p = 0; p < cfg_.num_ports; ++p) {
    const MsgSlot* o = c_.stored(p, prio);
    if (p == e || !o->valid || !o->msg.SameTrigger(m)) continue;
    same_trigger = true;
    came_round = came_round || o->msg.SameEpisode(m);
  }
  const PortMask delta = c_.Delta(e, prio);
  EachPort(delta, [&](PortId i) {
    const MsgSlot* o = c_.sent(i, prio);
    if (o->valid && o->msg.SameEpisode(m) && o->msg.SameTrigger(m) && o->msg.hops <= m.hops)
      came_round = true;
  });
  const bool defer = (m.flags & kMiddle) && m.gen_sw < cfg_.self && !came_round;
  const bool middle = (same_trigger || came_round) && !defer;
  if (middle) {
    if (delta == 0)
      st->middle_pending = true;
    else
      SendMiddle(delta, prio, m, now, out);
    return;
  }
  if (delta == 0) {
    ++n_.no_delta;
    return;
  }
  Forward(delta, prio, m, false, out);
}

void Detector::OwnReturned(PortId e, int prio, const CheckMsg& m, uint64_t now, Output* out) {
  Episode& ep = Ep(m.gen_port, prio);
  if (m.gen_port >= cfg_.num_ports || ep.st != State::kChecking || !ep.msg.SameEpisode(m)) {
    ++n_.stale;
    return;
  }
  if (c_.Xi(e, prio) & Bit(m.gen_port)) {
    // Lemma 1: the chain passed P_gen-ini again in the same episode.
    Set(ep, State::kTemporal);
    ep.loop_in = e;
    ep.since_ns = now;
    Emit(out, EventKind::kLoopFound, now, m, e, m.gen_port);
    CheckMsg t = ep.msg;
    t.flags |= kSecondPass;
    t.hops = 0;
    Send(out, m.gen_port, t, false);
    return;
  }
  // Our chain entered a loop elsewhere and came back on a port P_gen-ini's
  // traffic does not use: we are the junction (§3.4) for our own trigger.
  const PortMask delta = c_.Delta(e, prio);
  if (delta == 0)
    c_.stored(e, prio)->middle_pending = true;
  else
    SendMiddle(delta, prio, m, now, out);
}

void Detector::SecondPass(PortId e, int prio, const CheckMsg& m, uint64_t now, Output* out) {
  if (m.gen_sw == cfg_.self) {
    if (m.gen_port >= cfg_.num_ports) {
      ++n_.stale;
      return;
    }
    Episode& ep = Ep(m.gen_port, prio);
    if (ep.st != State::kTemporal || !ep.msg.SameEpisode(m)) {
      ++n_.stale;
      return;
    }
    // Our own two ports on the loop, checked like every other hop's.
    const bool ok = (c_.Xi(e, prio) & Bit(m.gen_port)) && !c_.resume_tag(e, prio) &&
                    (c_.pausing_up(prio) & Bit(m.gen_port));
    if (!ok) {
      Fail(m.gen_port, prio, FailReason::kReturnCheck, now, out);
      return;
    }
    Set(ep, State::kDeclared);
    CheckMsg d = ep.msg;
    d.hops = m.hops;
    Emit(out, EventKind::kDeadlock, now, d, e, m.gen_port);
    return;
  }
  // Lemma 3.2 at this hop: r_e = 0 and the episode stored at e is the same.
  const MsgSlot* st = c_.stored(e, prio);
  if (c_.resume_tag(e, prio) || !st->valid || !st->msg.SameEpisode(m)) {
    ++n_.temporal_dropped;
    return;
  }
  if (Forward(c_.Delta(e, prio), prio, m, true, out) == 0) ++n_.temporal_dropped;
}

int Detector::Forward(PortMask ports, int prio, const CheckMsg& m, bool second_pass, Output* out) {
  CheckMsg f = m;
  f.hops = Hop(m.hops);
  int sent = 0;
  EachPort(ports, [&](PortId i) {
    MsgSlot* s = c_.sent(i, prio);
    if (second_pass) {
      // Only along the ports that carried this episode's first pass.
      if (!s->valid || !s->msg.SameEpisode(f)) return;
    } else if (!TakeSent(s, f, prio, nullptr)) {
      return;
    }
    Send(out, i, f, false);
    ++sent;
  });
  return sent;
}

void Detector::Tick(uint64_t now, Output* out) {
  if (temporal_ == 0) return;  // most ticks: nothing can time out
  for (int prio = 0; prio < kNumPrio; ++prio) {
    if (!c_.tracked(prio)) continue;
    for (PortId i = 0; i < cfg_.num_ports; ++i) {
      const Episode& ep = Ep(i, prio);
      if (ep.st == State::kTemporal && now - ep.since_ns >= cfg_.temporal_timeout_ns)
        Fail(i, prio, FailReason::kTimeout, now, out);
    }
  }
}

}  // namespace pfc::dcfit
