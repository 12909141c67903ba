// SPDX-License-Identifier: BSD-3-Clause
// INT (stages/int_stage.h) on real mbufs: the first switch adds the trailer
// in place of the Ethernet padding, every switch writes its hop record as
// the packet leaves, with the time, the bytes its port sent before and the
// bytes queued behind, in the trailer's units; echoed trailers and other
// priorities are left alone, and the depth covers every priority of the
// port without ECN counting a queue twice.
#include "dataplane/net/int_trailer.h"
#include "dataplane/stages/ecn_stage.h"
#include "dataplane/stages/int_stage.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;
// Frame() is a 60-byte frame, all of it a 46-byte datagram at offset 14:
// with a trailer it is 60 + 46 bytes.
constexpr uint32_t kIpEnd = 14 + 46, kWithInt = kIpEnd + net::kIntHopsBytes;
using Frames = std::vector<std::vector<uint8_t>>;

Frames ToP3(uint8_t dscp, int n) {
  Frames f;
  for (uint16_t i = 0; i < n; i++)
    f.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .dscp = dscp, .seq = i}));
  return f;
}

const uint8_t* TrailerOf(const std::vector<uint8_t>& f) {
  auto* d = const_cast<uint8_t*>(f.data());
  return net::FindIntTrailer(d, static_cast<uint32_t>(f.size()), kIpEnd);
}

TEST_F(StageTest, IntAddsTrailerAndRecordsEachHop) {
  Start(BaseYaml("", "int: { priorities: [3], multi: 2 }\n"));
  // Four frames of priority 3 and two of priority 1 (lossy, no INT).
  Frames in = ToP3(24, 4);
  for (const auto& f : ToP3(10, 2)) in.push_back(f);
  Ingress(0, in, kT0);
  EXPECT_EQ(stages::IntPortDepth(w_, 3), 6 * 60u)
      << "every priority's bytes, as queued (the trailer comes as a packet leaves)";
  const uint64_t t = kT0 + 1234;
  EXPECT_EQ(Egress(3, t), 6);
  EXPECT_EQ(stages::IntPortDepth(w_, 3), 0);
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 6u);
  // Strict priority: the four of priority 3 leave first.
  for (int i = 0; i < 4; i++) {
    ASSERT_EQ(out[i].size(), kWithInt) << i;
    EXPECT_EQ(SeqOf(out[i]), i);
    const uint8_t* tr = TrailerOf(out[i]);
    ASSERT_NE(tr, nullptr) << i;
    EXPECT_EQ(net::IntKind(tr), net::kIntHops);
    EXPECT_EQ(net::IntHopCount(tr), 1);
    EXPECT_EQ(net::IntMulti(tr), 2u) << "int.multi of the switch that added it";
    const net::IntHop h = net::IntHopAt(tr, 0);
    EXPECT_EQ(h.LineRate(), 10'000'000'000u) << "the port's speed";
    EXPECT_EQ(h.time, t & 0xffffff);
    // Sent before it: i frames of 106 bytes, in units of 128 * 2; queued
    // behind it: the 3 - i others of priority 3 and the two of priority 1,
    // 60 bytes each, in units of 80 * 2.
    EXPECT_EQ(h.bytes, i * kWithInt / 256) << i;
    EXPECT_EQ(h.qlen, ((3 - i) * 60 + 120) / 160) << i;
  }
  for (int i = 4; i < 6; i++) {
    EXPECT_EQ(out[i].size(), 60u) << "priority 1 untouched";
    EXPECT_EQ(TrailerOf(out[i]), nullptr);
  }
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p3.q3.int_hops"), 4u);
  EXPECT_EQ(c.at("p3.q3.int_inserted"), 4u);
  EXPECT_EQ(c.at("p3.q1.int_hops"), 0u);
  EXPECT_EQ(c.at("p3.q3.int_no_room"), 0u);

  // A second hop: the port's bytes now count the six frames sent.
  std::vector<uint8_t> on = out[0];  // as if p0's host sent it on again
  const std::vector<uint8_t> first = Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2)});
  std::copy(first.begin(), first.begin() + 12, on.begin());
  Ingress(0, {on}, t + 1000);
  EXPECT_EQ(Egress(3, t + 2000), 1);
  const Frames again = TakeTx(3);
  ASSERT_EQ(again.size(), 1u);
  ASSERT_EQ(again[0].size(), kWithInt) << "a trailer is never added twice";
  const uint8_t* tr = TrailerOf(again[0]);
  ASSERT_NE(tr, nullptr);
  EXPECT_EQ(net::IntHopCount(tr), 2);
  EXPECT_EQ(net::IntHopAt(tr, 0).time, t & 0xffffff) << "the first record kept";
  EXPECT_EQ(net::IntHopAt(tr, 1).bytes, (4 * kWithInt + 120) / 256);
  EXPECT_EQ(net::IntHopAt(tr, 1).qlen, 0u);
  EXPECT_EQ(Snapshot(*sw_).at("p3.q3.int_inserted"), 4u);
}

// A trailer some NIC added (its own units) gets the hop in those units; an
// echoed one (an ACK's copy) is left as it is; without int.insert a packet
// without one gets none.
TEST_F(StageTest, IntKeepsTheSendersUnitsAndLeavesEchoesAlone) {
  Start(BaseYaml("", "int: { priorities: [3], insert: false }\n"));
  Frames in = ToP3(24, 3);
  for (int i = 0; i < 2; i++) {
    in[i].resize(kIpEnd);
    in[i].resize(kWithInt);
    net::WriteIntTrailer(in[i].data() + kIpEnd, i == 0 ? net::kIntHops : net::kIntHopsEcho, 4);
  }
  Ingress(0, in, kT0);
  EXPECT_EQ(Egress(3, kT0 + 10), 3);
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 3u);
  const uint8_t* t0 = TrailerOf(out[0]);
  ASSERT_NE(t0, nullptr);
  EXPECT_EQ(net::IntHopCount(t0), 1);
  // Queued behind the first: 106 + 60 bytes, in units of 80 * 4.
  EXPECT_EQ(net::IntHopAt(t0, 0).qlen, 0u);
  EXPECT_EQ(net::IntMulti(t0), 4u);
  EXPECT_EQ(net::IntHopAt(t0, 0).time, (kT0 + 10) & 0xffffff);
  EXPECT_EQ(std::vector<uint8_t>(out[1].begin() + kIpEnd, out[1].end()),
            std::vector<uint8_t>(in[1].begin() + kIpEnd, in[1].end()))
      << "the echo untouched";
  EXPECT_EQ(out[2].size(), 60u) << "insert: false";
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p3.q3.int_hops"), 1u);
  EXPECT_EQ(c.at("p3.q3.int_inserted"), 0u);
}

// With ECN on the same queue, ECN counts the queue's bytes and INT does not
// count them again; a queue without a profile is counted by INT; the
// trailers added as packets leave count as queued and sent, so the depths
// end at 0.
TEST_F(StageTest, IntAndEcnCountEachQueueOnce) {
  Start(BaseYaml("",
                 "int: { priorities: [3, 1] }\n"
                 "ecn:\n"
                 "  profiles: { P: { green_min_threshold: 100K, green_max_threshold: 100K, "
                 "green_drop_probability: 0 } }\n"
                 "  queues: [ { priorities: [3], profile: P } ]\n"));
  Frames in = ToP3(24, 5);
  for (const auto& f : ToP3(10, 3)) in.push_back(f);
  Ingress(0, in, kT0);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 5 * 60);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 1), 3 * 60);
  EXPECT_EQ(stages::IntPortDepth(w_, 3), 8 * 60);
  EXPECT_EQ(Egress(3, kT0 + 10), 8);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 3), 0);
  EXPECT_EQ(stages::EcnDepth(*sw_, 3, 1), 0);
  EXPECT_EQ(Snapshot(*sw_).at("p3.tx_bytes"), 8 * kWithInt) << "sent with their trailers";
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 8u);
  // The last to leave sees nothing behind it.
  EXPECT_EQ(net::IntHopAt(TrailerOf(out[7]), 0).qlen, 0u);
  EXPECT_EQ(net::IntHopAt(TrailerOf(out[0]), 0).qlen, 7 * 60 / 80);
}

// HPCC-PINT: frames of priority 3 whose senders added a PINT trailer; the
// power already in it is `power`.
Frames PintFrames(int n, uint16_t power) {
  Frames f = ToP3(24, n);
  for (auto& x : f) {
    x.resize(kIpEnd + net::kIntPintBytes);
    net::WriteIntTrailer(x.data() + kIpEnd, net::kIntPint, 1);
    net::RaiseIntPintPower(x.data() + kIpEnd, power);
  }
  return f;
}

TEST_F(StageTest, IntPintRaisesThePathsUtilisation) {
  Start(BaseYaml("",
                 "int: { priorities: [3], insert: false, pint: { log_base: 1.01, rtt: 10us } }\n"));
  Ingress(0, PintFrames(4, 0), kT0);
  EXPECT_EQ(Egress(3, kT0 + 100), 4);
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 4u);
  // The port (10G: 1.25 bytes a ns, T 10 us) starts at u 0, its first
  // packet with 198 bytes behind it (under the 256 the queue term counts):
  // u stays 0, power 0. The burst leaves at one instant, so each later
  // packet adds the byte term of the 66-byte one before it, 66 / (1.25 x
  // 10,000) = 0.00528: u x 512 rounds up to 3, 6 and 9, whose logs to
  // 1.01 are 110.4, 180.1 and 220.8, each rounded either way at random.
  const std::pair<int, int> want[] = {{0, 0}, {110, 111}, {180, 181}, {220, 221}};
  for (int i = 0; i < 4; i++) {
    ASSERT_EQ(out[i].size(), kIpEnd + net::kIntPintBytes) << i;
    const uint8_t* tr = TrailerOf(out[i]);
    ASSERT_NE(tr, nullptr) << i;
    EXPECT_EQ(net::IntKind(tr), net::kIntPint);
    const uint16_t p = net::IntPintPower(tr);
    EXPECT_TRUE(p == want[i].first || p == want[i].second) << i << ": power " << p;
  }
  // A path's larger value stays: the switch only raises it.
  Ingress(0, PintFrames(1, 2000), kT0 + 1000);
  EXPECT_EQ(Egress(3, kT0 + 1100), 1);
  EXPECT_EQ(net::IntPintPower(TrailerOf(TakeTx(3)[0])), 2000);
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p3.q3.int_pint"), 5u);
  EXPECT_EQ(c.at("p3.q3.int_hops"), 0u) << "no hop records: PINT has none";
  EXPECT_EQ(c.at("p3.q3.int_pint_unset"), 0u);
}

TEST_F(StageTest, IntWithoutPintCountsAndLeavesPintTrailers) {
  Start(BaseYaml("", "int: { priorities: [3], insert: false }\n"));
  Ingress(0, PintFrames(2, 7), kT0);
  EXPECT_EQ(Egress(3, kT0 + 100), 2);
  for (const auto& f : TakeTx(3)) EXPECT_EQ(net::IntPintPower(TrailerOf(f)), 7);
  const Counters c = Snapshot(*sw_);
  EXPECT_EQ(c.at("p3.q3.int_pint_unset"), 2u);
  EXPECT_EQ(c.at("p3.q3.int_pint"), 0u);
}

}  // namespace
}  // namespace pfc::stagetest
