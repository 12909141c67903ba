// SPDX-License-Identifier: BSD-3-Clause
// The DCFIT state machine on small fabrics (tests/dataplane/dcfit/sim.h):
// an on-loop deadlock found and declared by its initial trigger whatever the
// order the loop's pauses form in; the off-loop trigger (§3.4, Fig. 3) found
// by the middle switch, for a switch and for a host trigger; Fig. 4 (the
// same S_tri on two ports, no loop) not declared; a loop that resumes before
// the temporal pass not declared, and declared once it forms again; the
// initial trigger identified as a switch or a host.
#include "dataplane/dcfit/detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "tests/dataplane/dcfit/sim.h"

namespace pfc::dcfit {
namespace {

using sim::kPrio;
using sim::Sim;

// Four switches in a ring, ids 1..4 (A, B, C, D). Port 0: a host; port 1:
// from the previous switch in data order; port 2: to the next. Data flows
// A -> D -> C -> B -> A, so pause flows A -> B -> C -> D -> A: each switch
// queues ring traffic from port 1 to port 2 and pauses its port 1.
struct Ring {
  Sim s;
  std::array<int, 4> sw{};
  Ring() {
    for (int i = 0; i < 4; ++i) {
      sw[i] = s.AddSwitch(static_cast<SwitchId>(i + 1), 3);
      s.Link(s.AddHost(), 0, sw[i], 0);
      s.Queue(sw[i], 1, 2, 5);
    }
    // The data successor of A (0) is D (3), of D is C, of C is B, of B is A.
    for (int i = 0; i < 4; ++i) s.Link(sw[i], 2, sw[(i + 3) % 4], 1);
  }
  // A, B and C pause in turn; D closes the loop; stops right after A finds
  // it, with the temporal pass in flight.
  bool CloseUntilLoopFound() {
    for (int i : {0, 1, 2}) {
      s.Xoff(sw[i], 1);
      s.Run();
    }
    s.Xoff(sw[3], 1);
    return s.RunUntil(EventKind::kLoopFound);
  }
};

TEST(DcfitDetector, OnLoopDeadlockFoundByTheTriggerAndDeclared) {
  Ring r;
  // A is the initial trigger: its port 1's packets wait on port 2, which
  // nobody pauses yet. Then B, C, D pause in turn.
  for (int i : {0, 1, 2, 3}) {
    r.s.Xoff(r.sw[i], 1);
    r.s.Run();
  }
  const auto trig = r.s.EventsOf(EventKind::kTriggerSwitch);
  ASSERT_EQ(trig.size(), 1u) << r.s.Trace();
  EXPECT_EQ(trig[0].node, r.sw[0]);
  EXPECT_EQ(trig[0].ev.msg.tri_sw, 1);
  EXPECT_EQ(trig[0].ev.msg.tri_port, 1);

  const auto loop = r.s.EventsOf(EventKind::kLoopFound);
  ASSERT_EQ(loop.size(), 1u) << r.s.Trace();
  const auto dl = r.s.EventsOf(EventKind::kDeadlock);
  ASSERT_EQ(dl.size(), 1u) << r.s.Trace();
  const Event& d = dl[0].ev;
  EXPECT_EQ(dl[0].node, r.sw[0]);
  EXPECT_EQ(d.in_port, 2);   // where D pauses A
  EXPECT_EQ(d.out_port, 1);  // where A pauses B
  EXPECT_EQ(d.msg.gen_sw, 1);
  EXPECT_EQ(d.msg.gen_port, 1);
  EXPECT_EQ(d.msg.seq, 1u);
  EXPECT_EQ(d.msg.tri_sw, 1);
  EXPECT_EQ(d.msg.flags & (kTriggerHost | kMiddle), 0);
  EXPECT_EQ(d.msg.hops, 3);  // B, C, D: a loop of four switches
  EXPECT_GT(d.at_ns, loop[0].ev.at_ns);
  EXPECT_TRUE(r.s.EventsOf(EventKind::kTemporalFailed).empty()) << r.s.Trace();
  // Nothing reached a host: checking messages follow pause, and the hosts
  // pause nobody here.
  EXPECT_EQ(r.s.frames_to_hosts(), 0u);
  // Declared once: later refreshes around the loop change nothing.
  for (int i : {0, 1, 2, 3}) r.s.Refresh(r.sw[i], 1);
  r.s.Run();
  r.s.Tick(10'000'000);
  EXPECT_EQ(r.s.EventsOf(EventKind::kDeadlock).size(), 1u) << r.s.Trace();
  EXPECT_TRUE(r.s.EventsOf(EventKind::kTemporalFailed).empty()) << r.s.Trace();
}

// Whatever order the four pauses form the loop in, it is declared, always
// for a loop of four switches, by the initiator of the episode.
TEST(DcfitDetector, OnLoopDeadlockDeclaredInEveryFormationOrder) {
  std::array<int, 4> order = {0, 1, 2, 3};
  int perms = 0;
  do {
    Ring r;
    for (int i : order) {
      r.s.Xoff(r.sw[i], 1);
      r.s.Run();
    }
    const auto dl = r.s.EventsOf(EventKind::kDeadlock);
    ASSERT_GE(dl.size(), 1u) << "order " << order[0] << order[1] << order[2] << order[3] << "\n"
                             << r.s.Trace();
    for (const auto& d : dl) {
      EXPECT_EQ(d.ev.msg.hops, 3);
      ASSERT_GE(d.ev.msg.gen_sw, 1);
      ASSERT_LE(d.ev.msg.gen_sw, 4);
      EXPECT_EQ(r.sw[d.ev.msg.gen_sw - 1], d.node);  // declared by its initiator
      EXPECT_EQ(d.ev.in_port, 2);
      EXPECT_EQ(d.ev.out_port, 1);
    }
    EXPECT_TRUE(r.s.EventsOf(EventKind::kTemporalFailed).empty()) << r.s.Trace();
    ++perms;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(perms, 24);
}

// The loop forms, then C stops pausing D before the temporal pass gets
// there: no deadlock; A reports the failure when the pass does not return.
// When C pauses D again and D refreshes its pause of A, the loop is found
// again and, all paused now, declared.
TEST(DcfitDetector, LoopResumedBeforeTheSecondPassIsNotDeclared) {
  Ring r;
  ASSERT_TRUE(r.CloseUntilLoopFound()) << r.s.Trace();
  EXPECT_EQ(r.s.sw(r.sw[0]).temporal_episodes(), 1) << "what Tick times out";
  r.s.Xon(r.sw[2], 1);
  r.s.Run();
  EXPECT_TRUE(r.s.EventsOf(EventKind::kDeadlock).empty()) << r.s.Trace();
  EXPECT_GE(
      r.s.sw(r.sw[2]).counters().temporal_dropped + r.s.sw(r.sw[3]).counters().temporal_dropped,
      1u);
  r.s.Tick(2'000'000);
  const auto failed = r.s.EventsOf(EventKind::kTemporalFailed);
  ASSERT_EQ(failed.size(), 1u) << r.s.Trace();
  EXPECT_EQ(failed[0].node, r.sw[0]);
  EXPECT_EQ(failed[0].ev.why, FailReason::kTimeout);
  EXPECT_EQ(failed[0].ev.msg.seq, 1u);
  EXPECT_EQ(r.s.sw(r.sw[0]).temporal_episodes(), 0);

  r.s.Xoff(r.sw[2], 1);
  r.s.Run();
  r.s.Refresh(r.sw[3], 1);
  r.s.Run();
  EXPECT_EQ(r.s.EventsOf(EventKind::kLoopFound).size(), 2u) << r.s.Trace();
  ASSERT_EQ(r.s.EventsOf(EventKind::kDeadlock).size(), 1u) << r.s.Trace();
  EXPECT_EQ(r.s.EventsOf(EventKind::kDeadlock)[0].node, r.sw[0]);
}

// A's episode ends (A resumes B) while its message is on the way round;
// the loop then closes with that stale message stored at A. When A pauses
// again it starts a new episode instead of sending its stale message round
// (which every switch would ignore as a repeat and A as stale, forever):
// the loop is found and declared with the new Seq. (Found on the fabric:
// bench/dcfit/detect.sh's ring, flow 2 starting at 23 us.)
TEST(DcfitDetector, OwnStaleMessageDoesNotHideTheLoop) {
  Ring r;
  for (int i : {0, 1, 2}) {
    r.s.Xoff(r.sw[i], 1);
    r.s.Run();
  }
  r.s.Xon(r.sw[0], 1);
  r.s.Run();
  r.s.Xoff(r.sw[3], 1);
  r.s.Run();
  EXPECT_TRUE(r.s.EventsOf(EventKind::kLoopFound).empty()) << r.s.Trace();
  EXPECT_GE(r.s.sw(r.sw[0]).counters().stale, 1u) << r.s.Trace();
  r.s.Xoff(r.sw[0], 1);
  r.s.Run();
  const auto dl = r.s.EventsOf(EventKind::kDeadlock);
  ASSERT_EQ(dl.size(), 1u) << r.s.Trace();
  EXPECT_EQ(dl[0].node, r.sw[0]);
  EXPECT_EQ(dl[0].ev.msg.seq, 2u);
}

// All four pause at once, each its own initial trigger: the episodes meet,
// and the deadlock is declared once.
TEST(DcfitDetector, SimultaneousTriggersStillDeclare) {
  Ring r;
  for (int i : {0, 1, 2, 3}) r.s.Xoff(r.sw[i], 1);
  r.s.Run();
  EXPECT_EQ(r.s.EventsOf(EventKind::kTriggerSwitch).size(), 4u) << r.s.Trace();
  // A's episode (the smallest initiator ID) wins every port it meets the
  // others at, so its chain stays whole around the loop.
  const auto dl = r.s.EventsOf(EventKind::kDeadlock);
  ASSERT_EQ(dl.size(), 1u) << r.s.Trace();
  EXPECT_EQ(dl[0].node, r.sw[0]);
  EXPECT_EQ(dl[0].ev.msg.hops, 3);
}

// The resume reaches the initiator's own loop port: it fails at once.
TEST(DcfitDetector, InitiatorLoopPortResumedFailsAtOnce) {
  Ring r;
  ASSERT_TRUE(r.CloseUntilLoopFound());
  r.s.Xon(r.sw[3], 1);  // D resumes A's port 2
  r.s.Run();
  const auto failed = r.s.EventsOf(EventKind::kTemporalFailed);
  ASSERT_EQ(failed.size(), 1u) << r.s.Trace();
  EXPECT_EQ(failed[0].ev.why, FailReason::kLoopPortResumed);
  EXPECT_EQ(failed[0].ev.in_port, 2);
  EXPECT_TRUE(r.s.EventsOf(EventKind::kDeadlock).empty()) << r.s.Trace();
}

// DCFIT Fig. 3: T (10) is the initial trigger off the loop S2 -> S5 -> S1 ->
// S4 -> S2 (pause direction). T pauses S6, S6 pauses S2, S2 pauses S5 (its
// packets from S5 wait on S6 and S4), and the loop closes. S2 receives T's
// {S_tri, P_tri} from S6 and from S4, becomes the middle initiator, and
// declares the deadlock. With host_trigger, T is a host: S6 starts the
// episode on its behalf.
void OffLoop(bool host_trigger) {
  Sim s;
  const int t = host_trigger ? s.AddHost() : s.AddSwitch(10, 2);
  const int s6 = s.AddSwitch(6, 2), s2 = s.AddSwitch(2, 3), s5 = s.AddSwitch(5, 2),
            s1 = s.AddSwitch(1, 2), s4 = s.AddSwitch(4, 2);
  if (!host_trigger) {
    s.Link(s.AddHost(), 0, t, 0);
    s.Queue(t, 1, 0, 3);  // to a slow host: congestion, not pause
  }
  s.Link(t, host_trigger ? 0 : 1, s6, 0);
  s.Link(s6, 1, s2, 0);
  s.Link(s2, 1, s5, 0);
  s.Link(s2, 2, s4, 1);
  s.Link(s5, 1, s1, 0);
  s.Link(s1, 1, s4, 0);
  s.Queue(s6, 1, 0, 3);
  s.Queue(s2, 1, 0, 3);  // from S5 towards T
  s.Queue(s2, 1, 2, 3);  // from S5 around the loop
  s.Queue(s5, 1, 0, 3);
  s.Queue(s1, 1, 0, 3);
  s.Queue(s4, 1, 0, 3);
  for (int n : {t, s6, s2, s5, s1, s4}) {
    s.Xoff(n, host_trigger && n == t ? 0 : 1);
    s.Run();
  }
  const SwitchId tri_sw = host_trigger ? 6 : 10;
  const uint8_t tri_port = host_trigger ? 0 : 1;
  const auto trig = s.EventsOf(host_trigger ? EventKind::kTriggerHost : EventKind::kTriggerSwitch);
  ASSERT_EQ(trig.size(), 1u) << s.Trace();
  EXPECT_EQ(trig[0].ev.msg.tri_sw, tri_sw);
  EXPECT_EQ(trig[0].ev.msg.tri_port, tri_port);

  const auto mid = s.EventsOf(EventKind::kMiddleInitiator);
  ASSERT_EQ(mid.size(), 1u) << s.Trace();
  EXPECT_EQ(mid[0].node, s2);
  EXPECT_EQ(mid[0].ev.out_port, 1);  // S2 pauses S5 on port 1

  const auto dl = s.EventsOf(EventKind::kDeadlock);
  ASSERT_EQ(dl.size(), 1u) << s.Trace();
  const Event& d = dl[0].ev;
  EXPECT_EQ(dl[0].node, s2);
  EXPECT_EQ(d.msg.gen_sw, 2);
  EXPECT_EQ(d.msg.gen_port, 1);
  EXPECT_EQ(d.msg.tri_sw, tri_sw);  // the trigger, off the loop
  EXPECT_EQ(d.msg.tri_port, tri_port);
  EXPECT_EQ((d.msg.flags & kTriggerHost) != 0, host_trigger);
  EXPECT_NE(d.msg.flags & kMiddle, 0);
  EXPECT_EQ(d.msg.hops, 3);  // S5, S1, S4
  EXPECT_EQ(d.in_port, 2);   // S4 pauses S2
  EXPECT_EQ(d.out_port, 1);
  // The trigger's own episode never comes back to it (it is off the loop),
  // and its message did not circle the loop forever: Run() returned.
  EXPECT_TRUE(s.EventsOf(EventKind::kTemporalFailed).empty()) << s.Trace();
}

TEST(DcfitDetector, OffLoopSwitchTriggerFoundByTheMiddleSwitch) { OffLoop(false); }
TEST(DcfitDetector, OffLoopHostTriggerFoundByTheMiddleSwitch) { OffLoop(true); }

// DCFIT Fig. 4: S1 pauses S5, S5 pauses S6 and S7, S6 pauses S7: S7 gets
// S1's {S_tri, P_tri} from two ports and becomes a middle initiator, but
// there is no loop, so nothing is found and nothing declared.
TEST(DcfitDetector, Fig4SameTriggerFromTwoPortsWithoutLoopIsNotDeclared) {
  Sim s;
  const int s1 = s.AddSwitch(1, 2), s5 = s.AddSwitch(5, 3), s6 = s.AddSwitch(6, 2),
            s7 = s.AddSwitch(7, 3);
  const int h1 = s.AddHost(), h7 = s.AddHost();
  s.Link(h1, 0, s1, 0);
  s.Link(s1, 1, s5, 0);
  s.Link(s5, 1, s7, 0);
  s.Link(s5, 2, s6, 0);
  s.Link(s6, 1, s7, 1);
  s.Link(h7, 0, s7, 2);
  s.Queue(s1, 1, 0, 3);
  s.Queue(s5, 1, 0, 3);
  s.Queue(s5, 2, 0, 3);
  s.Queue(s6, 1, 0, 3);
  s.Queue(s7, 2, 0, 3);
  s.Queue(s7, 2, 1, 3);
  s.Xoff(s1, 1);
  s.Run();
  s.Xoff(s5, 1);
  s.Xoff(s5, 2);
  s.Run();
  s.Xoff(s6, 1);
  s.Run();
  s.Xoff(s7, 2);  // S7 pauses its host: the middle message goes there
  s.Run();
  const auto mid = s.EventsOf(EventKind::kMiddleInitiator);
  ASSERT_EQ(mid.size(), 1u) << s.Trace();
  EXPECT_EQ(mid[0].node, s7);
  EXPECT_EQ(mid[0].ev.msg.tri_sw, 1);
  EXPECT_EQ(mid[0].ev.out_port, 2);
  for (int n : {s1, s5, s6, s7}) s.Refresh(n, n == s7 ? 2 : 1);
  s.Run();
  s.Tick(10'000'000);
  EXPECT_TRUE(s.EventsOf(EventKind::kLoopFound).empty()) << s.Trace();
  EXPECT_TRUE(s.EventsOf(EventKind::kDeadlock).empty()) << s.Trace();
  EXPECT_TRUE(s.EventsOf(EventKind::kTemporalFailed).empty()) << s.Trace();
  EXPECT_EQ(s.EventsOf(EventKind::kTriggerSwitch).size(), 1u) << s.Trace();
}

// A host pauses A: when A pauses B because of it, the host is the initial
// trigger (A's port 0), and B learns so from the message A's XOFF carries.
TEST(DcfitDetector, HostTriggerIdentified) {
  Sim s;
  const int a = s.AddSwitch(1, 2), b = s.AddSwitch(2, 2);
  const int ha = s.AddHost(), hb = s.AddHost();
  s.Link(ha, 0, a, 0);
  s.Link(a, 1, b, 0);
  s.Link(hb, 0, b, 1);
  s.Queue(a, 1, 0, 4);
  s.Queue(b, 1, 0, 4);
  s.Xoff(ha, 0);
  s.Run();
  s.Xoff(a, 1);
  s.Run();
  const auto th = s.EventsOf(EventKind::kTriggerHost);
  ASSERT_EQ(th.size(), 1u) << s.Trace();
  EXPECT_EQ(th[0].node, a);
  EXPECT_EQ(th[0].ev.in_port, 0);
  EXPECT_EQ(th[0].ev.out_port, 1);
  EXPECT_TRUE(s.EventsOf(EventKind::kTriggerSwitch).empty()) << s.Trace();
  const MsgSlot* st = s.sw(b).causality().stored(0, kPrio);
  ASSERT_TRUE(st && st->valid);
  EXPECT_EQ(st->msg.tri_sw, 1);
  EXPECT_EQ(st->msg.tri_port, 0);
  EXPECT_NE(st->msg.flags & kTriggerHost, 0);
  EXPECT_EQ(st->msg.gen_sw, 1);
  EXPECT_EQ(st->msg.gen_port, 1);
  // B's own pause carries it on, one hop further, to B's host.
  s.Xoff(b, 1);
  const CheckMsg* pb = s.sw(b).Piggyback(1, kPrio);
  ASSERT_NE(pb, nullptr);
  EXPECT_EQ(pb->hops, 1);
  EXPECT_NE(pb->flags & kTriggerHost, 0);
  s.Run();
  EXPECT_EQ(s.frames_to_hosts(), 1u);
  // The host resumes: A's stored state for port 0 is gone, RESUME tag set.
  s.Xon(ha, 0);
  s.Run();
  EXPECT_TRUE(s.sw(a).causality().resume_tag(0, kPrio));
  EXPECT_EQ(s.sw(a).causality().paused(kPrio), 0u);
}

// A switch whose congestion is its own (no paused egress) is the trigger,
// and each new XOFF after an XON starts a new episode (Seq + 1).
TEST(DcfitDetector, SwitchTriggerStartsANewEpisodePerPause) {
  Sim s;
  const int a = s.AddSwitch(1, 2), h = s.AddHost(), u = s.AddHost();
  s.Link(h, 0, a, 0);
  s.Link(u, 0, a, 1);
  s.Queue(a, 1, 0, 2);
  s.Xoff(a, 1);
  s.Xon(a, 1);
  s.Xoff(a, 1);
  s.Run();
  const auto t = s.EventsOf(EventKind::kTriggerSwitch);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].ev.msg.seq, 1u);
  EXPECT_EQ(t[1].ev.msg.seq, 2u);
  EXPECT_EQ(s.sw(a).counters().tx, 2u);
  EXPECT_EQ(s.frames_to_hosts(), 3u);
}

TEST(DcfitDetector, RejectsBadConfigAndIgnoresUntrackedInput) {
  Detector d;
  std::string err;
  DetectorConfig c;
  c.num_ports = 65;
  c.lossless_mask = 1;
  EXPECT_FALSE(d.Configure(c, &err));
  EXPECT_NE(err.find("num_ports = 65"), std::string::npos) << err;
  c.num_ports = 4;
  c.lossless_mask = 0;
  EXPECT_FALSE(d.Configure(c, &err));
  EXPECT_NE(err.find("lossless_mask = 0"), std::string::npos) << err;
  c.lossless_mask = 1 << kPrio;
  c.temporal_timeout_ns = 0;
  EXPECT_FALSE(d.Configure(c, &err));
  EXPECT_NE(err.find("temporal_timeout_ns"), std::string::npos) << err;
  c.temporal_timeout_ns = 1000;
  ASSERT_TRUE(d.Configure(c, &err)) << err;
  Output out;
  d.OnXoffSent(9, kPrio, 0, &out);  // no such port
  d.OnXoffSent(1, 0, 0, &out);      // a lossy priority
  EXPECT_TRUE(out.msgs.empty() && out.events.empty());
  // A message on a port that is not paused, and one of another priority.
  CheckMsg m;
  m.gen_sw = 9;
  m.prio = kPrio;
  d.OnPfcReceived(1, kPrio, RxKind::kCheckOnly, &m, 0, &out);
  EXPECT_EQ(d.counters().not_paused, 1u);
  m.prio = 4;
  d.OnPfcReceived(1, kPrio, RxKind::kXoff, &m, 0, &out);
  EXPECT_EQ(d.counters().bad, 1u);
  EXPECT_TRUE(out.msgs.empty() && out.events.empty());
}

}  // namespace
}  // namespace pfc::dcfit

namespace pfc::dcfit {
namespace {

// DCFIT Fig. 3 with the IDs of bench/dcfit/detect.sh's ft_off fat-tree: the
// loop A (24) -> B (33) -> C (26) -> D (32) -> A in pause direction, closed
// by the chain of T (3), a switch off the loop congested by its host. A
// pauses both B and D because of T; D gets T's chain from A and, round the
// loop, from C. (sim.h: Queue(n, in, out) = packets from `in` wait on `out`.)
struct OffLoopRing {
  Sim s;
  int t = 0, a = 0, b = 0, c = 0, d = 0;
  OffLoopRing() {
    t = s.AddSwitch(3, 2);
    a = s.AddSwitch(24, 3);
    b = s.AddSwitch(33, 2);
    c = s.AddSwitch(26, 2);
    d = s.AddSwitch(32, 2);
    s.Link(s.AddHost(), 0, t, 0);
    s.Link(t, 1, a, 0);
    s.Link(a, 1, b, 0);
    s.Link(b, 1, c, 0);
    s.Link(c, 1, d, 1);
    s.Link(d, 0, a, 2);
    s.Queue(t, 1, 0, 3);  // to T's slow host
    s.Queue(a, 1, 0, 3);  // from B: towards T (first, so T's chain is A's cause)
    s.Queue(a, 1, 2, 3);  // from B: round the loop, to D
    s.Queue(a, 2, 0, 3);  // from D: towards T
    s.Queue(b, 1, 0, 3);
    s.Queue(c, 1, 0, 3);
    s.Queue(d, 0, 1, 3);  // from A round the loop, to C
    s.Queue(d, 1, 0, 3);  // from C, to A
  }
};

// The failure bench/dcfit/detect.sh found in ft_off (docs/explanation/dcfit.md "DCFIT deadlock
// detection"): A's own episode goes round while the loop forms and ends (A
// resumes B) after D has forwarded it to A. When T's chain then closes the
// loop, D is the middle switch, but its sent slot towards A still held A's
// dead episode, which outranked D's middle episode (24 < 32) on a port that
// stays paused for good: nothing was declared. That dead message is no
// longer backed by anything D stores, so D's middle episode replaces it; A,
// a middle switch too, starts a smaller one that D forwards; declared once.
TEST(DcfitDetector, DeadEpisodeInASentSlotDoesNotHideTheLoop) {
  OffLoopRing r;
  Sim& s = r.s;
  s.Xoff(r.a, 1);  // A congested: its own episode, round B and C to D
  s.Run();
  s.Xoff(r.b, 1);
  s.Run();
  s.Xoff(r.c, 1);
  s.Run();
  s.Xon(r.a, 1);  // A's episode ends; B and C go on pausing
  s.Run();
  s.Xoff(r.d, 0);  // D's cause is C's pause: it carries A's dead episode to A
  s.Run();
  EXPECT_GE(s.sw(r.a).counters().stale, 1u) << s.Trace();
  const MsgSlot* dead = s.sw(r.d).causality().sent(0, kPrio);
  ASSERT_TRUE(dead->valid);
  EXPECT_EQ(dead->msg.gen_sw, 24);
  // T pauses A; A pauses D and B again, carrying T's chain.
  s.Xoff(r.t, 1);
  s.Run();
  s.Xoff(r.a, 2);
  s.Run();
  s.Xoff(r.a, 1);
  s.Run();
  EXPECT_TRUE(s.EventsOf(EventKind::kTemporalFailed).empty()) << s.Trace();
  const auto dl = s.EventsOf(EventKind::kDeadlock);
  ASSERT_EQ(dl.size(), 1u) << s.Trace();
  EXPECT_EQ(dl[0].node, r.a);
  EXPECT_EQ(dl[0].ev.msg.tri_sw, 3);  // T, off the loop
  EXPECT_NE(dl[0].ev.msg.flags & kMiddle, 0);
  EXPECT_EQ(dl[0].ev.msg.hops, 3);
  EXPECT_GE(s.sw(r.d).counters().unbacked, 1u);
}

// The loop closes with T's chain only: D and A both get it on two ports and
// both are middle switches. Each used to replace the other's chain by its
// own, so neither came back round. D forwards A's (smaller) middle episode
// instead, and A declares, once; no message circles (Run returns).
TEST(DcfitDetector, TwoMiddleSwitchesOfOneLoopDeclareOnce) {
  OffLoopRing r;
  Sim& s = r.s;
  s.Xoff(r.t, 1);
  s.Run();
  for (auto [n, p] : {std::pair{r.a, 2}, {r.a, 1}, {r.b, 1}, {r.c, 1}, {r.d, 0}}) {
    s.Xoff(n, static_cast<PortId>(p));
    s.Run();
  }
  const auto mid = s.EventsOf(EventKind::kMiddleInitiator);
  ASSERT_EQ(mid.size(), 2u) << s.Trace();
  const auto dl = s.EventsOf(EventKind::kDeadlock);
  ASSERT_EQ(dl.size(), 1u) << s.Trace();
  EXPECT_EQ(dl[0].node, r.a);
  EXPECT_EQ(dl[0].ev.msg.gen_sw, 24);
  EXPECT_EQ(dl[0].ev.msg.hops, 3);
  EXPECT_TRUE(s.EventsOf(EventKind::kTemporalFailed).empty()) << s.Trace();
  // Refreshes all round change nothing.
  for (auto [n, p] : {std::pair{r.a, 2}, {r.a, 1}, {r.b, 1}, {r.c, 1}, {r.d, 0}})
    s.Refresh(n, static_cast<PortId>(p));
  s.Run();
  EXPECT_EQ(s.EventsOf(EventKind::kDeadlock).size(), 1u) << s.Trace();
}

// T's pause starts the chain into the loop and ends (T resumes A) before D
// closes the loop: the chain circles the loop on its own, with no trigger
// left to make a middle switch (a host's short pause storm does this in
// bench/dcfit/detect.sh). A sees the chain come back with more hops than it
// sent it with, starts a middle episode, and declares.
TEST(DcfitDetector, ChainCirclingWithoutItsTriggerIsFound) {
  OffLoopRing r;
  Sim& s = r.s;
  s.Xoff(r.t, 1);
  s.Run();
  for (auto [n, p] : {std::pair{r.a, 1}, {r.b, 1}, {r.c, 1}}) {
    s.Xoff(n, static_cast<PortId>(p));
    s.Run();
  }
  s.Xon(r.t, 1);
  s.Run();
  EXPECT_FALSE(s.sw(r.a).causality().stored(0, kPrio)->valid);
  s.Xoff(r.d, 0);
  s.Run();
  const auto mid = s.EventsOf(EventKind::kMiddleInitiator);
  ASSERT_EQ(mid.size(), 1u) << s.Trace();
  EXPECT_EQ(mid[0].node, r.a);
  const auto dl = s.EventsOf(EventKind::kDeadlock);
  ASSERT_EQ(dl.size(), 1u) << s.Trace();
  EXPECT_EQ(dl[0].node, r.a);
  EXPECT_EQ(dl[0].ev.msg.tri_sw, 3);
  EXPECT_EQ(dl[0].ev.msg.hops, 3);
}

}  // namespace
}  // namespace pfc::dcfit
