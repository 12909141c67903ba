// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of buffer admission and PFC: the lossy drop at the buffer
// limit, XOFF/XON frames leaving ahead of queued data when a lossless
// ingress priority group crosses its threshold, and received PFC / PAUSE
// frames pausing exactly the priorities they name (virtual clock).
#include <algorithm>
#include <cstring>

#include "dataplane/pause/pause_timer.h"
#include "dataplane/pause/pfc_frame.h"
#include "dataplane/stages/worker.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
constexpr uint32_t kCell = 128;
// 0xffff quanta at 10 Gb/s (the test ports' speed), IEEE 802.1Qbb.
const uint64_t kPauseNs = pause::PauseTimer::QuantaToNs(0xffff, 10'000'000'000ull);

using Frames = std::vector<std::vector<uint8_t>>;

const std::string kSmallLossy =
    "  total_bytes: 256K\n"
    "  lossy: { reserved: 0, limit: 2K }\n"
    "  lossless: { reserved: 0, xoff: 32K, headroom: 16K, xon_hysteresis: 4K }\n";
const std::string kSmallLossless =
    "  total_bytes: 256K\n"
    "  lossy: { reserved: 0, limit: 64K }\n"
    "  lossless: { reserved: 0, xoff: 2K, headroom: 16K, xon_hysteresis: 1K }\n";

// IEEE 802.3x PAUSE (opcode 1): pauses the whole link.
std::vector<uint8_t> PauseFrame(int from_port, uint16_t quanta) {
  std::vector<uint8_t> f(60, 0);
  std::copy(pause::kPfcDstMac.begin(), pause::kPfcDstMac.end(), f.begin());
  const auto src = HostMac(from_port);
  std::copy(src.begin(), src.end(), f.begin() + 6);
  f[12] = 0x88, f[13] = 0x08, f[14] = 0x00, f[15] = 0x01;
  f[16] = static_cast<uint8_t>(quanta >> 8), f[17] = static_cast<uint8_t>(quanta);
  return f;
}

// Eight packets from p0 to p3: seq 0..3 for queue 4 (tag 26), then seq 4..7
// for queue 1 (tag 10).
Frames ToP3Queues4And1() {
  Frames a;
  for (uint16_t i = 0; i < 8; i++) {
    const uint8_t tag = i < 4 ? 26 : 10;
    a.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = tag, .seq = i}));
  }
  return a;
}

// Decodes a frame the switch sent as PFC; fails the test if it is not one.
pause::PauseRequest AsPfc(const std::vector<uint8_t>& f, int port) {
  pause::PauseRequest r;
  EXPECT_EQ(f.size(), pause::kPfcFrameLen);
  EXPECT_EQ(pause::ParseMacControl(f.data(), f.size(), &r), pause::MacCtlKind::kPfc);
  EXPECT_TRUE(std::equal(f.begin() + 6, f.begin() + 12, SwitchMac(port).begin())) << "source MAC";
  return r;
}

TEST_F(StageTest, LossyPriorityDropsAtItsBufferLimit) {
  Start(BaseYaml(kSmallLossy));
  // 24 lossy packets (tag 7 -> prio 0) to p1 and 8 lossless ones (tag 24 ->
  // prio 3) to p3, interleaved. The lossy limit, 2 KiB of 128-byte cells,
  // admits the first 16 lossy packets; the lossless group is unaffected.
  Frames in;
  std::vector<uint16_t> lossy_seq, lossless_seq;
  for (uint16_t i = 0; i < 32; i++) {
    const bool ll = i % 4 == 3;
    in.push_back(Frame({.in_port = 0,
                        .dst_ip = ll ? Ip(10, 0, 3, 2) : Ip(10, 9, 0, 1),
                        .dscp = static_cast<uint8_t>(ll ? 24 : 7),
                        .seq = i}));
    (ll ? lossless_seq : lossy_seq).push_back(i);
  }
  Ingress(0, in, kT0);
  EXPECT_EQ(Occ(0, 0), 2048u);
  EXPECT_EQ(Occ(0, 3), 8 * kCell);
  EXPECT_EQ(Egress(1, kT0 + 100), 16);
  EXPECT_EQ(Egress(3, kT0 + 100), 8);
  const Frames o1 = TakeTx(1), o3 = TakeTx(3);
  ASSERT_EQ(o1.size(), 16u);
  ASSERT_EQ(o3.size(), 8u);
  for (size_t k = 0; k < 16; k++)
    EXPECT_EQ(SeqOf(o1[k]), lossy_seq[k]) << "the first 16 were admitted";
  for (size_t k = 0; k < 8; k++) EXPECT_EQ(SeqOf(o3[k]), lossless_seq[k]);

  // Released on transmit: the next burst is admitted again.
  Frames again;
  for (uint16_t i = 0; i < 16; i++)
    again.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 7, .seq = i}));
  Ingress(0, again, kT0 + 200);
  EXPECT_EQ(Egress(1, kT0 + 300), 16);
  EXPECT_EQ(TakeTx(1).size(), 16u);
  EXPECT_EQ(sw_->buffer.watermark(0, 0), 2048u);

  ExpectCounters({{"p0.rx_packets", 48},
                  {"p0.rx_bytes", 48 * 60},
                  {"p0.rx_bursts", 2},
                  {"p0.q0.rx_packets", 40},
                  {"p0.q0.rx_bytes", 40 * 60},
                  {"p0.q0.lossy_fallback", 40},
                  // Only admitted packets reach the rewrite (7 -> lossy tag 0).
                  {"p0.q0.rewrites", 32},
                  {"p0.q0.to_lossy_tag", 32},
                  {"p0.q0.drop.lossy_buffer_full", 8},
                  {"p0.q3.rx_packets", 8},
                  {"p0.q3.rx_bytes", 8 * 60},
                  {"p1.tx_packets", 32},
                  {"p1.tx_bytes", 32 * 60},
                  {"p1.q0.tx_packets", 32},
                  {"p1.q0.tx_bytes", 32 * 60},
                  {"p3.tx_packets", 8},
                  {"p3.tx_bytes", 8 * 60},
                  {"p3.q3.tx_packets", 8},
                  {"p3.q3.tx_bytes", 8 * 60}});
}

// Through WorkerRound (real clock): one round receives on p0 a lossless
// burst that crosses XOFF and on p1 data headed out of p0; p0's wire must
// carry the XOFF first, then the data. The next round, with the buffer
// drained, sends the XON.
TEST_F(StageTest, XoffLeavesAheadOfQueuedData) {
  Start(BaseYaml(kSmallLossless));
  Frames to_p0, lossless;
  for (uint16_t i = 0; i < 8; i++)
    to_p0.push_back(Frame({.in_port = 1, .dst_ip = Ip(10, 0, 0, 2), .dscp = 10, .seq = i}));
  for (uint16_t i = 0; i < 32; i++)
    lossless.push_back(Frame({.in_port = 0,
                              .dst_ip = Ip(10, 9, 0, 1),
                              .dscp = 26,
                              .seq = static_cast<uint16_t>(100 + i)}));
  Receive(0, lossless);
  Receive(1, to_p0);
  Deadline ready = kNever;
  EXPECT_EQ(stages::WorkerRound(w_, &ready), 40u + 8 + 32);  // received + sent (PFC not counted)
  EXPECT_EQ(sw_->buffer.watermark(0, 4), 32 * kCell) << "4 KiB > the 2 KiB XOFF point";
  EXPECT_EQ(sw_->buffer.headroom_watermark(0, 4), 16 * kCell)
      << "the bytes above XOFF sat in headroom";

  Frames w0 = TakeTx(0);
  ASSERT_EQ(w0.size(), 9u);
  const pause::PauseRequest xoff = AsPfc(w0[0], 0);
  EXPECT_EQ(xoff.class_enable, 1u << 4);
  EXPECT_EQ(xoff.quanta[4], 0xffff);
  for (size_t k = 1; k < w0.size(); k++) {
    EXPECT_EQ(EtherTypeOf(w0[k]), 0x0800);
    EXPECT_EQ(SeqOf(w0[k]), k - 1);
  }
  EXPECT_EQ(TakeTx(1).size(), 32u) << "p1's egress is not paused by our own XOFF";
  const Counters mid = Snapshot(*sw_);
  EXPECT_EQ(mid.at("p0.q4.pausing_now"), 1u);

  EXPECT_EQ(stages::WorkerRound(w_, &ready), 0u);
  w0 = TakeTx(0);
  ASSERT_EQ(w0.size(), 1u);
  const pause::PauseRequest xon = AsPfc(w0[0], 0);
  EXPECT_EQ(xon.class_enable, 1u << 4);
  EXPECT_EQ(xon.quanta[4], 0);
  const Counters end = Snapshot(*sw_);
  EXPECT_GT(end.at("p0.q4.pausing_ns"), 0u);  // real clock: at least the time between rounds
  ExpectCounters(
      {{"p0.rx_packets", 32},    {"p0.rx_bytes", 32 * 60},    {"p0.rx_bursts", 1},
       {"p0.q4.rx_packets", 32}, {"p0.q4.rx_bytes", 32 * 60}, {"p0.q4.pfc_xoff_tx", 1},
       {"p0.q4.pfc_xon_tx", 1},  {"p0.pfc_frames_tx", 2},     {"p0.tx_packets", 10},
       {"p0.tx_bytes", 10 * 60}, {"p0.q1.tx_packets", 8},     {"p0.q1.tx_bytes", 8 * 60},
       {"p1.rx_packets", 8},     {"p1.rx_bytes", 8 * 60},     {"p1.rx_bursts", 1},
       {"p1.q1.rx_packets", 8},  {"p1.q1.rx_bytes", 8 * 60},  {"p1.tx_packets", 32},
       {"p1.tx_bytes", 32 * 60}, {"p1.q4.tx_packets", 32},    {"p1.q4.tx_bytes", 32 * 60}},
      {"p0.q4.pausing_ns"});
}

TEST_F(StageTest, ReceivedPfcPausesOnlyItsPriority) {
  Start(BaseYaml());
  // Queue 8 packets in each of p1's queues 4 (tag 24 rewritten to 26), 3, 1 and 0.
  Frames a, b;
  for (uint16_t i = 0; i < 24; i++) {
    const uint8_t tag = i < 8 ? 24 : (i < 16 ? 10 : 7);
    a.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = tag, .seq = i}));
  }
  for (uint16_t i = 0; i < 8; i++)
    b.push_back(Frame({.in_port = 2,
                       .dst_ip = Ip(10, 9, 0, 2),
                       .dscp = 24,
                       .seq = static_cast<uint16_t>(100 + i)}));
  Ingress(0, a, kT0);
  Ingress(2, b, kT0);
  // The peer on p1 pauses priority 4, and sends one malformed MAC control frame.
  std::vector<uint8_t> bogus = PfcFrame(1, 1u << 3, 0xffff);
  bogus[15] = 0x02;  // opcode 0x0102
  const uint64_t t_rx = kT0 + 100;
  Ingress(1, {PfcFrame(1, 1u << 4, 0xffff), bogus}, t_rx);

  EXPECT_EQ(Egress(1, kT0 + 1000), 24);
  const Frames first = TakeTx(1);
  ASSERT_EQ(first.size(), 24u);
  // Strict priority among the unpaused queues: 3, then 1, then 0.
  for (size_t k = 0; k < 8; k++) {
    EXPECT_EQ(SeqOf(first[k]), 100 + k);
    EXPECT_EQ(DscpOf(first[k]), 24);
    EXPECT_EQ(SeqOf(first[8 + k]), 8 + k);
    EXPECT_EQ(SeqOf(first[16 + k]), 16 + k);
  }
  EXPECT_EQ(QueueDepth(1, 4), 8u);
  EXPECT_EQ(Occ(0, 3), 8 * kCell) << "held in p1's queue 4, charged to p0's priority 3";
  Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p1.q4.paused_now"), 1u);
  EXPECT_EQ(c.at("p1.q3.paused_now"), 0u);

  EXPECT_EQ(Egress(1, t_rx + kPauseNs - 1), 0) << "still paused one ns before the quanta run out";
  EXPECT_EQ(Egress(1, t_rx + kPauseNs), 8);
  const Frames late = TakeTx(1);
  ASSERT_EQ(late.size(), 8u);
  for (size_t k = 0; k < 8; k++) {
    EXPECT_EQ(SeqOf(late[k]), k);
    EXPECT_EQ(DscpOf(late[k]), 26);
  }
  ExpectCounters({{"p0.rx_packets", 24},
                  {"p0.rx_bytes", 24 * 60},
                  {"p0.rx_bursts", 1},
                  {"p0.q3.rx_packets", 8},
                  {"p0.q3.rx_bytes", 8 * 60},
                  {"p0.q3.rewrites", 8},
                  {"p0.q1.rx_packets", 8},
                  {"p0.q1.rx_bytes", 8 * 60},
                  {"p0.q0.rx_packets", 8},
                  {"p0.q0.rx_bytes", 8 * 60},
                  {"p0.q0.lossy_fallback", 8},
                  {"p0.q0.rewrites", 8},
                  {"p0.q0.to_lossy_tag", 8},
                  {"p2.rx_packets", 8},
                  {"p2.rx_bytes", 8 * 60},
                  {"p2.rx_bursts", 1},
                  {"p2.q3.rx_packets", 8},
                  {"p2.q3.rx_bytes", 8 * 60},
                  {"p1.rx_packets", 2},
                  {"p1.rx_bytes", 120},
                  {"p1.rx_bursts", 1},
                  {"p1.pfc_frames_rx", 1},
                  {"p1.q0.drop.pfc_malformed", 1},
                  {"p1.q4.pfc_xoff_rx", 1},
                  {"p1.q4.paused_ns", kPauseNs},
                  {"p1.tx_packets", 32},
                  {"p1.tx_bytes", 32 * 60},
                  {"p1.q4.tx_packets", 8},
                  {"p1.q4.tx_bytes", 8 * 60},
                  {"p1.q3.tx_packets", 8},
                  {"p1.q3.tx_bytes", 8 * 60},
                  {"p1.q1.tx_packets", 8},
                  {"p1.q1.tx_bytes", 8 * 60},
                  {"p1.q0.tx_packets", 8},
                  {"p1.q0.tx_bytes", 8 * 60}});
}

// IEEE 802.1Qbb: the high octet of the class-enable vector is reserved,
// sent as zero and ignored on receipt. A peer that sets it still has its
// eight defined classes honoured (dropping the frame would lose a pause and
// so lossless packets), and the frame is counted so the misbehaving peer
// shows up (pfc_frames_rx and pfc_reserved_bits_rx, never pfc_malformed).
TEST_F(StageTest, PfcWithReservedVectorBitsIsHonouredAndCounted) {
  Start(BaseYaml());
  Ingress(0, ToP3Queues4And1(), kT0);
  // XOFF for priority 4 with every reserved bit set, and quanta for
  // priority 1 whose enable bit is clear (ignored, as the standard says).
  std::vector<uint8_t> xoff = PfcFrame(3, 1u << 4, 0xffff);
  xoff[16] = 0xff;
  xoff[18 + 2 * 1] = 0xff;
  xoff[18 + 2 * 1 + 1] = 0xff;
  // A clean frame afterwards is not counted as misbehaving.
  const std::vector<uint8_t> clean = PfcFrame(3, 1u << 5, 0);
  Ingress(3, {xoff, clean}, kT0 + 10);
  EXPECT_EQ(Egress(3, kT0 + 20), 4) << "only queue 1 leaves: queue 4 is paused";
  const Frames o = TakeTx(3);
  ASSERT_EQ(o.size(), 4u);
  for (size_t k = 0; k < 4; k++) EXPECT_EQ(SeqOf(o[k]), 4 + k);
  EXPECT_EQ(QueueDepth(3, 4), 4u);
  EXPECT_EQ(Egress(3, kT0 + 10 + kPauseNs - 1), 0);
  EXPECT_EQ(Egress(3, kT0 + 10 + kPauseNs), 4) << "queue 4 resumes when its quanta run out";
  EXPECT_EQ(TakeTx(3).size(), 4u);
  ExpectCounters(
      {{"p0.rx_packets", 8},       {"p0.rx_bytes", 8 * 60},    {"p0.rx_bursts", 1},
       {"p0.q4.rx_packets", 4},    {"p0.q4.rx_bytes", 4 * 60}, {"p0.q1.rx_packets", 4},
       {"p0.q1.rx_bytes", 4 * 60}, {"p3.rx_packets", 2},       {"p3.rx_bytes", 120},
       {"p3.rx_bursts", 1},        {"p3.pfc_frames_rx", 2},    {"p3.pfc_reserved_bits_rx", 1},
       {"p3.q4.pfc_xoff_rx", 1},   {"p3.q5.pfc_xon_rx", 1},    {"p3.q4.paused_ns", kPauseNs},
       {"p3.tx_packets", 8},       {"p3.tx_bytes", 8 * 60},    {"p3.q4.tx_packets", 4},
       {"p3.q4.tx_bytes", 4 * 60}, {"p3.q1.tx_packets", 4},    {"p3.q1.tx_bytes", 4 * 60}});
}

TEST_F(StageTest, PauseStopsAllAndPfcXonResumesOne) {
  Start(BaseYaml());
  Ingress(0, ToP3Queues4And1(), kT0);
  Ingress(3, {PauseFrame(3, 0xffff)}, kT0 + 10);  // classic PAUSE: every priority
  EXPECT_EQ(Egress(3, kT0 + 20), 0);
  Ingress(3, {PfcFrame(3, 1u << 1, 0)}, kT0 + 5000);  // PFC XON for priority 1 only
  EXPECT_EQ(Egress(3, kT0 + 5001), 4);
  const Frames o = TakeTx(3);
  ASSERT_EQ(o.size(), 4u);
  for (size_t k = 0; k < 4; k++) EXPECT_EQ(SeqOf(o[k]), 4 + k);
  EXPECT_EQ(QueueDepth(3, 4), 4u);
  EXPECT_EQ(Egress(3, kT0 + 10 + kPauseNs), 4) << "queue 4 resumes when the PAUSE runs out";
  EXPECT_EQ(TakeTx(3).size(), 4u);

  Counters expected = {
      {"p0.rx_packets", 8},       {"p0.rx_bytes", 8 * 60},    {"p0.rx_bursts", 1},
      {"p0.q4.rx_packets", 4},    {"p0.q4.rx_bytes", 4 * 60}, {"p0.q1.rx_packets", 4},
      {"p0.q1.rx_bytes", 4 * 60}, {"p3.rx_packets", 2},       {"p3.rx_bytes", 120},
      {"p3.rx_bursts", 2},        {"p3.pause_8023x_rx", 1},   {"p3.pfc_frames_rx", 1},
      {"p3.q1.pfc_xon_rx", 1},    {"p3.tx_packets", 8},       {"p3.tx_bytes", 8 * 60},
      {"p3.q4.tx_packets", 4},    {"p3.q4.tx_bytes", 4 * 60}, {"p3.q1.tx_packets", 4},
      {"p3.q1.tx_bytes", 4 * 60}};
  for (int q = 0; q < kNumPrio; q++) {
    const std::string n = "p3.q" + std::to_string(q) + ".";
    expected[n + "pfc_xoff_rx"] = 1;
    expected[n + "paused_ns"] = q == 1 ? 5000 - 10 : kPauseNs;
  }
  ExpectCounters(expected);
}

// Tagger Fig. 8b end to end: p1's peer pauses priority 4 (the NEW tag's
// queue); the packets held there stay charged to (p0, priority 3), so it is
// priority 3 that p0 pauses upstream, refreshes, and releases when p1 drains.
TEST_F(StageTest, PausedNewTagQueueBacksUpIntoIngressPriority) {
  Start(BaseYaml(kSmallLossless));
  Ingress(1, {PfcFrame(1, 1u << 4, 0xffff)}, kT0);
  Frames in;
  for (uint16_t i = 0; i < 32; i++)
    in.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 24, .seq = i}));
  Ingress(0, in, kT0 + 10);
  EXPECT_EQ(Egress(1, kT0 + 20), 0);
  EXPECT_EQ(Occ(0, 3), 32 * kCell);
  EXPECT_EQ(Occ(0, 4), 0u);

  const uint64_t t_xoff = kT0 + 30;
  EXPECT_EQ(Egress(0, t_xoff), 0);  // no data for p0; the PFC frame is not data
  Frames w0 = TakeTx(0);
  ASSERT_EQ(w0.size(), 1u);
  pause::PauseRequest r = AsPfc(w0[0], 0);
  EXPECT_EQ(r.class_enable, 1u << 3) << "the ingress priority, not the egress one";
  EXPECT_EQ(r.quanta[3], 0xffff);

  const uint64_t refresh = sw_->ports[0].owner_state->pfc_gen.refresh_ns();
  EXPECT_EQ(Egress(0, t_xoff + refresh - 1), 0);
  EXPECT_TRUE(TakeTx(0).empty()) << "no refresh before it is due";
  Egress(0, t_xoff + refresh);
  w0 = TakeTx(0);
  ASSERT_EQ(w0.size(), 1u);
  r = AsPfc(w0[0], 0);
  EXPECT_EQ(r.class_enable, 1u << 3);
  EXPECT_EQ(r.quanta[3], 0xffff);

  EXPECT_EQ(Egress(1, kT0 + kPauseNs), 32);
  EXPECT_EQ(TakeTx(1).size(), 32u);
  const uint64_t t_xon = kT0 + kPauseNs + 10;
  Egress(0, t_xon);
  w0 = TakeTx(0);
  ASSERT_EQ(w0.size(), 1u);
  r = AsPfc(w0[0], 0);
  EXPECT_EQ(r.class_enable, 1u << 3);
  EXPECT_EQ(r.quanta[3], 0);
  ExpectCounters({{"p1.rx_packets", 1},
                  {"p1.rx_bytes", 60},
                  {"p1.rx_bursts", 1},
                  {"p1.pfc_frames_rx", 1},
                  {"p1.q4.pfc_xoff_rx", 1},
                  {"p1.q4.paused_ns", kPauseNs},
                  {"p0.rx_packets", 32},
                  {"p0.rx_bytes", 32 * 60},
                  {"p0.rx_bursts", 1},
                  {"p0.q3.rx_packets", 32},
                  {"p0.q3.rx_bytes", 32 * 60},
                  {"p0.q3.rewrites", 32},
                  {"p0.pfc_frames_tx", 3},
                  {"p0.tx_packets", 3},
                  {"p0.tx_bytes", 3 * 60},
                  {"p0.q3.pfc_xoff_tx", 1},
                  {"p0.q3.pfc_refresh_tx", 1},
                  {"p0.q3.pfc_xon_tx", 1},
                  {"p0.q3.pausing_ns", t_xon - t_xoff},
                  {"p1.tx_packets", 32},
                  {"p1.tx_bytes", 32 * 60},
                  {"p1.q4.tx_packets", 32},
                  {"p1.q4.tx_bytes", 32 * 60}});
}

// RoundLeftWork, which lets the fabric's virtual clock skip the re-run of a
// round at the same instant: 24 lossless frames from p0 to p1 put p0's PG 4
// over XOFF; p0's egress round (its generator) runs before p1's, whose
// transmit releases the PG. The XON is due at that same instant, so the
// round must say so although no burst was full; a round at the same time
// then sends it.
TEST_F(StageTest, ReleaseLaterInTheRoundLeavesTheXonDueNow) {
  Start(BaseYaml(kSmallLossless));
  Frames lossless;
  for (uint16_t i = 0; i < 24; i++)
    lossless.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 26, .seq = i}));
  Receive(0, lossless);
  Deadline ready = kNever;
  EXPECT_EQ(stages::WorkerRound(w_, kT0, &ready), 48u);
  EXPECT_FALSE(w_.burst_full);
  EXPECT_TRUE(stages::RoundLeftWork(w_));
  Frames w0 = TakeTx(0);
  ASSERT_EQ(w0.size(), 1u);
  EXPECT_EQ(AsPfc(w0[0], 0).quanta[4], 0xffff);
  EXPECT_EQ(TakeTx(1).size(), 24u);
  EXPECT_EQ(Occ(0, 4), 0u);

  EXPECT_EQ(stages::WorkerRound(w_, kT0, &ready), 0u);
  w0 = TakeTx(0);
  ASSERT_EQ(w0.size(), 1u);
  const pause::PauseRequest xon = AsPfc(w0[0], 0);
  EXPECT_EQ(xon.class_enable, 1u << 4);
  EXPECT_EQ(xon.quanta[4], 0);
  EXPECT_FALSE(stages::RoundLeftWork(w_)) << "XON announced: the generator is quiet";
}

// A round that forwarded what it got, with no burst full and every
// generator quiet, leaves nothing for the same instant; a full rx burst
// (more may have arrived) or an egress that used its whole budget (more may
// be queued) does.
TEST_F(StageTest, RoundLeftWorkOnlyWhenABurstWasFull) {
  Start(BaseYaml());
  Deadline ready = kNever;
  auto to = [](int in, uint32_t dst, uint16_t seq) {
    return Frame({.in_port = in, .dst_ip = dst, .dscp = 10, .seq = seq});
  };
  Receive(2, {to(2, Ip(10, 9, 0, 1), 0)});
  EXPECT_EQ(stages::WorkerRound(w_, kT0, &ready), 2u);
  EXPECT_FALSE(stages::RoundLeftWork(w_));
  EXPECT_EQ(TakeTx(1).size(), 1u);

  // rx full, egress not: 33 from p2, half to p1, half to p0.
  Frames rx_full;
  for (uint16_t i = 0; i <= kMaxBurst; i++)
    rx_full.push_back(to(2, i % 2 ? Ip(10, 9, 0, 1) : Ip(10, 0, 0, 2), i));
  Receive(2, rx_full);
  EXPECT_EQ(stages::WorkerRound(w_, kT0 + 1000, &ready), 2u * kMaxBurst);
  EXPECT_TRUE(stages::RoundLeftWork(w_));
  EXPECT_EQ(stages::WorkerRound(w_, kT0 + 1000, &ready), 2u);  // the one left
  EXPECT_FALSE(stages::RoundLeftWork(w_));
  EXPECT_EQ(TakeTx(0).size() + TakeTx(1).size(), kMaxBurst + 1u);

  // egress full, rx not: 16 from p2 and 16 from p3, all to p1.
  for (int in : {2, 3}) {
    Frames half;
    for (uint16_t i = 0; i < kMaxBurst / 2; i++) half.push_back(to(in, Ip(10, 9, 0, 1), i));
    Receive(static_cast<PortId>(in), half);
  }
  EXPECT_EQ(stages::WorkerRound(w_, kT0 + 2000, &ready), 2u * kMaxBurst);
  EXPECT_TRUE(stages::RoundLeftWork(w_));
  EXPECT_EQ(TakeTx(1).size(), static_cast<size_t>(kMaxBurst));
}

}  // namespace
}  // namespace pfc::stagetest
