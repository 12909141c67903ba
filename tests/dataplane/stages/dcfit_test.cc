// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of the DCFIT glue (stages/dcfit_stage.h) on the real stages:
// the causality counts follow packets through enqueue and dequeue; an XOFF
// the switch sends carries the detector's message and stays a valid PFC
// frame; a message received in a PFC frame reaches the detector (it rides on
// the XOFF that the pause causes); a corrupted one is counted and ignored;
// and a loop closed through the peer's frames is found, confirmed by the
// temporal pass and, with recovery: break, broken by discarding the looped
// queue (virtual clock throughout).
#include <string>

#include "dataplane/dcfit/message.h"
#include "dataplane/pfc/pfc_frame.h"
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
  PauseRequest r;
  r.class_enable = 1u << kPrio;
  r.quanta[kPrio] = quanta;
  std::vector<uint8_t> f(kPfcFrameLen);
  const size_t n = m ? dcfit::BuildPfcWithMsg(HostMac(port), r, *m, f.data(), f.size())
                     : BuildPfcFrame(HostMac(port), r, f.data(), f.size());
  EXPECT_EQ(n, kPfcFrameLen);
  return f;
}

std::vector<uint8_t> PeerCheck(int port, const dcfit::CheckMsg& m) {
  std::vector<uint8_t> f(kPfcFrameLen);
  EXPECT_EQ(dcfit::BuildCheckingPacket(HostMac(port), m, f.data(), f.size()), kPfcFrameLen);
  return f;
}

// The frame is a valid PFC frame (as any 802.1Qbb peer reads it); returns
// the DCFIT status of its padding and the message.
dcfit::MsgStatus Decode(const std::vector<uint8_t>& f, PauseRequest* r, dcfit::CheckMsg* m) {
  EXPECT_EQ(f.size(), kPfcFrameLen);
  EXPECT_EQ(ParseMacControl(f.data(), f.size(), r), MacCtlKind::kPfc);
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

const dcfit::Causality& Causal(const Switch& sw) { return sw.dcfit->det.causality(); }

// The loop closes through the peer on p3: it pauses us without a message
// (so the XOFF on p0 starts an episode on the peer's behalf), then our own
// message comes back on p3 (first pass: a causality loop, Lemma 1), then the
// second pass (temporal consistency): deadlock declared at this switch.
class DcfitTest : public StageTest {
 protected:
  // The one frame the switch sent on `port` since the last look, as PFC
  // (*r) and DCFIT (the status; *m when kOk).
  dcfit::MsgStatus OneFrame(PortId port, PauseRequest* r, dcfit::CheckMsg* m) {
    const Frames f = TakeTx(port);
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? dcfit::MsgStatus::kNone : Decode(f[0], r, m);
  }

  // Returns the episode's message as p0's XOFF carried it.
  dcfit::CheckMsg Close(bool* second_pass_sent) {
    Ingress(3, {PeerPfc(3, 0xffff, nullptr)}, kT0);
    Ingress(0, ToP3(32), kT0 + 10);
    EXPECT_EQ(Egress(0, kT0 + 20), 0);
    PauseRequest r;
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
  EXPECT_EQ(sw_->dcfit, nullptr);
}

TEST_F(DcfitTest, CausalityFollowsPackets) {
  Start(Yaml("detect"));
  ASSERT_NE(sw_->dcfit, nullptr);
  Ingress(0, ToP3(8), kT0);
  EXPECT_EQ(Causal(*sw_).queued(0, 3, kPrio), 8u);
  EXPECT_EQ(Causal(*sw_).Xi(3, kPrio), PortMask{1} << 0);
  EXPECT_EQ(Causal(*sw_).WaitsOn(0, kPrio), PortMask{1} << 3);
  EXPECT_EQ(Egress(3, kT0 + 10), 8);
  EXPECT_EQ(TakeTx(3).size(), 8u);
  EXPECT_EQ(Causal(*sw_).queued(0, 3, kPrio), 0u);
  EXPECT_EQ(Causal(*sw_).Xi(3, kPrio), 0u) << "the bit clears with the last packet";
  EXPECT_EQ(Causal(*sw_).dequeue_underflows(), 0u);
  // Lossy packets are not tracked.
  Ingress(0, {Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 7})}, kT0 + 20);
  EXPECT_EQ(Causal(*sw_).Xi(3, 0), 0u);
  EXPECT_EQ(Egress(3, kT0 + 30), 1);
  EXPECT_EQ(TakeTx(3).size(), 1u);
}

TEST_F(DcfitTest, XoffCarriesTheTriggersMessage) {
  Start(Yaml("detect"));
  // 32 x 128-byte cells = 4 KiB > the 2 KiB XOFF point of (p0, 3); p3 is
  // not paused, so this switch is the initial trigger (§3.1).
  Ingress(0, ToP3(32), kT0);
  EXPECT_EQ(Egress(0, kT0 + 10), 0);
  PauseRequest r;
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
  PauseRequest r;
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
  const auto ev = sw_->dcfit->log.Snapshot(&total);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].ev.kind, dcfit::EventKind::kLoopFound);
  EXPECT_EQ(ev[1].ev.kind, dcfit::EventKind::kDeadlock);
  EXPECT_EQ(ev[1].ev.in_port, 3);
  EXPECT_EQ(ev[1].ev.out_port, 0);
  EXPECT_EQ(ev[1].ev.at_ns, kT0 + 50);
  EXPECT_TRUE(ev[1].ev.msg.SameEpisode(m));
  EXPECT_FALSE(ev[1].broke);
  EXPECT_EQ(DcfitEventText(ev[1], "p3", "p0"),
            "deadlock prio=3 in=p3 out=p0 initiator=7/0 seq=1 trigger=7/3(host) hops=0 t_ns=" +
                std::to_string(kT0 + 50));
  // Clean up: the peer resumes.
  Ingress(3, {PeerPfc(3, 0, nullptr)}, kT0 + 60);
  EXPECT_EQ(Egress(3, kT0 + 70), 32);
  EXPECT_EQ(TakeTx(3).size(), 32u);
  EXPECT_EQ(Egress(0, kT0 + 80), 0);
  EXPECT_EQ(TakeTx(0).size(), 1u);  // XON
}

TEST_F(DcfitTest, BreakDiscardsTheLoopedQueueOnce) {
  Start(Yaml("break"));
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
  const auto ev = sw_->dcfit->log.Snapshot(&total);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_TRUE(ev[1].broke);
  EXPECT_EQ(ev[1].break_drops, 32u);
  // The upstream is released: p0 sends XON.
  EXPECT_EQ(Egress(0, kT0 + 60), 0);
  PauseRequest r;
  dcfit::CheckMsg m;
  EXPECT_EQ(OneFrame(0, &r, &m), dcfit::MsgStatus::kNone);
  EXPECT_EQ(r.quanta[kPrio], 0);
  // The peer resumes: nothing left to send, and no second break.
  Ingress(3, {PeerPfc(3, 0, nullptr)}, kT0 + 70);
  EXPECT_EQ(Egress(3, kT0 + 80), 0);
  EXPECT_EQ(Snapshot(*sw_)["dcfit_deadlocks"], 1u);
}

}  // namespace
}  // namespace pfc::stagetest
