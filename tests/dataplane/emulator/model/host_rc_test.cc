// SPDX-License-Identifier: BSD-3-Clause
// Two emulated RDMA hosts joined by a wire (fixed delay, optional loss):
// an RC flow's messages as RDMA WRITE frames, ACKs and NAKs back on the
// flow's class, go-back-N after a lost frame, the timeout after a lost
// last packet, ECN marks answered by CNPs, PFC holding ACKs, the
// completion time from the sender's side.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/model/host_model.h"
#include "dataplane/emulator/model/roce_frame.h"
#include "dataplane/pause/pfc_frame.h"

namespace pfc::emulator {
namespace {

constexpr uint64_t k10G = 10'000'000'000ull;
constexpr uint32_t kIpA = 0x0a000001, kIpB = 0x0a000102;

HostParams Params(uint32_t ip, uint8_t last_mac) {
  HostParams p;
  p.mac = {0x02, 0, 0, 0, 0, last_mac};
  p.gw_mac = {0x02, 0, 0, 0, 0, 0xfe};
  p.ip = ip;
  p.link_bps = k10G;
  p.rc.mtu = 1000;
  p.rc.timeout = 2;  // 16 us
  return p;
}

FlowSpec RcFlow(uint64_t bytes, uint64_t message_bytes) {
  FlowSpec f;
  f.id = 5;
  f.dst_ip = kIpB;
  f.dscp = 26;
  f.prio = 3;
  f.rc = true;
  f.bytes = bytes;
  f.message_bytes = message_bytes;
  return f;
}

struct Frame {
  uint64_t at;
  bool to_b;
  std::vector<uint8_t> b;
};

// Runs A -> B for up to `until` ns, 1 us of wire delay, frames back to back
// at 10G; `drop(to_b, frame)` loses a frame; `mark(frame)` sets CE.
struct Pair {
  HostModel a{Params(kIpA, 1)}, b{Params(kIpB, 2)};
  std::function<bool(bool, const std::vector<uint8_t>&)> drop = [](bool, auto&) { return false; };
  std::vector<std::vector<uint8_t>> a_sent, b_sent;

  void Run(uint64_t until) {
    std::deque<Frame> wire;
    uint64_t free_a = 0, free_b = 0;
    for (uint64_t now = 0; now < until;) {
      Send(a, true, now, &free_a, &wire, &a_sent);
      Send(b, false, now, &free_b, &wire, &b_sent);
      while (!wire.empty() && wire.front().at <= now) {
        const Frame f = wire.front();
        wire.pop_front();
        (f.to_b ? b : a).Receive(f.b.data(), static_cast<uint32_t>(f.b.size()), now);
      }
      // The next thing to happen: a host ready (once its wire is free), a frame landing.
      auto ready = [&](HostModel& h, uint64_t free) -> uint64_t {
        const uint64_t t = h.NextEventNs(now);
        return t == kNever ? t : std::max(t, free);
      };
      uint64_t next = std::min(ready(a, free_a), ready(b, free_b));
      if (!wire.empty()) next = std::min(next, wire.front().at);
      if (next == kNever) break;
      now = std::max(next, now + 1);
    }
  }
  void Send(HostModel& h, bool to_b, uint64_t now, uint64_t* free, std::deque<Frame>* wire,
            std::vector<std::vector<uint8_t>>* log) {
    if (now < *free) return;
    std::vector<uint8_t> buf(kRoceMaxFrameLen);
    bool control;
    const uint32_t n = h.NextFrame(now, buf.data(), static_cast<uint32_t>(buf.size()), &control);
    if (n == 0) return;
    buf.resize(n);
    log->push_back(buf);
    *free = now + WireTimeNs(n, k10G);
    if (drop(to_b, buf)) return;
    Frame f{*free + 1000, to_b, buf};
    auto it = wire->end();
    while (it != wire->begin() && (it - 1)->at > f.at) --it;
    wire->insert(it, f);
  }
};

RoceHeader Parse(const std::vector<uint8_t>& f) {
  RoceHeader h;
  EXPECT_TRUE(ParseRoce(f.data(), static_cast<uint32_t>(f.size()), &h));
  EXPECT_TRUE(h.icrc_ok && h.complete);
  return h;
}

TEST(HostRc, MessagesAsWriteFramesAckedOnTheFlowsClass) {
  Pair p;
  p.a.AddFlow(RcFlow(5000, 2500));
  p.b.AddResponder(5, 26, 3);
  p.Run(1'000'000);
  const FlowTx& tx = p.a.tx_flows()[0];
  ASSERT_TRUE(tx.rc->completed());
  EXPECT_EQ(tx.rc->counters().messages_done, 2u);
  EXPECT_EQ(tx.rc->counters().retransmits, 0u);
  // Data: First, Middle, Last twice (1000 + 1000 + 500 each), PSN 0..5.
  ASSERT_EQ(p.a_sent.size(), 6u);
  const uint8_t ops[] = {kBthOpWriteFirst, kBthOpWriteMiddle, kBthOpWriteLast,
                         kBthOpWriteFirst, kBthOpWriteMiddle, kBthOpWriteLast};
  for (size_t i = 0; i < 6; i++) {
    const RoceHeader h = Parse(p.a_sent[i]);
    EXPECT_EQ(h.opcode, ops[i]) << i;
    EXPECT_EQ(h.psn, i);
    EXPECT_EQ(h.dest_qp, QpOf(5));
    EXPECT_EQ(h.dscp, 26);
    EXPECT_EQ(h.ack_req, i % 3 == 2);
    EXPECT_EQ(h.payload, i % 3 == 2 ? 500u : 1000u);
  }
  // ACKs, one a packet (ack_interval 1), on the flow's DSCP.
  ASSERT_EQ(p.b_sent.size(), 6u);
  for (size_t i = 0; i < 6; i++) {
    const RoceHeader h = Parse(p.b_sent[i]);
    EXPECT_EQ(h.opcode, kBthOpAck);
    EXPECT_EQ(h.syndrome, kAethAck);
    EXPECT_EQ(h.psn, i);
    EXPECT_EQ(h.msn, i / 3 + (i % 3 == 2));
    EXPECT_EQ(h.dscp, 26);
  }
  EXPECT_EQ(p.b.counters().ack_tx, 6u);
  EXPECT_EQ(p.a.counters().ack_rx, 6u);
  const FlowRx* rx = p.b.rx_flow(5);
  ASSERT_NE(rx, nullptr);
  EXPECT_EQ(rx->frames, 6u);
  EXPECT_EQ(rx->rc->counters().messages, 2u);
  // Completion at the sender: the last ACK, against the pair's one 10G
  // link of 1 us alone.
  const Fct c = FctOfRc(*tx.rc, 0, k10G, IdlePath{1'000, {k10G}});
  EXPECT_TRUE(c.completed);
  EXPECT_EQ(c.fct_ns, tx.rc->completed_ns());
  EXPECT_GE(c.ideal_ns, tx.rc->min_rtt_ns());
  EXPECT_GE(c.slowdown, 1.0);
  EXPECT_LT(c.slowdown, 1.2);
}

// A host's scan of its live flows reads each flow's first line and its
// requester's (host_model.h FlowTx): whether the flow is RC and has an
// ACK-driven control comes from spec there, as AddFlow emplaced them.
TEST(HostRc, FlowScanFieldsShareTheFirstLine) {
  Pair p;
  FlowSpec f = RcFlow(3000, 0);
  f.ack_cc = AckCcMode::kDctcp;
  p.a.AddFlow(f);
  FlowSpec g = RcFlow(3000, 0);
  g.id = 6;
  p.a.AddFlow(g);
  const FlowTx& tx = p.a.tx_flows()[0];
  auto line = [](const void* q) { return reinterpret_cast<uintptr_t>(q) / 64; };
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&tx) % 64, 0u);
  for (const void* q :
       {static_cast<const void*>(&tx.spec.start_ns), static_cast<const void*>(&tx.spec.stop_ns),
        static_cast<const void*>(&tx.spec.prio), static_cast<const void*>(&tx.spec.rc),
        static_cast<const void*>(&tx.spec.ack_cc)})
    EXPECT_EQ(line(q), line(&tx.next_ns));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&*tx.rc) % 64, 0u);
  EXPECT_TRUE(tx.has_rc() && tx.rc.has_value());
  EXPECT_TRUE(tx.has_cc() && tx.cc.has_value());
  const FlowTx& plain = p.a.tx_flows()[1];
  EXPECT_TRUE(plain.has_rc() && plain.rc.has_value());
  EXPECT_FALSE(plain.has_cc() || plain.cc.has_value());
}

TEST(HostRc, LostFrameIsNakedAndResentGoBackN) {
  Pair p;
  p.a.AddFlow(RcFlow(10'000, 0));
  p.b.AddResponder(5, 26, 3);
  int data = 0;
  p.drop = [&](bool to_b, const std::vector<uint8_t>&) { return to_b && ++data == 3; };
  p.Run(1'000'000);
  const FlowTx& tx = p.a.tx_flows()[0];
  ASSERT_TRUE(tx.rc->completed());
  EXPECT_EQ(p.b.counters().nak_tx, 1u);
  EXPECT_EQ(p.a.counters().nak_rx, 1u);
  EXPECT_GT(tx.rc->counters().retransmits, 0u);
  EXPECT_EQ(tx.rc->counters().timeouts, 0u);
  const FlowRx* rx = p.b.rx_flow(5);
  EXPECT_EQ(rx->frames, 10u) << "each PSN taken once";
  EXPECT_GT(rx->rc->counters().out_of_sequence, 0u);
}

TEST(HostRc, LostLastPacketIsResentAfterTheTimeout) {
  Pair p;
  p.a.AddFlow(RcFlow(3000, 0));
  p.b.AddResponder(5, 26, 3);
  int data = 0;
  p.drop = [&](bool to_b, const std::vector<uint8_t>&) { return to_b && ++data == 3; };
  p.Run(1'000'000);
  const FlowTx& tx = p.a.tx_flows()[0];
  ASSERT_TRUE(tx.rc->completed());
  EXPECT_EQ(tx.rc->counters().timeouts, 1u);
  EXPECT_EQ(p.b.counters().nak_tx, 0u);
  EXPECT_GE(tx.rc->completed_ns(), 16'384u) << "not before the timeout";
}

TEST(HostRc, LostAcksAreCoveredByLaterOnes) {
  Pair p;
  p.a.AddFlow(RcFlow(8000, 0));
  p.b.AddResponder(5, 26, 3);
  int acks = 0;
  p.drop = [&](bool to_b, const std::vector<uint8_t>&) { return !to_b && ++acks % 2 == 1; };
  p.Run(1'000'000);
  const FlowTx& tx = p.a.tx_flows()[0];
  ASSERT_TRUE(tx.rc->completed());
  EXPECT_EQ(tx.rc->counters().retransmits, 0u) << "ACKs are cumulative";
}

// The responder's ACKs take the UDP source port it was given (the fabric's
// flows[].ack_src_port: the path of the simulator's ACKs), else its own.
TEST(HostRc, AcksLeaveFromTheResponderSourcePort) {
  for (const uint16_t port : {uint16_t{0x1234}, uint16_t{0}}) {
    Pair p;
    p.a.AddFlow(RcFlow(3000, 0));
    p.b.AddResponder(5, 26, 3, AckCcMode::kNone, port);
    p.Run(200'000);
    ASSERT_FALSE(p.b_sent.empty());
    const uint16_t want = port ? port : 0xc000 | 5;
    for (const auto& f : p.b_sent) EXPECT_EQ(f[34] << 8 | f[35], want) << "UDP source port";
    EXPECT_EQ(p.a_sent[0][34] << 8 | p.a_sent[0][35], 0xc000 | 5) << "the data keeps its own";
  }
}

TEST(HostRc, CeMarkedWritesGetCnpsAndPausedClassHoldsAcks) {
  Pair p;
  FlowSpec f = RcFlow(4000, 0);
  f.ecn = 2;
  p.a.AddFlow(f);
  p.b.AddResponder(5, 26, 3);
  // Pause priority 3 at B (its ACKs) for a while: only the CNP goes.
  pause::PauseRequest r;
  r.class_enable = 1 << 3;
  r.quanta[3] = 0xffff;  // 3.4 ms at 10G
  std::vector<uint8_t> pfc(64);
  pfc.resize(pause::BuildPfcFrame({0x02, 0, 0, 0, 0, 0xfe}, r, pfc.data(), pfc.size()));
  p.b.Receive(pfc.data(), static_cast<uint32_t>(pfc.size()), 0);
  std::vector<uint8_t> w(kRoceMaxFrameLen);
  RoceAddr a;
  a.src_ip = kIpA;
  a.dst_ip = kIpB;
  a.dscp = 26;
  a.ecn = 3;  // CE
  a.dest_qp = QpOf(5);
  RoceWrite wr;
  wr.payload = 1000;
  wr.opcode = kBthOpWriteFirst;
  w.resize(BuildWrite(a, wr, w.data(), static_cast<uint32_t>(w.size())));
  p.b.Receive(w.data(), static_cast<uint32_t>(w.size()), 10);
  std::vector<uint8_t> out(kRoceMaxFrameLen);
  bool control;
  const uint32_t n = p.b.NextFrame(20, out.data(), static_cast<uint32_t>(out.size()), &control);
  ASSERT_EQ(n, kCnpFrameLen) << "the CNP's class is not paused";
  EXPECT_EQ(p.b.NextFrame(20, out.data(), static_cast<uint32_t>(out.size()), &control), 0u)
      << "the ACK waits for priority 3";
  EXPECT_GT(p.b.NextEventNs(20), 3'000'000u);
  EXPECT_EQ(p.b.rx_flow(5)->ce, 1u);
  // rc.ack_pausable off (the HPCC simulator's NIC with ACK_HIGH_PRIO 1):
  // the same pause holds nothing, the ACK follows the CNP at once.
  HostParams hp = Params(kIpB, 2);
  hp.rc.ack_pausable = false;
  HostModel b(hp);
  b.AddResponder(5, 26, 3);
  b.Receive(pfc.data(), static_cast<uint32_t>(pfc.size()), 0);
  b.Receive(w.data(), static_cast<uint32_t>(w.size()), 10);
  EXPECT_EQ(b.NextFrame(20, out.data(), static_cast<uint32_t>(out.size()), &control), kCnpFrameLen);
  EXPECT_GT(b.NextFrame(20, out.data(), static_cast<uint32_t>(out.size()), &control), 0u)
      << "the ACK goes through the pause of its class";
  EXPECT_EQ(out[14 + 20 + 8], kBthOpAck) << "an ACK, in the flow's DSCP";
  EXPECT_EQ(out[15] >> 2, 26);
}

TEST(HostRc, ABufferTooSmallSendsNothingAndLosesNoPsn) {
  HostModel a(Params(kIpA, 1));
  a.AddFlow(RcFlow(3000, 0));
  std::vector<uint8_t> buf(kRoceMaxFrameLen);
  bool control;
  EXPECT_EQ(a.NextFrame(0, buf.data(), 500, &control), 0u);
  EXPECT_EQ(a.tx_flows()[0].rc->counters().packets, 0u);
  const uint32_t n = a.NextFrame(0, buf.data(), static_cast<uint32_t>(buf.size()), &control);
  ASSERT_GT(n, 0u);
  buf.resize(n);
  EXPECT_EQ(Parse(buf).psn, 0u) << "the first PSN still goes first";
}

TEST(HostRc, WritesForAnUnknownQpAreCounted) {
  HostModel b(Params(kIpB, 2));
  std::vector<uint8_t> w(kRoceMaxFrameLen);
  RoceAddr a;
  a.dest_qp = QpOf(9);
  RoceWrite wr;
  wr.payload = 64;
  w.resize(BuildWrite(a, wr, w.data(), static_cast<uint32_t>(w.size())));
  b.Receive(w.data(), static_cast<uint32_t>(w.size()), 0);
  EXPECT_EQ(b.counters().qp_unknown, 1u);
  w[60] ^= 1;  // payload bit: the ICRC no longer matches
  b.Receive(w.data(), static_cast<uint32_t>(w.size()), 0);
  EXPECT_EQ(b.counters().rx_malformed, 1u);
  w[60] ^= 1;
  w[42] = 0x0c;  // RDMA READ Request: no emulated NIC sends one (the ICRC is redone below)
  const uint32_t icrc = RoceIcrc(w.data(), static_cast<uint32_t>(w.size()));
  for (int i = 0; i < 4; i++) w[w.size() - 4 + i] = static_cast<uint8_t>(icrc >> (8 * i));
  b.Receive(w.data(), static_cast<uint32_t>(w.size()), 0);
  EXPECT_EQ(b.counters().rx_malformed, 2u);
  EXPECT_EQ(b.counters().qp_unknown, 1u);
}

// A congestion-controlled QP asked late (its link was busy half a slot
// longer) takes that half slot back by default; with rc.pace_catch_up off
// its next packet waits a whole slot after this one, as the simulator's.
TEST(HostRc, PaceCatchUpOffWaitsAWholeSlotAfterALateFrame) {
  uint64_t slot[2] = {}, next[2] = {};  // [catch_up]
  for (const bool catch_up : {true, false}) {
    HostParams p = Params(kIpA, 1);
    p.rc.pace_catch_up = catch_up;
    HostModel h(p);
    FlowSpec f = RcFlow(100'000, 100'000);
    f.ack_cc = AckCcMode::kDctcp;  // paced at its rate, the line's to begin with
    h.AddFlow(f);
    uint8_t buf[kRoceMaxFrameLen];
    bool control;
    ASSERT_GT(h.NextFrame(0, buf, sizeof buf, &control), 0u);
    slot[catch_up] = h.NextEventNs(0);  // the first frame's wire time at the line rate
    ASSERT_GT(slot[catch_up], 0u);
    const uint64_t late = slot[catch_up] + slot[catch_up] / 2;  // asked half a slot late
    ASSERT_GT(h.NextFrame(late, buf, sizeof buf, &control), 0u);
    next[catch_up] = h.NextEventNs(late);
  }
  ASSERT_EQ(slot[0], slot[1]);
  const uint64_t s = slot[0], late = s + s / 2;
  // The second frame's slot, g: catching up, it follows the first's end
  // (s + g); without, it follows its own start (late + g).
  const uint64_t g = next[1] - s;
  EXPECT_GT(g, s / 2);
  EXPECT_EQ(next[0], late + g);
}

}  // namespace
}  // namespace pfc::emulator
