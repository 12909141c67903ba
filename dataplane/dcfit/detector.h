// SPDX-License-Identifier: BSD-3-Clause
// The DCFIT state machine of one switch (DCFIT §3.1-§3.4), pure: the glue
// feeds it what the switch's PFC machinery does and receives, and sends what
// it says; it never touches packets or clocks.
//
// Inputs (P_x are this switch's ports, all for one lossless priority):
//  * OnXoffSent(i)  we started pausing our upstream on i (the generator's ON
//    -> OFF transition, not a refresh). §3.1: if none of the egress ports that
//    i's queued packets wait on is paused, this switch is the initial trigger
//    and the generic initiator of a new episode {self, i, Seq+1}; if one is
//    paused with a stored message, that message rides on the XOFF (§3.2, 4th
//    bullet), unless it is one of ours from an episode that has ended (then a
//    new episode starts here, with that message's trigger); if one is paused
//    by a peer that sent no message (a host, or a
//    switch without DCFIT), that peer is the initial trigger (kTriggerHost)
//    and this switch starts the episode on its behalf.
//  * OnXonSent(i)   we stopped pausing our upstream on i: its sent message and
//    any episode it initiated end.
//  * OnPfcReceived(e, kind, msg)  an XOFF / XON / standalone checking packet
//    arrived on e, with or without a checking message. XON: not paused,
//    RESUME tag 1, stored message dropped. A first-pass message is stored at
//    e and then
//      - ours (S_gen-ini = self): with the episode's current Seq and
//        P_gen-ini in ξ_e, a causality loop is found (§3.2, Lemma 1) and the
//        temporal pass starts: the message with kSecondPass leaves on
//        P_gen-ini. Ours but P_gen-ini not in ξ_e: our own chain came back
//        through another port, i.e. this switch is the junction of §3.4 for
//        its own trigger, and it acts as a middle switch;
//      - the same {S_tri, P_tri} as stored at another port: this is a middle
//        switch (§3.4, Lemma 3.4) and becomes the generic initiator
//        {self, i, Seq of the later message} for each i in δ_e (or, if δ_e is
//        empty, for the next XOFF e causes);
//      - otherwise forwarded to every port of δ_e (ports in ξ_e pausing
//        their upstream) as a standalone checking packet, or dropped when
//        δ_e is empty (the next XOFF e causes carries it).
//    A second-pass message is checked at e (still paused, RESUME tag 0,
//    stored message of the same episode, Lemma 3.2) and forwarded to the
//    ports of δ_e that sent the same episode; back at its initiator, with the
//    initiator's own loop ports still paused and pausing, the deadlock is
//    declared. Any failure drops it; the initiator reports the failure when
//    a loop port resumes or after temporal_timeout_ns, and keeps its episode
//    so that a loop that forms again is found again.
//  * Tick(now)  time passes: temporal passes time out.
// A message already stored (received) or sent on a port, for the same
// episode and trigger, is not acted upon again: refreshes re-carry messages,
// and a chain entering a loop from outside (§3.4) must not circle forever.
// A port keeps one message. A received (stored) one mirrors what the peer
// last sent. A sent one: when episodes meet, the smaller initiator ID wins
// (detector.cc, OfferTo), so one episode survives whole; but a sent message
// that nothing backs any more (not a running episode of ours, not stored at
// any of our ports: its chain has moved on or ended) loses to any other,
// so an episode that has ended cannot hold a port that stays paused (in a
// deadlock, forever) against the live ones. A switch a chain comes round to
// (the chain's episode back on another port, or on the same port with more
// hops than it left with) acts as a middle switch (§3.4) for it.
//
// Outputs go to an Output the caller owns and clears: messages to send
// (piggybacked on the XOFF the call is about, or standalone checking packets)
// and events. Its vectors keep their capacity, so a reused Output does not
// allocate in steady state.
//
// One caller at a time (the glue holds the switch's DCFIT lock when several
// workers serve it); the glue calls Causality's OnEnqueue / OnDequeue, which
// take no lock, as packets move (causality.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/dcfit/causality.h"
#include "dataplane/dcfit/message.h"

namespace pfc::dcfit {

struct DetectorConfig {
  SwitchId self = 0;
  int num_ports = 0;
  uint8_t lossless_mask = 0;
  // A temporal pass that has not come back after this long has failed.
  uint64_t temporal_timeout_ns = 1'000'000;
  // The causality mapping's form (causality.h): 0, FIFO positions (one
  // worker moves the switch's packets); else the workers, each with a shard
  // of the counts.
  unsigned shards = 0;
};

struct OutMsg {
  PortId port = 0;
  CheckMsg msg;
  // True: put it in the padding of the XOFF frame the call reported. False:
  // send it now in a standalone checking packet (message.h).
  bool piggyback = false;
};

#define PFC_DCFIT_EVENT_KINDS(X)                                            \
  X(kTriggerSwitch, "trigger_switch")     /* this switch is the initial     \
                                             trigger (§3.1) */             \
  X(kTriggerHost, "trigger_host")         /* the peer behind tri_port is (a \
                                             host, no DCFIT) */             \
  X(kMiddleInitiator, "middle_initiator") /* this switch became a middle    \
                                             generic initiator (§3.4) */   \
  X(kLoopFound, "loop_found")             /* causality loop: the temporal   \
                                             pass starts */                 \
  X(kDeadlock, "deadlock")                /* temporal pass came back:       \
                                             deadlock declared */           \
  X(kTemporalFailed, "temporal_failed")   /* no deadlock for this loop (see \
                                             FailReason) */
PFC_NAMED_ENUM(EventKind, EventKindName, PFC_DCFIT_EVENT_KINDS)

#define PFC_DCFIT_FAIL_REASONS(X)                                             \
  X(kNone, "none")                                                            \
  X(kTimeout, "timeout")                    /* the temporal pass did not come \
                                               back */                        \
  X(kLoopPortResumed, "loop_port_resumed")  /* our port on the loop received  \
                                               XON */                         \
  X(kInitiatorResumed, "initiator_resumed") /* we stopped pausing on          \
                                               P_gen-ini */                   \
  X(kReturnCheck, "return_check")           /* it came back but our own loop  \
                                               ports no longer qualify */
PFC_NAMED_ENUM(FailReason, FailReasonName, PFC_DCFIT_FAIL_REASONS)

struct Event {
  EventKind kind = EventKind::kTriggerSwitch;
  uint64_t at_ns = 0;
  // The episode: initiator, Seq, initial trigger, priority, flags. For loop
  // and deadlock events, hops = switches the message crossed around the loop.
  CheckMsg msg;
  // Loop / deadlock / failure: the ports of this switch on the loop: in_port
  // is paused by its downstream (where the message came back), out_port =
  // P_gen-ini pauses its upstream. Trigger / middle: out_port = the port the
  // episode starts on; for kTriggerHost in_port = tri_port.
  PortId in_port = 0;
  PortId out_port = 0;
  FailReason why = FailReason::kNone;
};

struct Output {
  std::vector<OutMsg> msgs;
  std::vector<Event> events;
  void clear() {
    msgs.clear();
    events.clear();
  }
};

enum class RxKind : uint8_t { kXoff, kXon, kCheckOnly };

// Counters of what happened to checking messages (per switch).
struct DetectorCounters {
  uint64_t rx = 0;                // messages received
  uint64_t tx = 0;                // messages handed out (piggybacked or standalone)
  uint64_t repeat = 0;            // already stored / sent for the same episode: ignored
  uint64_t outranked = 0;         // a port holds a winning episode (detector.cc OfferTo)
  uint64_t unbacked = 0;          // a sent message nothing backs any more was replaced
  uint64_t no_delta = 0;          // first pass, δ empty: waits for the next XOFF
  uint64_t not_paused = 0;        // arrived on a port that is not paused
  uint64_t stale = 0;             // ours, but not the current episode / state
  uint64_t bad = 0;               // priority differs from the frame's, or on an XON
  uint64_t temporal_dropped = 0;  // second pass failed at this switch
};

class Detector {
 public:
  bool Configure(const DetectorConfig& cfg, std::string* err);
  const DetectorConfig& config() const { return cfg_; }
  Causality& causality() { return c_; }
  const Causality& causality() const { return c_; }
  // Episodes whose loop was found and awaits its second pass (State::kTemporal).
  int temporal_episodes() const { return temporal_; }
  const DetectorCounters& counters() const { return n_; }

  void OnXoffSent(PortId i, int prio, uint64_t now, Output* out);
  void OnXonSent(PortId i, int prio, uint64_t now, Output* out);
  void OnPfcReceived(PortId e, int prio, RxKind kind, const CheckMsg* msg, uint64_t now,
                     Output* out);
  void Tick(uint64_t now, Output* out);

  // The message to carry on every PFC frame (refreshes included) that pauses
  // prio on port i, or nullptr.
  const CheckMsg* Piggyback(PortId i, int prio) const;

 private:
  enum class State : uint8_t { kIdle, kChecking, kTemporal, kDeclared };
  struct Episode {
    State st = State::kIdle;
    CheckMsg msg;  // as sent by us: gen = (self, port), Seq, trigger
    PortId loop_in = 0;
    uint64_t since_ns = 0;
  };
  Episode& Ep(PortId i, int prio) { return eps_[static_cast<size_t>(prio) * cfg_.num_ports + i]; }
  // Every change of an episode's state goes through Set, which keeps
  // temporal_ (Tick looks at the episodes only when some are temporal).
  void Set(Episode& ep, State s) {
    temporal_ +=
        static_cast<int>(s == State::kTemporal) - static_cast<int>(ep.st == State::kTemporal);
    ep.st = s;
  }
  // A new checking episode with message m from now.
  void Begin(Episode& ep, const CheckMsg& m, uint64_t now) {
    Set(ep, State::kChecking);
    ep.msg = m;
    ep.loop_in = 0;
    ep.since_ns = now;
  }
  // m (one of ours) belongs to the episode its P_gen-ini is running.
  bool Current(const CheckMsg& m, int prio);
  bool Usable(PortId p, int prio) const { return p < cfg_.num_ports && c_.tracked(prio); }
  CheckMsg NewEpisode(PortId i, int prio, PortId tri_port, uint8_t flags, uint64_t now,
                      Output* out);
  // Starts (or keeps) the middle episode on i for the trigger of `trig`;
  // returns the message to send on i.
  CheckMsg StartMiddle(PortId i, int prio, const CheckMsg& trig, uint64_t now, Output* out);
  void SendMiddle(PortMask ports, int prio, const CheckMsg& trig, uint64_t now, Output* out);
  void FirstPass(PortId e, int prio, const CheckMsg& m, uint64_t now, Output* out);
  void OwnReturned(PortId e, int prio, const CheckMsg& m, uint64_t now, Output* out);
  void SecondPass(PortId e, int prio, const CheckMsg& m, uint64_t now, Output* out);
  // Sends m (hops + 1) standalone on ports of `ports`: first pass, on those
  // that have not sent this episode yet (recorded as sent); second pass, only
  // on those that have. Returns how many left.
  int Forward(PortMask ports, int prio, const CheckMsg& m, bool second_pass, Output* out);
  void Fail(PortId i, int prio, FailReason why, uint64_t now, Output* out);
  void Emit(Output* out, EventKind k, uint64_t now, const CheckMsg& m, PortId in, PortId outp,
            FailReason why = FailReason::kNone);
  // Offers m to a sent slot: true when the slot took it (counted as repeat
  // or outranked otherwise). refines: the episode a middle episode m was
  // started from (m replaces it), or nullptr.
  bool TakeSent(MsgSlot* s, const CheckMsg& m, int prio, const CheckMsg* refines);
  // A message this switch sent still has its chain behind it: one of our
  // running episodes, or held by one of our stored slots.
  bool Backed(const CheckMsg& m, int prio);
  void Send(Output* out, PortId p, const CheckMsg& m, bool piggyback);

  DetectorConfig cfg_{};
  Causality c_;
  std::vector<Episode> eps_;        // [prio][port] (all 8 priorities: small)
  int temporal_ = 0;                // episodes in State::kTemporal
  std::vector<uint32_t> next_seq_;  // [prio][port]
  DetectorCounters n_{};
};

}  // namespace pfc::dcfit
