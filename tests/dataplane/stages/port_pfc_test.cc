// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of per-port PFC enable (ports[].pfc_enable, SONiC's
// PORT_QOS_MAP pfc_enable): on a port that does not enable a lossless
// priority, that priority is lossy. Its ingress group drops at the lossy
// limit instead of pausing (no XOFF leaves the port), and pause requests
// received for it there are ignored and counted (pfc_ignored_rx), while
// the port's other priorities and the other ports keep PFC (virtual clock).
#include <algorithm>

#include "dataplane/pause/pause_timer.h"
#include "dataplane/pause/pfc_frame.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
constexpr uint32_t kCell = 128;
const uint64_t kPauseNs = pause::PauseTimer::QuantaToNs(0xffff, 10'000'000'000ull);

using Frames = std::vector<std::vector<uint8_t>>;

// Lossy groups hold 2 KiB; lossless ones pause past 2 KiB.
const std::string kBuffer =
    "  total_bytes: 256K\n"
    "  lossy: { reserved: 0, limit: 2K }\n"
    "  lossless: { reserved: 0, xoff: 2K, headroom: 16K, xon_hysteresis: 1K }\n";

// BaseYaml with `fields` added to port `port`'s entry.
std::string WithPortFields(int port, const std::string& fields, const std::string& buffer = "") {
  std::string y = BaseYaml(buffer);
  const std::string entry = "ipv4: 10.0." + std::to_string(port) + ".1/24, speed: 10G";
  const size_t at = y.find(entry);
  EXPECT_NE(at, std::string::npos);
  y.insert(at + entry.size(), ", " + fields);
  return y;
}

// 32 priority-4 packets (tag 26) from `in` towards p1's next hop.
Frames Prio4ToP1(int in, uint16_t first_seq) {
  Frames a;
  for (uint16_t i = 0; i < 32; i++)
    a.push_back(Frame({.in_port = in,
                       .dst_ip = Ip(10, 9, 0, 1),
                       .dscp = 26,
                       .seq = static_cast<uint16_t>(first_seq + i)}));
  return a;
}

// p0 enables only priority 3; p2 keeps qos.lossless [3, 4]. The same
// priority-4 burst into each: p2 pauses its peer, p0 drops past the lossy
// limit and sends nothing.
TEST_F(StageTest, PortWithoutPfcOnAPriorityDropsItAsLossy) {
  Start(WithPortFields(0, "pfc_enable: [3]", kBuffer));
  EXPECT_FALSE(sw_->buffer.config().pg[0][4].lossless);
  EXPECT_EQ(sw_->buffer.config().pg[0][4].headroom, 0u);
  EXPECT_TRUE(sw_->buffer.config().pg[0][3].lossless);
  EXPECT_TRUE(sw_->buffer.config().pg[2][4].lossless);
  Ingress(0, Prio4ToP1(0, 0), kT0);
  Ingress(2, Prio4ToP1(2, 100), kT0);
  EXPECT_EQ(Occ(0, 4), 2048u) << "16 packets of one cell: the lossy limit";
  EXPECT_EQ(Occ(2, 4), 32 * kCell) << "past XOFF, into headroom";
  EXPECT_EQ(sw_->buffer.headroom_watermark(0, 4), 0u);

  EXPECT_EQ(Egress(0, kT0 + 10), 0);
  EXPECT_TRUE(TakeTx(0).empty()) << "no XOFF from a port without PFC on priority 4";
  EXPECT_EQ(Egress(2, kT0 + 10), 0);
  const Frames w2 = TakeTx(2);
  ASSERT_EQ(w2.size(), 1u);
  pause::PauseRequest xoff;
  ASSERT_EQ(pause::ParseMacControl(w2[0].data(), w2[0].size(), &xoff), pause::MacCtlKind::kPfc);
  EXPECT_EQ(xoff.class_enable, 1u << 4);
  EXPECT_EQ(xoff.quanta[4], 0xffff);

  unsigned sent = 0;
  for (uint64_t k = 0; k < 4; k++) sent += Egress(1, kT0 + 20 + k);
  EXPECT_EQ(sent, 48u);
  EXPECT_EQ(TakeTx(1).size(), 48u);
  EXPECT_EQ(Egress(0, kT0 + 30), 0);
  EXPECT_EQ(Egress(2, kT0 + 30), 0);
  EXPECT_EQ(TakeTx(0).size(), 0u);
  EXPECT_EQ(TakeTx(2).size(), 1u) << "p2's XON";
  ExpectCounters(
      {{"p0.rx_packets", 32},    {"p0.rx_bytes", 32 * 60},    {"p0.rx_bursts", 1},
       {"p0.q4.rx_packets", 32}, {"p0.q4.rx_bytes", 32 * 60}, {"p0.q4.drop.lossy_buffer_full", 16},
       {"p2.rx_packets", 32},    {"p2.rx_bytes", 32 * 60},    {"p2.rx_bursts", 1},
       {"p2.q4.rx_packets", 32}, {"p2.q4.rx_bytes", 32 * 60}, {"p2.q4.pfc_xoff_tx", 1},
       {"p2.q4.pfc_xon_tx", 1},  {"p2.pfc_frames_tx", 2},     {"p2.tx_packets", 2},
       {"p2.tx_bytes", 2 * 60},  {"p1.tx_packets", 48},       {"p1.tx_bytes", 48 * 60},
       {"p1.q4.tx_packets", 48}, {"p1.q4.tx_bytes", 48 * 60}},
      {"p2.q4.pausing_ns"});
  EXPECT_GT(Snapshot(*sw_).at("p2.q4.pausing_ns"), 0u);
}

// p3 enables only priority 3. A frame pausing 3 and 4 pauses 3 only; the
// request for 4 is counted as ignored.
TEST_F(StageTest, PauseForAPriorityThePortDoesNotEnableIsIgnored) {
  Start(WithPortFields(3, "pfc_enable: \"3\""));
  Frames in;  // to p3: 4 packets each on priorities 4 (tag 26) and 3 (tag 24)
  for (uint16_t i = 0; i < 8; i++)
    in.push_back(Frame({.in_port = 0,
                        .dst_ip = Ip(10, 0, 3, 2),
                        .dscp = static_cast<uint8_t>(i < 4 ? 26 : 24),
                        .seq = i}));
  Ingress(0, in, kT0);
  Ingress(3, {PfcFrame(3, (1u << 3) | (1u << 4), 0xffff)}, kT0 + 10);
  EXPECT_EQ(Egress(3, kT0 + 20), 4) << "priority 4 leaves: its pause was ignored";
  const Frames o = TakeTx(3);
  ASSERT_EQ(o.size(), 4u);
  for (size_t k = 0; k < 4; k++) EXPECT_EQ(SeqOf(o[k]), k);
  EXPECT_EQ(QueueDepth(3, 3), 4u) << "priority 3 is paused";
  EXPECT_EQ(Egress(3, kT0 + 10 + kPauseNs), 4) << "priority 3 resumes when its quanta run out";
  EXPECT_EQ(TakeTx(3).size(), 4u);
  ExpectCounters(
      {{"p0.rx_packets", 8},          {"p0.rx_bytes", 8 * 60},     {"p0.rx_bursts", 1},
       {"p0.q4.rx_packets", 4},       {"p0.q4.rx_bytes", 4 * 60},  {"p0.q3.rx_packets", 4},
       {"p0.q3.rx_bytes", 4 * 60},    {"p3.rx_packets", 1},        {"p3.rx_bytes", 60},
       {"p3.rx_bursts", 1},           {"p3.pfc_frames_rx", 1},     {"p3.q3.pfc_xoff_rx", 1},
       {"p3.q3.paused_ns", kPauseNs}, {"p3.q4.pfc_ignored_rx", 1}, {"p3.tx_packets", 8},
       {"p3.tx_bytes", 8 * 60},       {"p3.q4.tx_packets", 4},     {"p3.q4.tx_bytes", 4 * 60},
       {"p3.q3.tx_packets", 4},       {"p3.q3.tx_bytes", 4 * 60}});
}

}  // namespace
}  // namespace pfc::stagetest
