// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of the DCFIT glue (stages/dcfit_stage.h) on the real stages:
// the causality counts follow packets through enqueue and dequeue; an XOFF
// the switch sends carries the detector's message and stays a valid PFC
// frame; a message received in a PFC frame reaches the detector (it rides on
// the XOFF that the pause causes); a corrupted one is counted and ignored;
// and a loop closed through the peer's frames is found, confirmed by the
// temporal pass and, with recovery: break, broken by discarding the looped
// queue (virtual clock throughout). A switch trigger's notice rate-limits
// exactly the heavy hitters into its congested egress, to their share of
// dcfit.rate_limit, for hold_time (§4).
#include <array>
#include <set>
#include <string>

#include "dataplane/dcfit/heavy_hitter.h"
#include "dataplane/dcfit/message.h"
#include "dataplane/pause/pfc_frame.h"
#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/worker.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
constexpr int kPrio = 3;  // tag 24: lossless, passes unchanged (BaseYaml)

using Frames = std::vector<std::vector<uint8_t>>;

const std::string kBuffer =
    "  total_bytes: 256K\n"
    "  lossy: { reserved: 0, limit: 64K }\n"
    "  lossless: { reserved: 0, xoff: 2K, headroom: 16K, xon_hysteresis: 1K }\n";

std::string Yaml(const std::string& recovery) {
  return BaseYaml(kBuffer, "dcfit: { enabled: true, switch_id: 7, recovery: " + recovery + " }\n");
}

// n lossless packets from p0 to the host on p3.
Frames ToP3(uint16_t n) {
  Frames f;
  for (uint16_t i = 0; i < n; i++)
    f.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 24, .seq = i}));
  return f;
}

std::vector<uint8_t> PeerPfc(int port, uint16_t quanta, const dcfit::CheckMsg* m) {
  pause::PauseRequest r;
  r.class_enable = 1u << kPrio;
  r.quanta[kPrio] = quanta;
  std::vector<uint8_t> f(pause::kPfcFrameLen);
  const size_t n = m ? dcfit::BuildPfcWithMsg(HostMac(port), r, *m, f.data(), f.size())
                     : pause::BuildPfcFrame(HostMac(port), r, f.data(), f.size());
  EXPECT_EQ(n, pause::kPfcFrameLen);
  return f;
}

std::vector<uint8_t> PeerCheck(int port, const dcfit::CheckMsg& m) {
  std::vector<uint8_t> f(pause::kPfcFrameLen);
  EXPECT_EQ(dcfit::BuildCheckingPacket(HostMac(port), m, f.data(), f.size()), pause::kPfcFrameLen);
  return f;
}

// The frame is a valid PFC frame (as any 802.1Qbb peer reads it); returns
// the DCFIT status of its padding and the message.
dcfit::MsgStatus Decode(const std::vector<uint8_t>& f, pause::PauseRequest* r, dcfit::CheckMsg* m) {
  EXPECT_EQ(f.size(), pause::kPfcFrameLen);
  EXPECT_EQ(pause::ParseMacControl(f.data(), f.size(), r), pause::MacCtlKind::kPfc);
  return dcfit::ParseFrameMsg(f.data(), f.size(), r, m);
}

// The message of an episode that switch sw's port started as initial trigger.
dcfit::CheckMsg TriggerMsg(dcfit::SwitchId sw, uint8_t port, uint32_t seq, uint8_t hops) {
  dcfit::CheckMsg m;
  m.gen_sw = m.tri_sw = sw;
  m.gen_port = m.tri_port = port;
  m.seq = seq;
  m.prio = kPrio;
  m.hops = hops;
  return m;
}

const dcfit::Causality& Causal(const sw::Switch& sw) {
  return stages::DcfitOf(sw)->det.causality();
}

// The loop closes through the peer on p3: it pauses us without a message
// (so the XOFF on p0 starts an episode on the peer's behalf), then our own
// message comes back on p3 (first pass: a causality loop, Lemma 1), then the
// second pass (temporal consistency): deadlock declared at this switch.
class DcfitTest : public StageTest {
 protected:
  // The one frame the switch sent on `port` since the last look, as PFC
  // (*r) and DCFIT (the status; *m when kOk).
  dcfit::MsgStatus OneFrame(PortId port, pause::PauseRequest* r, dcfit::CheckMsg* m) {
    const Frames f = TakeTx(port);
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? dcfit::MsgStatus::kNone : Decode(f[0], r, m);
  }

  // A deadlock closed (Close) with recovery: break: the looped queue is
  // discarded once, the upstream released.
  void ExpectBreakOnce();
  // A peer's pause on p3 runs out without XON (one worker or two).
  void ExpectExpiryOnOwner(bool two);

  // Returns the episode's message as p0's XOFF carried it.
  dcfit::CheckMsg Close(bool* second_pass_sent) {
    Ingress(3, {PeerPfc(3, 0xffff, nullptr)}, kT0);
    Ingress(0, ToP3(32), kT0 + 10);
    EXPECT_EQ(Egress(0, kT0 + 20), 0);
    pause::PauseRequest r;
    dcfit::CheckMsg m;
    EXPECT_EQ(OneFrame(0, &r, &m), dcfit::MsgStatus::kOk);
    EXPECT_TRUE(m.flags & dcfit::kTriggerHost) << "the peer that paused without a message";
    EXPECT_EQ(m.gen_sw, 7);
    EXPECT_EQ(m.tri_port, 3);
    // Around the loop and back on p3, in the peer's XOFF refresh.
    dcfit::CheckMsg back = m;
    back.hops = 4;
    Ingress(3, {PeerPfc(3, 0xffff, &back)}, kT0 + 30);
    EXPECT_EQ(Snapshot(*sw_)["dcfit_loops_found"], 1u);
    // The temporal pass leaves on P_gen-ini = p0 as a standalone checking
    // packet, through the control ring, although nothing else moves.
    EXPECT_EQ(Egress(0, kT0 + 40), 1);
    dcfit::CheckMsg t;
    EXPECT_EQ(OneFrame(0, &r, &t), dcfit::MsgStatus::kOk);
    EXPECT_EQ(r.class_enable, 0) << "a checking packet pauses nothing";
    *second_pass_sent = (t.flags & dcfit::kSecondPass) && t.SameEpisode(m);
    // It comes back: deadlock.
    Ingress(3, {PeerCheck(3, t)}, kT0 + 50);
    return m;
  }
};

TEST_F(StageTest, DcfitOffHasNoState) {
  Start(BaseYaml());
  EXPECT_EQ(stages::DcfitOf(*sw_), nullptr);
}

TEST_F(DcfitTest, CausalityFollowsPackets) {
  Start(Yaml("detect"));
  ASSERT_NE(stages::DcfitOf(*sw_), nullptr);
  Ingress(0, ToP3(8), kT0);
  EXPECT_TRUE(Causal(*sw_).Waiting(0, 3, kPrio));
  EXPECT_EQ(Causal(*sw_).Xi(3, kPrio), PortMask{1} << 0);
  EXPECT_EQ(Causal(*sw_).WaitsOn(0, kPrio), PortMask{1} << 3);
  EXPECT_EQ(Egress(3, kT0 + 10), 8);
  EXPECT_EQ(TakeTx(3).size(), 8u);
  EXPECT_FALSE(Causal(*sw_).Waiting(0, 3, kPrio));
  EXPECT_EQ(Causal(*sw_).Xi(3, kPrio), 0u) << "the bit clears with the last packet";
  EXPECT_EQ(Causal(*sw_).dequeue_underflows(), 0u);
  // Lossy packets are not tracked.
  Ingress(0, {Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 7})}, kT0 + 20);
  EXPECT_EQ(Causal(*sw_).Xi(3, 0), 0u);
  EXPECT_EQ(Egress(3, kT0 + 30), 1);
  EXPECT_EQ(TakeTx(3).size(), 1u);
}

// A packet whose priority a rewrite changed (tag 24 -> 26 from p0 to p1:
// priority 3 -> 4, BaseYaml) is outside the causality, which is per
// priority; one that keeps its priority (tag 26) is followed as usual.
TEST_F(DcfitTest, RewrittenPriorityIsNotFollowed) {
  Start(Yaml("detect"));
  // The moved packet last: the group's last packet that counts is the first.
  Ingress(0,
          {Frame({.in_port = 0, .dst_ip = Ip(10, 0, 1, 2), .dscp = 26, .seq = 1}),
           Frame({.in_port = 0, .dst_ip = Ip(10, 0, 1, 2), .dscp = 24, .seq = 2})},
          kT0);
  EXPECT_TRUE(sw_->CurrentTables()->moves_into_lossless) << "the rule 24 -> 26 moves 3 -> 4";
  EXPECT_EQ(QueueDepth(1, 4), 2u) << "both queued at priority 4";
  EXPECT_TRUE(Causal(*sw_).Waiting(0, 1, 4)) << "the one that came in on 4";
  EXPECT_FALSE(Causal(*sw_).Waiting(0, 1, kPrio));
  EXPECT_EQ(Causal(*sw_).WaitsOn(0, kPrio), 0u);
  EXPECT_EQ(Causal(*sw_).WaitsOn(0, 4), PortMask{1} << 1);
  EXPECT_EQ(Egress(1, kT0 + 10), 2);
  EXPECT_EQ(TakeTx(1).size(), 2u);
  EXPECT_EQ(Causal(*sw_).Xi(1, 4), 0u);
  EXPECT_EQ(Causal(*sw_).dequeue_underflows(), 0u) << "enqueue and dequeue skip the same packet";
}

// Without a rule that moves a priority (the usual DCFIT fabric), ingress
// counts a group without looking at each packet; the counts are the same.
TEST_F(DcfitTest, NoPriorityMoveCountsEveryPacket) {
  std::string y = Yaml("detect");
  const std::string rule = "    - { tag: 24, in: [p0], out: [p1], new_tag: 26, priority: 10 }\n";
  ASSERT_NE(y.find(rule), std::string::npos);
  y.erase(y.find(rule), rule.size());
  Start(y);
  EXPECT_FALSE(sw_->CurrentTables()->moves_into_lossless);
  Ingress(0,
          {Frame({.in_port = 0, .dst_ip = Ip(10, 0, 1, 2), .dscp = 24, .seq = 1}),
           Frame({.in_port = 0, .dst_ip = Ip(10, 0, 1, 2), .dscp = 26, .seq = 2})},
          kT0);
  EXPECT_TRUE(Causal(*sw_).Waiting(0, 1, kPrio));
  EXPECT_TRUE(Causal(*sw_).Waiting(0, 1, 4));
  EXPECT_EQ(Egress(1, kT0 + 10), 2);
  EXPECT_EQ(TakeTx(1).size(), 2u);
  EXPECT_EQ(Causal(*sw_).Xi(1, kPrio) | Causal(*sw_).Xi(1, 4), 0u);
  EXPECT_EQ(Causal(*sw_).dequeue_underflows(), 0u);
}

TEST_F(DcfitTest, XoffCarriesTheTriggersMessage) {
  Start(Yaml("detect"));
  // 32 x 128-byte cells = 4 KiB > the 2 KiB XOFF point of (p0, 3); p3 is
  // not paused, so this switch is the initial trigger (§3.1).
  Ingress(0, ToP3(32), kT0);
  EXPECT_EQ(Egress(0, kT0 + 10), 0);
  pause::PauseRequest r;
  dcfit::CheckMsg m;
  ASSERT_EQ(OneFrame(0, &r, &m), dcfit::MsgStatus::kOk);
  EXPECT_EQ(r.class_enable, 1u << kPrio);
  EXPECT_EQ(r.quanta[kPrio], 0xffff);
  EXPECT_EQ(m, TriggerMsg(7, 0, 1, 0)) << "switch 7 (config), port 0, its first episode";
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c["p0.dcfit_msg_tx"], 1u);
  EXPECT_EQ(c["dcfit_episodes"], 1u);
  // p3 drains, the XON that follows carries no message.
  EXPECT_EQ(Egress(3, kT0 + 20), 32);
  EXPECT_EQ(TakeTx(3).size(), 32u);
  EXPECT_EQ(Egress(0, kT0 + 30), 0);
  EXPECT_EQ(OneFrame(0, &r, &m), dcfit::MsgStatus::kNone);
  EXPECT_EQ(r.quanta[kPrio], 0);
  EXPECT_EQ(Snapshot(*sw_)["p0.dcfit_msg_tx"], 1u);
}

TEST_F(DcfitTest, ReceivedMessageRidesOnTheXoffItCauses) {
  Start(Yaml("detect"));
  // The peer on p3 pauses us with a message from switch 5's episode.
  const dcfit::CheckMsg peer = TriggerMsg(5, 2, 9, 2);
  std::vector<uint8_t> bad = PeerPfc(3, 0xffff, &peer);
  bad[dcfit::kMsgOffset + 8] ^= 0x40;  // S_gen-ini corrupted: the checksum fails
  Ingress(3, {bad, PeerPfc(3, 0xffff, &peer)}, kT0);
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c["p3.dcfit_msg_dropped"], 1u);
  EXPECT_EQ(c["p3.dcfit_msg_rx"], 1u);
  EXPECT_EQ(c["p3.q3.pfc_xoff_rx"], 2u) << "a bad message never costs the pause itself";
  const dcfit::MsgSlot* st = Causal(*sw_).stored(3, kPrio);
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(st->valid);
  EXPECT_EQ(st->msg, peer);
  // Packets to the paused p3 back up into (p0, 3): its XOFF carries the
  // stored message one hop further, no new episode.
  Ingress(0, ToP3(32), kT0 + 10);
  EXPECT_EQ(Egress(3, kT0 + 20), 0);
  EXPECT_EQ(Egress(0, kT0 + 20), 0);
  pause::PauseRequest r;
  dcfit::CheckMsg m;
  ASSERT_EQ(OneFrame(0, &r, &m), dcfit::MsgStatus::kOk);
  dcfit::CheckMsg want = peer;
  want.hops = 3;
  EXPECT_EQ(m, want);
  EXPECT_EQ(Snapshot(*sw_)["dcfit_episodes"], 0u);
  // The peer resumes: everything drains, p0 resumes its upstream.
  Ingress(3, {PeerPfc(3, 0, nullptr)}, kT0 + 30);
  EXPECT_FALSE(Causal(*sw_).stored(3, kPrio)->valid) << "XON drops the stored message";
  EXPECT_EQ(Egress(3, kT0 + 40), 32);
  EXPECT_EQ(TakeTx(3).size(), 32u);
  EXPECT_EQ(Egress(0, kT0 + 50), 0);
  EXPECT_EQ(TakeTx(0).size(), 1u);
}

TEST_F(DcfitTest, DeadlockDetectedAndReportedOnly) {
  Start(Yaml("detect"));
  bool second = false;
  const dcfit::CheckMsg m = Close(&second);
  EXPECT_TRUE(second);
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c["dcfit_deadlocks"], 1u);
  EXPECT_EQ(c["p0.q3.drop.dcfit_break"], 0u);
  EXPECT_EQ(QueueDepth(3, kPrio), 32u) << "detect only: the queue stays";
  uint64_t total = 0;
  const auto ev = stages::DcfitOf(*sw_)->log.Snapshot(&total);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].ev.kind, dcfit::EventKind::kLoopFound);
  EXPECT_EQ(ev[1].ev.kind, dcfit::EventKind::kDeadlock);
  EXPECT_EQ(ev[1].ev.in_port, 3);
  EXPECT_EQ(ev[1].ev.out_port, 0);
  EXPECT_EQ(ev[1].ev.at_ns, kT0 + 50);
  EXPECT_TRUE(ev[1].ev.msg.SameEpisode(m));
  EXPECT_FALSE(ev[1].broke);
  char at[32];
  std::snprintf(at, sizeof at, "%.6f ms", (kT0 + 50) / 1e6);
  // In words, the right way round: p3 is where we are paused, p0 where we
  // pause; other switches by number without a namer, by name with one.
  EXPECT_EQ(stages::DcfitEventText(ev[1], "p3", "p0"),
            std::string("deadlock on priority 3: our egress to p3 is paused, we pause p0 upstream; "
                        "declared by switch 7 port 0 (seq 1), trigger switch 7 port 3 (a host), "
                        "0 hops, at ") +
                at);
  const sw::DcfitNamer namer = [](uint64_t sw, uint64_t port) {
    return (sw == 7 ? std::string("T1") : std::string("?")) + " port H" + std::to_string(port);
  };
  EXPECT_NE(stages::DcfitEventText(ev[1], "p3", "p0", namer)
                .find("declared by T1 port H0 (seq 1), trigger T1 port H3 (a host)"),
            std::string::npos);
  // Clean up: the peer resumes.
  Ingress(3, {PeerPfc(3, 0, nullptr)}, kT0 + 60);
  EXPECT_EQ(Egress(3, kT0 + 70), 32);
  EXPECT_EQ(TakeTx(3).size(), 32u);
  EXPECT_EQ(Egress(0, kT0 + 80), 0);
  EXPECT_EQ(TakeTx(0).size(), 1u);  // XON
}

// The same switch served by two workers: p0 and p2 on worker 0, p1 and p3
// on worker 1 (switch.cc: port i on worker i % workers), so every packet
// from p0 to p3 is enqueued by one worker and sent (or discarded) by the
// other, and the PFC hooks of p0 and p3 run on different workers.
std::string TwoWorkers(std::string yaml) {
  const size_t at = yaml.find("workers: 1");
  EXPECT_NE(at, std::string::npos);
  return yaml.replace(at, 10, "workers: 2");
}

void DcfitTest::ExpectBreakOnce() {
  bool second = false;
  Close(&second);
  EXPECT_TRUE(second);
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c["dcfit_deadlocks"], 1u);
  EXPECT_EQ(c["p0.q3.drop.dcfit_break"], 32u) << "by ingress port and priority, like every drop";
  EXPECT_EQ(QueueDepth(3, kPrio), 0u);
  EXPECT_EQ(Occ(0, kPrio), 0u) << "their buffer is released";
  EXPECT_EQ(Causal(*sw_).Xi(3, kPrio), 0u);
  uint64_t total = 0;
  const auto ev = stages::DcfitOf(*sw_)->log.Snapshot(&total);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_TRUE(ev[1].broke);
  EXPECT_EQ(ev[1].break_drops, 32u);
  // The upstream is released: p0 sends XON.
  EXPECT_EQ(Egress(0, kT0 + 60), 0);
  pause::PauseRequest r;
  dcfit::CheckMsg m;
  EXPECT_EQ(OneFrame(0, &r, &m), dcfit::MsgStatus::kNone);
  EXPECT_EQ(r.quanta[kPrio], 0);
  // The peer resumes: nothing left to send, and no second break.
  Ingress(3, {PeerPfc(3, 0, nullptr)}, kT0 + 70);
  EXPECT_EQ(Egress(3, kT0 + 80), 0);
  EXPECT_EQ(Snapshot(*sw_)["dcfit_deadlocks"], 1u);
}

TEST_F(DcfitTest, BreakDiscardsTheLoopedQueueOnce) {
  Start(Yaml("break"));
  ExpectBreakOnce();
}

TEST_F(DcfitTest, TwoWorkersDetectAndBreakTheSame) {
  Start(TwoWorkers(Yaml("break")));
  ASSERT_EQ(sw_->ports[0].owner, 0u);
  ASSERT_EQ(sw_->ports[3].owner, 1u);
  EXPECT_TRUE(stages::DcfitOf(*sw_)->shared);
  EXPECT_EQ(Causal(*sw_).shards(), 2u);
  ExpectBreakOnce();
}

TEST_F(DcfitTest, TwoWorkersCausalityFollowsPackets) {
  Start(TwoWorkers(Yaml("detect")));
  Ingress(0, ToP3(8), kT0);  // worker 0 enqueues
  EXPECT_TRUE(Causal(*sw_).Waiting(0, 3, kPrio));
  EXPECT_EQ(Causal(*sw_).Xi(3, kPrio), PortMask{1} << 0);
  EXPECT_EQ(Causal(*sw_).WaitsOn(0, kPrio), PortMask{1} << 3);
  EXPECT_EQ(Egress(3, kT0 + 10), 8) << "worker 1 sends";
  EXPECT_EQ(TakeTx(3).size(), 8u);
  EXPECT_FALSE(Causal(*sw_).Waiting(0, 3, kPrio));
  EXPECT_EQ(Causal(*sw_).Xi(3, kPrio), 0u) << "the bit clears with the last packet";
  EXPECT_EQ(Causal(*sw_).WaitsOn(0, kPrio), 0u);
}

// A peer's pause that runs out without XON is a resume (§3.2), noticed by
// the worker that owns the port (its pause timer), with one worker or two.
void DcfitTest::ExpectExpiryOnOwner(bool two) {
  Start(two ? TwoWorkers(Yaml("detect")) : Yaml("detect"));
  // 100 quanta at 10G: 5.12 us.
  Ingress(3, {PeerPfc(3, 100, nullptr)}, kT0);
  EXPECT_EQ(Causal(*sw_).paused(kPrio), PortMask{1} << 3);
  EXPECT_FALSE(Causal(*sw_).resume_tag(3, kPrio));
  Deadline ready = kNever;
  stages::WorkerRound(Owner(3), kT0 + 5'000, &ready);
  EXPECT_EQ(Causal(*sw_).paused(kPrio), PortMask{1} << 3) << "not yet";
  if (two) {
    stages::WorkerRound(w_, kT0 + 6'000, &ready);
    EXPECT_EQ(Causal(*sw_).paused(kPrio), PortMask{1} << 3) << "p3 is not worker 0's";
  }
  stages::WorkerRound(Owner(3), kT0 + 6'000, &ready);
  EXPECT_EQ(Causal(*sw_).paused(kPrio), 0u);
  EXPECT_TRUE(Causal(*sw_).resume_tag(3, kPrio));
  EXPECT_EQ(stages::DcfitOf(*sw_)->paused_since[3][kPrio], 0u);
}

TEST_F(DcfitTest, PauseExpiryIsAResume) { ExpectExpiryOnOwner(false); }
TEST_F(DcfitTest, TwoWorkersPauseExpiryIsAResumeOnTheOwner) { ExpectExpiryOnOwner(true); }

// Source port of a frame Frame() built (10.0.<in_port>.2, untagged IPv4).
int SrcPortOf(const std::vector<uint8_t>& f) { return f.size() > 28 ? f[28] : -1; }

// n lossless packets from the host on `in` to the host on `to`.
Frames Flow(int in, uint16_t n, int to = 3) {
  Frames f;
  for (uint16_t i = 0; i < n; i++)
    f.push_back(Frame({.in_port = in, .dst_ip = Ip(10, 0, to, 2), .dscp = 24, .seq = i}));
  return f;
}

// The one PFC frame sent on `port` since the last look: its quanta for kPrio.
int QuantaSent(const Frames& f) {
  pause::PauseRequest r;
  dcfit::CheckMsg m;
  EXPECT_EQ(f.size(), 1u);
  if (f.size() != 1) return -1;
  Decode(f[0], &r, &m);
  EXPECT_EQ(r.class_enable & (1u << kPrio), 1u << kPrio);
  return r.quanta[kPrio];
}

// Switch trigger (§4): p0 and p1 congest p3 (which nobody pauses), so this
// switch is the initial trigger of the episodes its XOFFs start; the notice
// for {7, p0} names the heavy hitters the sketch saw into p3 and limits
// each to half of dcfit.rate_limit (two of them) for hold_time.
TEST_F(DcfitTest, SwitchTriggerRateLimitsItsHeavyHitters) {
  constexpr uint64_t kHold = 5'000'000;         // hold_time: 5ms
  constexpr uint64_t kShareBps = 16'000'000;    // rate_limit 32M, two hitters
  constexpr uint64_t kBurst = 16 * 1024;        // the limiter's bucket depth
  constexpr uint64_t kLen = 60;                 // bytes a packet (Frame())
  constexpr uint64_t kStep = 100'000;           // a round every 100us
  constexpr int kSteps = 50;                    // the whole hold, less one step
  constexpr uint16_t kA = 12, kB = 12, kC = 1;  // offered a step: A, B >> share
  Start(BaseYaml(kBuffer,
                 "dcfit: { enabled: true, switch_id: 7, recovery: break, trigger_handling: "
                 "true, hold_time: 5ms, rate_limit: 32M }\n"));
  // 4 KiB each into (p0, 3) and (p1, 3): over the 2 KiB XOFF point.
  Ingress(0, Flow(0, 32), kT0);
  Ingress(1, Flow(1, 32), kT0);
  for (PortId p : {0, 1}) {
    EXPECT_EQ(Egress(p, kT0 + 10), 0);
    pause::PauseRequest r;
    dcfit::CheckMsg m;
    ASSERT_EQ(OneFrame(p, &r, &m), dcfit::MsgStatus::kOk);
    EXPECT_EQ(m, TriggerMsg(7, static_cast<uint8_t>(p), 1, 0))
        << "a switch trigger (no kTriggerHost; Seq per port): p3 is not paused";
  }
  EXPECT_EQ(Snapshot(*sw_)["dcfit_episodes"], 2u);
  EXPECT_EQ(stages::DcfitOf(*sw_)->hh_watch[kPrio], PortMask{1} << 3)
      << "the congested egress is watched";
  // While we pause p0 and p1, what arrives for p3 feeds the sketch: A and B
  // 16 packets each, C (from p2) 2: 2/34 of the bytes, under the 1/8 a heavy
  // hitter needs (1 / (2 * kMaxLimited)).
  Ingress(0, Flow(0, 16), kT0 + 20);
  Ingress(1, Flow(1, 16), kT0 + 20);
  Ingress(2, Flow(2, 2), kT0 + 20);
  EXPECT_EQ(stages::DcfitOf(*sw_)->sketch.total_bytes(), 34 * kLen);
  // The notice for {S_tri 7, P_tri p0} arrives from the declaring switch 9.
  const uint64_t tn = kT0 + 30;
  dcfit::CheckMsg notice = TriggerMsg(7, 0, 1, 2);
  notice.gen_sw = 9;
  notice.gen_port = 1;
  notice.seq = 4;
  notice.flags = dcfit::kNotice;
  Ingress(3, {PeerCheck(3, notice)}, tn);
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c["p3.dcfit_notice_rx"], 1u);
  EXPECT_EQ(c["dcfit_trigger_holds"], 1u);
  uint64_t total = 0;
  auto ev = stages::DcfitOf(*sw_)->log.Snapshot(&total);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].act.kind, dcfit::ActionKind::kRateLimit);
  EXPECT_EQ(ev[0].act.port, 0);
  EXPECT_EQ(ev[0].act.until_ns, tn + kHold);
  EXPECT_EQ(ev[0].limit_ports, PortMask{1} << 3);
  EXPECT_EQ(ev[0].limit_bps, kShareBps) << "an equal share of dcfit.rate_limit";
  ASSERT_EQ(ev[0].n_hitters, 2);
  std::set<std::string> named;
  for (int i = 0; i < ev[0].n_hitters; i++) {
    named.insert(dcfit::FlowKeyText(ev[0].hitters[i].key));
    EXPECT_EQ(ev[0].hitters[i].bytes, 16 * kLen);
    EXPECT_EQ(ev[0].hitters[i].error, 0u);
  }
  EXPECT_EQ(named, (std::set<std::string>{"10.0.0.2>10.0.3.2", "10.0.1.2>10.0.3.2"}));

  // The hold: every 100us each of A and B offers 12 packets (720 B, 3.6x
  // its 200 B share), C one; p3 sends all it has. A limiter's bucket starts
  // full (kBurst) at tn and gains kShareBps after, and each flow always
  // offers more than it holds, so by the last step a flow has passed
  // floor((kBurst + share * elapsed) / kLen) packets: rate out = share to
  // within kBurst / elapsed (the burst) and one packet.
  std::array<uint64_t, 3> out{};  // from p0, p1, p2 in the hold
  const std::array<uint64_t, 3> backlog{48, 48, 2};
  for (int k = 0; k < kSteps; k++) {
    const uint64_t t = tn + static_cast<uint64_t>(k) * kStep;
    Ingress(0, Flow(0, kA), t);
    Ingress(1, Flow(1, kB), t);
    Ingress(2, Flow(2, kC), t);
    while (Egress(3, t + 1) > 0) {
    }
    for (const auto& f : TakeTx(3)) {
      const int s = SrcPortOf(f);
      ASSERT_TRUE(s >= 0 && s <= 2);
      out[static_cast<size_t>(s)]++;
    }
    Egress(0, t + 2);  // the XON after the backlog drains
    Egress(1, t + 2);
    TakeTx(0);
    TakeTx(1);
  }
  const uint64_t elapsed = (kSteps - 1) * kStep;
  const uint64_t allowed = kBurst + kShareBps * elapsed / 8'000'000'000;
  for (int s : {0, 1}) {
    const uint64_t passed = out[static_cast<size_t>(s)] - backlog[static_cast<size_t>(s)];
    EXPECT_LE(passed * kLen, allowed) << "flow from p" << s;
    EXPECT_GT(passed * kLen + kLen, allowed) << "flow from p" << s;
    EXPECT_EQ(passed, allowed / kLen);
  }
  EXPECT_EQ(out[2], backlog[2] + kSteps * kC) << "C is no heavy hitter: untouched";
  const uint64_t dropped = kSteps * kA - (out[0] - backlog[0]);
  c = Snapshot(*sw_);
  EXPECT_EQ(c["p0.q3.drop.dcfit_rate_limit"], dropped);
  EXPECT_EQ(c["p1.q3.drop.dcfit_rate_limit"], dropped);
  for (const auto& [name, v] : c) {
    if (name.find(".drop.") != std::string::npos &&
        name.find("dcfit_rate_limit") == std::string::npos) {
      EXPECT_EQ(v, 0u) << name << ": the limit drops only what it names";
    }
  }
  EXPECT_EQ(Occ(0, kPrio) + Occ(1, kPrio) + Occ(2, kPrio), 0u) << "drops release their buffer";

  // The hold ends hold_time after the notice, not before.
  Deadline ready = kNever;
  stages::WorkerRound(w_, tn + kHold - 1, &ready);
  EXPECT_EQ(stages::DcfitOf(*sw_)->limit_ports[kPrio], PortMask{1} << 3);
  stages::WorkerRound(w_, tn + kHold, &ready);
  EXPECT_EQ(stages::DcfitOf(*sw_)->limit_ports[kPrio], 0u);
  EXPECT_TRUE(stages::DcfitOf(*sw_)->limiters.empty());
  ev = stages::DcfitOf(*sw_)->log.Snapshot(&total);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].act.kind, dcfit::ActionKind::kRateLimitEnd);
  EXPECT_EQ(ev[1].act.at_ns, tn + kHold);
  EXPECT_EQ(Snapshot(*sw_)["dcfit_trigger_ends"], 1u);
  // After it, A passes whole again.
  Ingress(0, Flow(0, kA), tn + kHold + 10);
  EXPECT_EQ(Egress(3, tn + kHold + 20), kA);
  EXPECT_EQ(TakeTx(3).size(), kA);
  EXPECT_EQ(Snapshot(*sw_)["p0.q3.drop.dcfit_rate_limit"], dropped);
}

// Host trigger (§4: "disable lossless mode at the switch port"): while the
// hold lasts, the port of the trigger host (p3) ignores its pause, sends it
// no XOFF (an XOFF in force becomes XON) and drops what would need the
// headroom (dcfit_host_lossy); after hold_time it is lossless again.
TEST_F(DcfitTest, HostHoldMakesThePortLossy) {
  constexpr uint64_t kHold = 1'000'000;  // hold_time: 1ms
  Start(BaseYaml(kBuffer,
                 "dcfit: { enabled: true, switch_id: 7, recovery: break, trigger_handling: "
                 "true, hold_time: 1ms }\n"));
  // The host on p3 sends 4 KiB towards p0 (not drained): over the 2 KiB
  // XOFF point of (p3, 3), so p3 pauses the host.
  Ingress(3, Flow(3, 32, 0), kT0);
  EXPECT_EQ(Egress(3, kT0 + 10), 0);
  EXPECT_EQ(QuantaSent(TakeTx(3)), 0xffff);
  // The notice for {S_tri 7, P_tri p3, host} from the declaring switch 9.
  dcfit::CheckMsg notice = TriggerMsg(7, 3, 1, 2);
  notice.gen_sw = 9;
  notice.gen_port = 1;
  notice.flags = dcfit::kNotice | dcfit::kTriggerHost;
  const uint64_t tn = kT0 + 20;
  Ingress(0, {PeerCheck(0, notice)}, tn);
  EXPECT_EQ(stages::DcfitOf(*sw_)->trig.ignore_mask(3), 1u << kPrio);
  uint64_t total = 0;
  ASSERT_EQ(stages::DcfitOf(*sw_)->log.Snapshot(&total).size(), 1u);
  EXPECT_EQ(stages::DcfitOf(*sw_)->log.Snapshot(&total)[0].act.kind, dcfit::ActionKind::kHostLossy);
  // The XOFF in force is lifted at once: the host may send again.
  EXPECT_EQ(Egress(3, tn + 10), 0);
  EXPECT_EQ(QuantaSent(TakeTx(3)), 0);
  // (p3, 3) holds 4 KiB, past XOFF: all 32 more are dropped, no XOFF.
  Ingress(3, Flow(3, 32, 0), tn + 20);
  EXPECT_EQ(Egress(3, tn + 30), 0);
  EXPECT_TRUE(TakeTx(3).empty()) << "no pause towards a held host";
  EXPECT_EQ(Snapshot(*sw_)["p3.q3.drop.dcfit_host_lossy"], 32u);
  EXPECT_EQ(Occ(3, kPrio), 4096u);
  // Drained, then 32 again: 16 x 128-byte cells fill to the XOFF point
  // (2 KiB, no reserve), the 16 past it are dropped, not paused.
  EXPECT_EQ(Egress(0, tn + 40), 32);
  EXPECT_EQ(TakeTx(0).size(), 32u);
  Ingress(3, Flow(3, 32, 0), tn + 50);
  EXPECT_EQ(Occ(3, kPrio), 2048u);
  EXPECT_EQ(Egress(3, tn + 60), 0);
  EXPECT_TRUE(TakeTx(3).empty());
  EXPECT_EQ(Egress(0, tn + 70), 16);
  EXPECT_EQ(TakeTx(0).size(), 16u);
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c["p3.q3.drop.dcfit_host_lossy"], 48u);
  EXPECT_EQ(c["p3.q3.drop.lossless_headroom_exceeded"], 0u);
  EXPECT_EQ(c["p3.q3.pfc_xoff_tx"], 1u) << "only the XOFF before the hold";
  // The hold ends at hold_time: lossless again (headroom, XOFF, no drop).
  Deadline ready = kNever;
  stages::WorkerRound(w_, tn + kHold - 1, &ready);
  EXPECT_EQ(stages::DcfitOf(*sw_)->trig.ignore_mask(3), 1u << kPrio);
  stages::WorkerRound(w_, tn + kHold, &ready);
  EXPECT_EQ(stages::DcfitOf(*sw_)->trig.ignore_mask(3), 0u);
  EXPECT_EQ(Snapshot(*sw_)["dcfit_trigger_ends"], 1u);
  Ingress(3, Flow(3, 32, 0), tn + kHold + 10);
  EXPECT_EQ(Occ(3, kPrio), 4096u);
  EXPECT_EQ(Egress(3, tn + kHold + 20), 0);
  EXPECT_EQ(QuantaSent(TakeTx(3)), 0xffff);
  EXPECT_EQ(Egress(0, tn + kHold + 30), 32);
  EXPECT_EQ(TakeTx(0).size(), 32u);
  EXPECT_EQ(Egress(3, tn + kHold + 40), 0);
  EXPECT_EQ(QuantaSent(TakeTx(3)), 0);
  EXPECT_EQ(Snapshot(*sw_)["p3.q3.drop.dcfit_host_lossy"], 48u);
}

}  // namespace
}  // namespace pfc::stagetest
