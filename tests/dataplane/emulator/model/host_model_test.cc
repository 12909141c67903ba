// SPDX-License-Identifier: BSD-3-Clause
// The emulated RDMA host on a virtual clock: frames it builds, flow rates,
// PFC honoured per priority at its link speed (or ignored on purpose), the
// pause storm of a misbehaving host, and per-flow receive accounting.
#include "dataplane/emulator/model/host_model.h"

#include <gtest/gtest.h>

#include <vector>

#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/model/link_model.h"
#include "dataplane/emulator/model/roce_frame.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/net/parser.h"
#include "dataplane/pause/pfc_frame.h"

namespace pfc::emulator {
namespace {

uint32_t be_read32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

constexpr uint64_t k10G = 10'000'000'000ull;

HostParams Params() {
  HostParams p;
  p.mac = {0x02, 0, 0, 0, 0, 1};
  p.gw_mac = {0x02, 0, 0, 0, 0, 0xfe};
  p.ip = 0x0a000001;
  p.link_bps = k10G;
  return p;
}

FlowSpec Flow(uint32_t id, uint8_t prio, uint64_t rate = 0) {
  FlowSpec f;
  f.id = id;
  f.dst_ip = 0x0a000102;
  f.dscp = 24;
  f.prio = prio;
  f.frame_len = 1000;
  f.rate_bps = rate;
  return f;
}

std::vector<uint8_t> PfcFrame(uint8_t prios, uint16_t quanta) {
  pause::PauseRequest r;
  r.class_enable = prios;
  for (int i = 0; i < 8; ++i) r.quanta[i] = quanta;
  std::vector<uint8_t> b(64);
  b.resize(pause::BuildPfcFrame({0x02, 0, 0, 0, 0, 0xfe}, r, b.data(), b.size()));
  return b;
}

TEST(HostModel, BuildsAValidTaggedIpv4UdpFrameTheSwitchParses) {
  HostModel h(Params());
  h.AddFlow(Flow(7, 3));
  uint8_t buf[2048];
  bool control = true;
  const uint32_t n = h.NextFrame(0, buf, sizeof buf, &control);
  ASSERT_EQ(n, 1000u);
  EXPECT_FALSE(control);
  net::ParsedPacket p;
  ASSERT_EQ(net::ParseFrame(buf, n, true, &p), net::PktKind::kIpv4);  // checksum verified
  EXPECT_TRUE(net::Ipv4ChecksumOk(buf + 14, 20));
  EXPECT_EQ(buf[15] >> 2, 24);
  FlowHeader fh;
  ASSERT_TRUE(ReadFlowHeader(buf, n, &fh));
  EXPECT_EQ(fh.flow, 7u);
  EXPECT_EQ(fh.seq, 0u);
  EXPECT_EQ(fh.ttl, 64);
  EXPECT_EQ(h.NextFrame(0, buf, 999, &control), 0u);  // too small a buffer
}

TEST(HostModel, FlowTtlIsSentAsGivenWithAValidChecksum) {
  HostModel h(Params());
  FlowSpec f = Flow(1, 3);
  f.ttl = 16;  // a routing-loop experiment's TTL (HotNets'16 §3.1)
  h.AddFlow(f);
  uint8_t buf[2048];
  bool control = true;
  const uint32_t n = h.NextFrame(0, buf, sizeof buf, &control);
  ASSERT_EQ(n, 1000u);
  EXPECT_EQ(buf[14 + 8], 16);
  EXPECT_TRUE(net::Ipv4ChecksumOk(buf + 14, 20));
  FlowHeader fh;
  ASSERT_TRUE(ReadFlowHeader(buf, n, &fh));
  EXPECT_EQ(fh.ttl, 16);
}

// An ECN-capable flow sends its codepoint; the receiver counts the frames
// a switch marked CE.
TEST(HostModel, EcnCapableFlowSendsEctAndReceiverCountsCe) {
  HostModel h(Params());
  FlowSpec f = Flow(1, 3);
  f.ecn = net::kEcnEct0;
  h.AddFlow(f);
  uint8_t buf[2048];
  bool control = true;
  uint32_t n = h.NextFrame(0, buf, sizeof buf, &control);
  ASSERT_EQ(n, 1000u);
  EXPECT_EQ(buf[15], (24 << 2) | net::kEcnEct0);
  EXPECT_TRUE(net::Ipv4ChecksumOk(buf + 14, 20));
  HostModel rx(Params());
  rx.Receive(buf, n, 100);  // unmarked
  n = h.NextFrame(1'000'000, buf, sizeof buf, &control);
  ASSERT_EQ(net::Ipv4MarkCe(buf + 14), net::kEcnEct0);  // as a switch marks it
  FlowHeader fh;
  ASSERT_TRUE(ReadFlowHeader(buf, n, &fh));
  EXPECT_EQ(fh.ecn, net::kEcnCe);
  rx.Receive(buf, n, 1'000'100);
  ASSERT_NE(rx.rx_flow(1), nullptr);
  EXPECT_EQ(rx.rx_flow(1)->frames, 2u);
  EXPECT_EQ(rx.rx_flow(1)->ce, 1u);
}

// DCQCN end to end between two hosts: the receiver answers CE-marked
// frames with one RoCEv2 CNP per interval, ahead of its own data, to the
// sender's address and QP; the sender's flow slows down once the rate
// decrease check has seen the CNP, and CNPs for no flow of its own are
// counted, not applied.
TEST(HostModel, DcqcnCnpFromReceiverSlowsTheSender) {
  HostParams sp = Params();
  HostModel tx(sp);
  FlowSpec f = Flow(5, 3);
  f.ecn = net::kEcnEct0;
  f.dcqcn = true;
  tx.AddFlow(f);
  HostParams rp = Params();
  rp.mac = {0x02, 0, 0, 0, 0, 2};
  rp.ip = 0x0a000102;
  HostModel rx(rp);

  uint8_t buf[2048];
  bool control = false;
  // Unlimited and not yet notified: paced by the link alone.
  ASSERT_EQ(tx.NextFrame(0, buf, sizeof buf, &control), 1000u);
  EXPECT_EQ(tx.tx_flows()[0].next_ns, 0u);
  // A switch marks it; the receiver owes a CNP, and sends it first.
  net::Ipv4MarkCe(buf + 14);
  rx.Receive(buf, 1000, 1'000);
  EXPECT_EQ(rx.rx_flow(5)->ce, 1u);
  EXPECT_EQ(rx.rx_flow(5)->cnp_tx, 1u);
  EXPECT_EQ(rx.NextEventNs(1'000), 1'000u) << "a CNP is due at once";
  uint8_t cnp[128];
  ASSERT_EQ(rx.NextFrame(1'000, cnp, sizeof cnp, &control), kCnpFrameLen);
  EXPECT_FALSE(control);
  RoceHeader h;
  ASSERT_TRUE(ParseRoce(cnp, kCnpFrameLen, &h));
  EXPECT_EQ(h.opcode, kBthOpCnp);
  EXPECT_EQ(h.dest_qp, QpOf(5));
  EXPECT_TRUE(h.icrc_ok);
  EXPECT_EQ(cnp[15] >> 2, 48) << "the CNP class";
  EXPECT_EQ(be_read32(cnp + 30), sp.ip) << "to the data's sender";
  // More CE frames within the interval (4 us by default): no second CNP.
  rx.Receive(buf, 1000, 4'999);
  EXPECT_EQ(rx.rx_flow(5)->cnp_tx, 1u);
  EXPECT_EQ(rx.NextFrame(4'999, cnp, sizeof cnp, &control), 0u);

  // The sender: the CNP starts DCQCN; after the first decrease check
  // (RATE_DECREASE_INTERVAL 4 us + 1 ns) the flow is paced below 10G.
  tx.Receive(cnp, kCnpFrameLen, 2'000);
  EXPECT_EQ(tx.tx_flows()[0].cnp_rx, 1u);
  EXPECT_TRUE(tx.tx_flows()[0].rp->active());
  ASSERT_EQ(tx.NextFrame(10'000, buf, sizeof buf, &control), 1000u);  // the slot it missed
  ASSERT_EQ(tx.NextFrame(10'000, buf, sizeof buf, &control), 1000u);
  const uint64_t rate = tx.tx_flows()[0].rp->rate_bps();
  EXPECT_LT(rate, k10G);
  EXPECT_EQ(tx.tx_flows()[0].next_ns, 10'000 + WireTimeNs(1000, rate));
  EXPECT_EQ(tx.NextFrame(10'001, buf, sizeof buf, &control), 0u) << "held by its rate";

  // A CNP for a QP the sender does not have.
  CnpSpec other;
  other.dest_qp = 99;
  BuildCnp(other, cnp);
  tx.Receive(cnp, kCnpFrameLen, 20'000);
  EXPECT_EQ(tx.counters().cnp_unknown, 1u);
}

// A sized flow's completion time against its ideal: 2,500 bytes in 1000-byte
// frames are 3 frames; ideal on a two-link path (10G then 40G, 2 us of
// propagation) = the propagation, the first frame stored and forwarded at
// each link, the other two behind it at the 10G bottleneck.
TEST(HostModel, FlowCompletionTimeAndSlowdown) {
  const IdlePath path{2'000, {k10G, 4 * k10G}};
  EXPECT_EQ(path.min_bps(), k10G);
  FlowRx rx;
  EXPECT_FALSE(FctOf(2500, 1000, 0, k10G, path, nullptr).completed);
  rx.frames = 2;
  rx.min_delay_ns = 5'000;
  rx.last_ns = 12'000;
  Fct f = FctOf(2500, 1000, 1'000, k10G, path, &rx);
  EXPECT_EQ(f.frames, 3u);
  EXPECT_FALSE(f.completed) << "a frame missing";
  EXPECT_EQ(f.ideal_ns, 2'000 + WireTimeNs(1000, k10G) + WireTimeNs(1000, 4 * k10G) +
                            2 * WireTimeNs(1000, k10G));
  rx.frames = 3;
  f = FctOf(2500, 1000, 1'000, k10G, path, &rx);
  EXPECT_TRUE(f.completed);
  EXPECT_EQ(f.fct_ns, 11'000u);
  EXPECT_DOUBLE_EQ(f.slowdown, 11'000.0 / static_cast<double>(f.ideal_ns));
  // A 1 Gb/s sender: the rest follows at its rate, not the path's.
  EXPECT_EQ(FctOf(2500, 1000, 1'000, k10G / 10, path, &rx).ideal_ns,
            2'000 + WireTimeNs(1000, k10G) + WireTimeNs(1000, 4 * k10G) +
                2 * WireTimeNs(1000, k10G / 10));
  EXPECT_EQ(FctOf(2500, 1000, 1'000, k10G, IdlePath{}, &rx).ideal_ns, 0u) << "no path: no ideal";
  rx.lost = 1;
  EXPECT_FALSE(FctOf(2500, 1000, 1'000, k10G, path, &rx).completed) << "a sequence gap";
}

TEST(HostModel, RateLimitedFlowIsSpacedByItsWireTime) {
  HostModel h(Params());
  h.AddFlow(Flow(1, 3, 1'000'000'000));  // 1 Gb/s: 1024 B on the wire = 8192 ns
  uint8_t buf[2048];
  bool control;
  ASSERT_EQ(h.NextFrame(0, buf, sizeof buf, &control), 1000u);
  EXPECT_EQ(h.NextFrame(8191, buf, sizeof buf, &control), 0u);
  EXPECT_EQ(h.NextEventNs(100), 8192u);
  EXPECT_EQ(h.NextFrame(8192, buf, sizeof buf, &control), 1000u);
  // Asked late (a paused or busy link): catches up one slot, never bursts.
  EXPECT_EQ(h.NextFrame(100'000, buf, sizeof buf, &control), 1000u);
  EXPECT_EQ(h.NextFrame(100'000, buf, sizeof buf, &control), 1000u);
  EXPECT_EQ(h.NextFrame(100'000, buf, sizeof buf, &control), 0u);
}

TEST(HostModel, HonoursPfcPerPriorityAtItsLinkSpeed) {
  HostModel h(Params());
  h.AddFlow(Flow(1, 3));
  h.AddFlow(Flow(2, 4));
  const auto x = PfcFrame(1u << 3, 100);  // 100 quanta at 10G = 5120 ns
  h.Receive(x.data(), static_cast<uint32_t>(x.size()), 1000);
  EXPECT_EQ(h.PausedMask(1000), 1u << 3);
  uint8_t buf[2048];
  bool control;
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(h.NextFrame(2000, buf, sizeof buf, &control), 1000u);
    FlowHeader fh;
    ASSERT_TRUE(ReadFlowHeader(buf, 1000, &fh));
    EXPECT_EQ(fh.flow, 2u) << "priority 3 is paused";
  }
  EXPECT_EQ(h.PausedMask(6119), 1u << 3);
  EXPECT_EQ(h.PausedMask(6120), 0u);
  h.StopFlow(2, 2000);
  EXPECT_EQ(h.NextFrame(3000, buf, sizeof buf, &control), 0u);
  EXPECT_EQ(h.NextEventNs(3000), 6120u);
  EXPECT_EQ(h.NextFrame(6120, buf, sizeof buf, &control), 1000u);
  EXPECT_EQ(h.counters().pfc_rx, 1u);
}

TEST(HostModel, MisbehavingHostIgnoresPause) {
  HostParams p = Params();
  p.ignore_pause = true;
  HostModel h(p);
  h.AddFlow(Flow(1, 3));
  const auto x = PfcFrame(1u << 3, 0xffff);
  h.Receive(x.data(), static_cast<uint32_t>(x.size()), 0);
  uint8_t buf[2048];
  bool control;
  EXPECT_EQ(h.NextFrame(10, buf, sizeof buf, &control), 1000u);
  EXPECT_EQ(h.counters().pfc_ignored, 1u);
}

TEST(HostModel, PauseStormSendsXoffAheadOfDataEveryInterval) {
  HostParams p = Params();
  p.storm_prios = 1u << 3;
  p.storm_quanta = 0xffff;  // 3,355,392 ns at 10G; refreshed at half
  HostModel h(p);
  h.AddFlow(Flow(1, 1));
  uint8_t buf[2048];
  bool control = false;
  uint32_t n = h.NextFrame(0, buf, sizeof buf, &control);
  ASSERT_TRUE(control);
  pause::PauseRequest r;
  ASSERT_EQ(pause::ParseMacControl(buf, n, &r), pause::MacCtlKind::kPfc);
  EXPECT_EQ(r.class_enable, 1u << 3);
  EXPECT_EQ(r.quanta[3], 0xffff);
  n = h.NextFrame(0, buf, sizeof buf, &control);
  EXPECT_FALSE(control);  // data between storm frames
  EXPECT_EQ(h.NextFrame(1'677'695, buf, sizeof buf, &control), 1000u);
  EXPECT_FALSE(control);
  EXPECT_GT(h.NextFrame(1'677'696, buf, sizeof buf, &control), 0u);
  EXPECT_TRUE(control);
  EXPECT_EQ(h.counters().pfc_tx, 2u);
  h.SetStorm(0, 2'000'000);
  for (int i = 0; i < 3; ++i) {
    h.NextFrame(5'000'000 + i, buf, sizeof buf, &control);
    EXPECT_FALSE(control);
  }
}

// Four frames of flow 9 from a sender, and a receiver with 1 us bins.
struct BinnedPair {
  static HostParams RxParams() {
    HostParams rp = Params();
    rp.bin_ns = 1000;
    return rp;
  }
  HostModel tx{Params()};
  HostModel rx{RxParams()};
  uint8_t buf[4][2048];
  bool built = true;
  BinnedPair() {
    tx.AddFlow(Flow(9, 3));
    bool control;
    for (auto& b : buf) built &= tx.NextFrame(0, b, sizeof b, &control) == 1000u;
  }
};

TEST(HostModel, ReceiverCountsPerFlowLossReorderAndTimeSeries) {
  BinnedPair p;
  ASSERT_TRUE(p.built);
  HostModel& rx = p.rx;
  auto& buf = p.buf;
  rx.Receive(buf[0], 1000, 500);
  rx.Receive(buf[2], 1000, 1500);  // seq 1 missing so far
  rx.Receive(buf[1], 1000, 1600);  // arrives late: reordered
  rx.Receive(buf[3], 1000, 2500);
  const FlowRx* f = rx.rx_flow(9);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->frames, 4u);
  EXPECT_EQ(f->lost, 1u);
  EXPECT_EQ(f->reordered, 1u);
  EXPECT_EQ(f->bin0, 0u);
  EXPECT_EQ(f->bin_bytes, (std::vector<uint64_t>{1000, 2000, 1000}));
  EXPECT_EQ(rx.rx_flow(8), nullptr);
  const uint8_t junk[20] = {};
  rx.Receive(junk, sizeof junk, 3000);
  EXPECT_EQ(rx.counters().rx_other, 1u);
}

// A flow that starts late keeps its bins from its first frame's on.
TEST(HostModel, ReceiverBinsStartAtTheFirstFrame) {
  BinnedPair p;
  ASSERT_TRUE(p.built);
  HostModel& rx = p.rx;
  auto& buf = p.buf;
  rx.Receive(buf[0], 1000, 2'000'000'500);
  rx.Receive(buf[1], 1000, 2'000'002'100);
  const FlowRx* f = rx.rx_flow(9);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->bin0, 2'000'000u);
  EXPECT_EQ(f->bin_bytes, (std::vector<uint64_t>{1000, 0, 1000}));
  // An earlier bin (never on either clock) moves the start back.
  rx.Receive(buf[2], 1000, 1'999'999'000);
  EXPECT_EQ(f->bin0, 1'999'999u);
  EXPECT_EQ(f->bin_bytes, (std::vector<uint64_t>{1000, 1000, 0, 1000}));
}

TEST(HostModel, BoundedFlowStopsAfterItsBytes) {
  HostModel h(Params());
  FlowSpec f = Flow(1, 3);
  f.bytes = 2500;
  f.start_ns = 100;
  h.AddFlow(f);
  uint8_t buf[2048];
  bool control;
  EXPECT_EQ(h.NextFrame(99, buf, sizeof buf, &control), 0u);
  EXPECT_EQ(h.NextEventNs(0), 100u);
  int sent = 0;
  while (h.NextFrame(100, buf, sizeof buf, &control) != 0) ++sent;
  EXPECT_EQ(sent, 3);
  EXPECT_EQ(h.NextEventNs(100), kNever);
}

}  // namespace
}  // namespace pfc::emulator
