// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of the pause-storm watchdog glue (stages/pfcwd_stage.h) on the
// real stages, virtual clock: a port kept paused by its peer with packets
// queued is declared in storm exactly detect_time after the first round
// that saw the stall; action drop empties the queue and what arrives after,
// counted as pfcwd_storm drops with their buffer released; the storm ends
// restore_time after the peer's last pause; action forward sends through
// the pause; a pause that lifts before detect_time raises nothing.
#include <string>

#include "dataplane/pause/pfc_frame.h"
#include "dataplane/stages/pfcwd_stage.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
constexpr int kPrio = 3;  // tag 24: lossless, passes unchanged (BaseYaml)
constexpr uint64_t kDetect = 1'000'000, kRestore = 10'000'000;
const uint64_t kPauseNs = pause::PauseTimer::QuantaToNs(0xffff, 10'000'000'000ull);

using Frames = std::vector<std::vector<uint8_t>>;

std::string Yaml(const std::string& action) {
  return BaseYaml("",
                  "pfc_watchdog: { enabled: true, detect_time: 1ms, restore_time: 10ms, "
                  "action: " +
                      action + " }\n");
}

// n lossless packets from p0 to the host on p3.
Frames ToP3(uint16_t n, uint16_t first = 0) {
  Frames f;
  for (uint16_t i = 0; i < n; i++)
    f.push_back(
        Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 24, .seq = uint16_t(first + i)}));
  return f;
}

// The host on p3 pauses (quanta > 0) or resumes priority 3.
std::vector<uint8_t> Pause(uint16_t quanta) {
  pause::PauseRequest r;
  r.class_enable = 1u << kPrio;
  r.quanta[kPrio] = quanta;
  std::vector<uint8_t> f(pause::kPfcFrameLen);
  EXPECT_EQ(pause::BuildPfcFrame(HostMac(3), r, f.data(), f.size()), pause::kPfcFrameLen);
  return f;
}

class PfcwdTest : public StageTest {
 protected:
  uint64_t C(const std::string& name) { return Snapshot(*sw_)[name]; }
  // The peer pauses at kT0 and 32 packets queue on p3; the first egress
  // round (kT0 + 20) sees the stall.
  void Stall() {
    Ingress(3, {Pause(0xffff)}, kT0);
    Ingress(0, ToP3(32), kT0 + 10);
    EXPECT_EQ(Egress(3, kT0 + 20), 0);
    EXPECT_EQ(QueueDepth(3, kPrio), 32u);
  }
};

TEST_F(PfcwdTest, DropActionEmptiesTheStormingQueueThenRestores) {
  Start(Yaml("drop"));
  Stall();
  // Refreshes keep the pause continuous; no storm a nanosecond early.
  Ingress(3, {Pause(0xffff)}, kT0 + 500'000);
  EXPECT_EQ(Egress(3, kT0 + 20 + kDetect - 1), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_storms"), 0u);
  EXPECT_EQ(QueueDepth(3, kPrio), 32u);
  EXPECT_GT(Occ(0, kPrio), 0u);

  const uint64_t t_storm = kT0 + 20 + kDetect;
  EXPECT_EQ(Egress(3, t_storm), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_storms"), 1u);
  EXPECT_EQ(C("p3.q3.pfcwd_in_storm"), 1u);
  EXPECT_EQ(C("p0.q3.drop.pfcwd_storm"), 32u) << "by ingress port and priority, like every drop";
  EXPECT_EQ(QueueDepth(3, kPrio), 0u);
  EXPECT_EQ(Occ(0, kPrio), 0u) << "the buffer the queue held is released";
  uint64_t total = 0;
  std::vector<stages::PfcwdEvent> ev = stages::PfcwdLogOf(*sw_)->Snapshot(&total);
  ASSERT_EQ(total, 1u);
  EXPECT_FALSE(ev[0].restored);
  EXPECT_EQ(ev[0].port, 3);
  EXPECT_EQ(ev[0].prio, kPrio);
  EXPECT_EQ(ev[0].t_ns, t_storm);
  EXPECT_EQ(ev[0].t_ns - ev[0].since_ns, kDetect);
  EXPECT_EQ(ev[0].drops, 32u);

  // New arrivals while in storm go too; other priorities are untouched.
  Ingress(0, ToP3(5, 100), t_storm + 1000);
  Ingress(0, {Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = 10, .seq = 200})},
          t_storm + 1000);
  EXPECT_EQ(Egress(3, t_storm + 2000), 1);
  const Frames other = TakeTx(3);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(SeqOf(other[0]), 200);
  EXPECT_EQ(C("p0.q3.drop.pfcwd_storm"), 37u);

  // The peer refreshes once more, then goes quiet: restored restore_time
  // after its last pause ends, not before.
  const uint64_t t_last = t_storm + 100'000;
  Ingress(3, {Pause(0xffff)}, t_last);
  const uint64_t t_restore = t_last + kPauseNs + kRestore;
  EXPECT_EQ(Egress(3, t_restore - 1), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_restores"), 0u);
  EXPECT_EQ(Egress(3, t_restore), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_restores"), 1u);
  EXPECT_EQ(C("p3.q3.pfcwd_in_storm"), 0u);
  EXPECT_EQ(C("p3.q3.pfcwd_storm_ns"), t_restore - t_storm);
  ev = stages::PfcwdLogOf(*sw_)->Snapshot(&total);
  ASSERT_EQ(total, 2u);
  EXPECT_TRUE(ev[1].restored);
  EXPECT_EQ(ev[1].t_ns, t_restore);

  // Restored: lossless packets flow again.
  Ingress(0, ToP3(4, 300), t_restore + 10);
  EXPECT_EQ(Egress(3, t_restore + 20), 4);
  EXPECT_EQ(TakeTx(3).size(), 4u);
  EXPECT_EQ(C("p0.q3.drop.pfcwd_storm"), 37u);
  EXPECT_EQ(C("p3.q3.tx_packets"), 4u);
}

TEST_F(PfcwdTest, ForwardActionSendsThroughThePause) {
  Start(Yaml("forward"));
  Stall();
  EXPECT_EQ(Egress(3, kT0 + 20 + kDetect), 32) << "the storming priority's pause is ignored";
  EXPECT_EQ(TakeTx(3).size(), 32u);
  EXPECT_EQ(C("p3.q3.pfcwd_storms"), 1u);
  EXPECT_EQ(C("p0.q3.drop.pfcwd_storm"), 0u);
  EXPECT_EQ(Occ(0, kPrio), 0u);
}

TEST_F(PfcwdTest, AlertActionOnlyReports) {
  Start(Yaml("alert"));
  Stall();
  EXPECT_EQ(Egress(3, kT0 + 20 + kDetect), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_storms"), 1u);
  EXPECT_EQ(QueueDepth(3, kPrio), 32u) << "still held by the pause";
  // The pause ends (XON): the queue goes, and the storm ends 10 ms later.
  Ingress(3, {Pause(0)}, kT0 + 2'000'000);
  EXPECT_EQ(Egress(3, kT0 + 2'000'010), 32);
  EXPECT_EQ(TakeTx(3).size(), 32u);
  EXPECT_EQ(Egress(3, kT0 + 2'000'000 + kRestore), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_restores"), 1u);
}

TEST_F(PfcwdTest, PauseLiftedBeforeDetectTimeIsNoStorm) {
  Start(Yaml("drop"));
  Stall();
  Ingress(3, {Pause(0)}, kT0 + 900'000);  // ordinary congestion: the pause lifts
  EXPECT_EQ(Egress(3, kT0 + 900'010), 32);
  EXPECT_EQ(TakeTx(3).size(), 32u);
  Ingress(3, {Pause(0xffff)}, kT0 + 950'000);
  // A round between the packets sent and the new ones: the watchdog sees
  // the queue moved (a round that sees packets sent restarts nothing yet).
  EXPECT_EQ(Egress(3, kT0 + 950'005), 0);
  Ingress(0, ToP3(8), kT0 + 950'010);
  EXPECT_EQ(Egress(3, kT0 + 950'020), 0);
  EXPECT_EQ(Egress(3, kT0 + 1'500'000), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_storms"), 0u) << "the watch restarted at kT0 + 950 us";
  EXPECT_EQ(Egress(3, kT0 + 950'020 + kDetect), 0);
  EXPECT_EQ(C("p3.q3.pfcwd_storms"), 1u);
  EXPECT_EQ(C("p0.q3.drop.pfcwd_storm"), 8u);
}

}  // namespace
}  // namespace pfc::stagetest
