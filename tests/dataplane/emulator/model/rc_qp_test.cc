// SPDX-License-Identifier: BSD-3-Clause
// RC transport (emulator/model/rc_qp.h): packetisation, cumulative ACKs
// every N packets, NAK and go-back-N on loss, reordering, duplicates, the
// retransmission timeout and the QP's failure after retry_cnt timeouts.
#include "dataplane/emulator/model/rc_qp.h"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "dataplane/emulator/model/fct.h"

namespace pfc::emulator {
namespace {

RcParams Params(uint32_t mtu = 1000, uint32_t ack_interval = 1) {
  RcParams p;
  p.mtu = mtu;
  p.ack_interval = ack_interval;
  return p;
}

TEST(RcRequester, SplitsMessagesIntoMtuPackets) {
  // 5,500 bytes in messages of 2,500: 3 + 3 + 1 packets (1000, 1000, 500 twice, then 500).
  RcRequester r(Params(), 5500, 2500);
  EXPECT_EQ(r.packets_total(), 7u);
  std::vector<RcPacket> v;
  while (r.HasData()) v.push_back(r.Next(0));
  ASSERT_EQ(v.size(), 7u);
  const uint32_t payload[] = {1000, 1000, 500, 1000, 1000, 500, 500};
  const uint32_t msg_len[] = {2500, 2500, 2500, 2500, 2500, 2500, 500};
  const bool first[] = {true, false, false, true, false, false, true};
  const bool last[] = {false, false, true, false, false, true, true};
  for (size_t i = 0; i < v.size(); i++) {
    EXPECT_EQ(v[i].psn, i);
    EXPECT_EQ(v[i].payload, payload[i]) << i;
    EXPECT_EQ(v[i].msg_len, msg_len[i]) << i;
    EXPECT_EQ(v[i].first, first[i]) << i;
    EXPECT_EQ(v[i].last, last[i]) << i;
    EXPECT_EQ(v[i].msg, i / 3) << i;
    EXPECT_FALSE(v[i].retransmit);
  }
}

TEST(RcRequester, CumulativeAckCompletesAndMeasuresRtt) {
  RcRequester r(Params(), 3000, 0);  // one message of 3 packets
  r.Next(100);
  r.Next(200);
  r.Next(300);
  EXPECT_EQ(r.outstanding(), 3u);
  r.OnAck(1, 1200);  // the second packet's ACK: 1,000 ns after it went
  EXPECT_EQ(r.outstanding(), 1u);
  EXPECT_EQ(r.min_rtt_ns(), 1000u);
  EXPECT_FALSE(r.completed());
  EXPECT_EQ(r.counters().messages_done, 0u);
  r.OnAck(2, 1250);
  EXPECT_TRUE(r.completed());
  EXPECT_EQ(r.completed_ns(), 1250u);
  EXPECT_EQ(r.min_rtt_ns(), 950u);
  EXPECT_EQ(r.counters().messages_done, 1u);
  EXPECT_EQ(r.NextEventNs(), kNever);
  // An ACK again (a duplicate's) changes nothing.
  r.OnAck(2, 1300);
  EXPECT_EQ(r.counters().stale, 1u);
  EXPECT_EQ(r.completed_ns(), 1250u);
}

// A congested flow keeps more than 64 packets out, so an ACK's packet may
// have had its send-time slot reused by a later one: the last packet of a
// message, which asks for its own ACK, is still timed (without it the
// smallest round trip here would be the second ACK's, 58,010 ns).
TEST(RcRequester, ManyOutstandingStillMeasureRtt) {
  RcRequester r(Params(1000, 100), 200'000, 100'000);  // two messages of 100 packets
  for (uint64_t i = 0; i < 200; i++) r.Next(i * 10);   // all out before any ACK
  EXPECT_EQ(r.outstanding(), 200u);
  r.OnAck(99, 50'000);  // the first message's ACK: packet 99 went at 990 ns
  EXPECT_EQ(r.min_rtt_ns(), 50'000u - 990);
  r.OnAck(199, 60'000);  // the second's last was no probe (the first was out)
  EXPECT_TRUE(r.completed());
  EXPECT_EQ(r.min_rtt_ns(), 50'000u - 990);
  // Ideal on one 100G link of 1 us: out and back, the 200 packets at line
  // rate (the first one counted once), the ACK's wire time.
  const IdlePath path{1'000, {100'000'000'000}};
  const Fct f = FctOfRc(r, 0, 100'000'000'000, path);
  EXPECT_EQ(f.fct_ns, 60'000u);
  EXPECT_EQ(f.ideal_ns, 2'000 + 2 * MessageWireNs(100'000, 1000, 100'000'000'000) +
                            WireTimeNs(kAckFrameLen, 100'000'000'000));
}

TEST(RcResponder, AcksEveryNAndAtAckReq) {
  RcResponder s(4);
  RcReply rep;
  for (uint32_t psn = 0; psn < 3; psn++) {
    EXPECT_TRUE(s.OnPacket(psn, false, false, &rep));
    EXPECT_EQ(rep.kind, RcReply::kNone);
  }
  EXPECT_TRUE(s.OnPacket(3, false, false, &rep));
  EXPECT_EQ(rep.kind, RcReply::kAck);
  EXPECT_EQ(rep.psn24, 3u);
  EXPECT_EQ(rep.msn, 0u);
  EXPECT_TRUE(s.OnPacket(4, true, true, &rep));  // AckReq, a message's last
  EXPECT_EQ(rep.kind, RcReply::kAck);
  EXPECT_EQ(rep.psn24, 4u);
  EXPECT_EQ(rep.msn, 1u);
  EXPECT_EQ(s.counters().acks, 2u);
}

// With a NAK interval (the simulator's NACK interval): a gap that lasts is
// NAKed again once the interval has passed since its last NAK, not before.
TEST(RcResponder, NaksAGapAgainAfterTheInterval) {
  RcResponder s(1, 500'000);
  RcReply rep;
  EXPECT_TRUE(s.OnPacket(0, false, false, &rep, 0));
  EXPECT_FALSE(s.OnPacket(2, false, false, &rep, 1'000));
  EXPECT_EQ(rep.kind, RcReply::kNak);
  EXPECT_FALSE(s.OnPacket(3, false, false, &rep, 500'999));
  EXPECT_EQ(rep.kind, RcReply::kNone) << "within the interval";
  EXPECT_FALSE(s.OnPacket(4, false, false, &rep, 501'000));
  EXPECT_EQ(rep.kind, RcReply::kNak) << "the interval passed: again";
  EXPECT_EQ(rep.psn24, 1u);
  EXPECT_FALSE(s.OnPacket(5, false, false, &rep, 600'000));
  EXPECT_EQ(rep.kind, RcReply::kNone);
  EXPECT_EQ(s.counters().naks, 2u);
  // Without one: once, however long the gap lasts.
  RcResponder once(1);
  EXPECT_TRUE(once.OnPacket(0, false, false, &rep, 0));
  EXPECT_FALSE(once.OnPacket(2, false, false, &rep, 1'000));
  EXPECT_FALSE(once.OnPacket(3, false, false, &rep, 10'000'000));
  EXPECT_EQ(rep.kind, RcReply::kNone);
  EXPECT_EQ(once.counters().naks, 1u);
}

TEST(RcResponder, NaksAGapOnceAndAcksDuplicates) {
  RcResponder s(1);
  RcReply rep;
  EXPECT_TRUE(s.OnPacket(0, false, false, &rep));
  // 1 lost: 2 and 3 are out of sequence; one NAK expecting 1.
  EXPECT_FALSE(s.OnPacket(2, false, false, &rep));
  EXPECT_EQ(rep.kind, RcReply::kNak);
  EXPECT_EQ(rep.psn24, 1u);
  EXPECT_FALSE(s.OnPacket(3, false, false, &rep));
  EXPECT_EQ(rep.kind, RcReply::kNone);
  // Go-back-N brings 1 and 2 again.
  EXPECT_TRUE(s.OnPacket(1, false, false, &rep));
  EXPECT_EQ(rep.kind, RcReply::kAck);
  EXPECT_EQ(rep.psn24, 1u);
  EXPECT_TRUE(s.OnPacket(2, false, false, &rep));
  // A duplicate of 0 is acknowledged with the last PSN taken.
  EXPECT_FALSE(s.OnPacket(0, false, false, &rep));
  EXPECT_EQ(rep.kind, RcReply::kAck);
  EXPECT_EQ(rep.psn24, 2u);
  EXPECT_EQ(s.counters().out_of_sequence, 2u);
  EXPECT_EQ(s.counters().duplicates, 1u);
  EXPECT_EQ(s.counters().naks, 1u);
  EXPECT_EQ(s.expected(), 3u);
  // A later gap is NAKed again.
  EXPECT_FALSE(s.OnPacket(5, false, false, &rep));
  EXPECT_EQ(rep.kind, RcReply::kNak);
  EXPECT_EQ(rep.psn24, 3u);
}

TEST(RcRequester, NakGoesBackN) {
  RcRequester r(Params(), 5000, 0);
  for (int i = 0; i < 5; i++) r.Next(0);
  EXPECT_FALSE(r.HasData());
  r.OnNak(2, 10);  // 0 and 1 arrived; resend from 2
  EXPECT_EQ(r.outstanding(), 3u);
  ASSERT_TRUE(r.HasData());
  const RcPacket k = r.Next(20);
  EXPECT_EQ(k.psn, 2u);
  EXPECT_TRUE(k.retransmit);
  EXPECT_EQ(r.counters().naks, 1u);
  EXPECT_EQ(r.counters().retransmits, 1u);
}

TEST(RcRequester, TimeoutResendsThenFailsAfterRetryCnt) {
  RcParams p = Params();
  p.timeout = 1;  // 8,192 ns
  p.retry_cnt = 2;
  RcRequester r(p, 2000, 0);
  r.Next(0);
  r.Next(0);
  EXPECT_EQ(r.NextEventNs(), 8192u);
  r.Advance(8191);
  EXPECT_FALSE(r.HasData());
  r.Advance(8192);  // first timeout: back to 0
  EXPECT_EQ(r.counters().timeouts, 1u);
  ASSERT_TRUE(r.HasData());
  EXPECT_EQ(r.Next(8192).psn, 0u);
  EXPECT_EQ(r.NextEventNs(), 8192u + 8192u);
  r.OnAck(0, 9000);  // progress: the retry count starts again
  EXPECT_EQ(r.NextEventNs(), 9000u + 8192u);
  for (uint64_t t = 9000 + 8192, i = 0; i < 3; i++, t += 8192) {
    r.Advance(t);
    EXPECT_EQ(r.failed(), i == 2) << i;
  }
  EXPECT_FALSE(r.HasData());
  EXPECT_EQ(r.NextEventNs(), kNever);
  EXPECT_FALSE(r.completed());
}

// timeout 0, as verbs reads it (and the HPCC simulator's NIC, which has no
// such timer): however long the ACKs take, nothing is sent again but on a
// NAK, and the QP never fails.
TEST(RcRequester, TimeoutZeroIsNone) {
  RcParams p = Params();
  p.timeout = 0;
  p.retry_cnt = 0;
  RcRequester r(p, 2000, 0);
  r.Next(0);
  r.Next(0);
  EXPECT_FALSE(r.HasData());
  EXPECT_EQ(r.NextEventNs(), kNever);
  for (uint64_t t : {uint64_t{4096}, uint64_t{1} << 40, uint64_t{1} << 62}) r.Advance(t);
  EXPECT_EQ(r.counters().timeouts, 0u);
  EXPECT_FALSE(r.failed());
  EXPECT_FALSE(r.HasData());
  r.OnNak(1, 5000);  // a NAK still goes back
  ASSERT_TRUE(r.HasData());
  EXPECT_EQ(r.Next(5000).psn, 1u);
  EXPECT_EQ(r.counters().naks, 1u);
  r.OnAck(1, 6000);
  EXPECT_TRUE(r.completed());
}

// The two ends through a lossy, reordering channel: every message completes,
// and what the responder takes is every PSN once, in order.
struct Channel {
  struct InFlight {
    uint64_t at;
    bool to_responder;
    RcPacket pkt;
    RcReply reply;
  };
  std::deque<InFlight> q;
};

void RunLossy(uint32_t ack_interval, uint64_t drop_every, bool swap_pairs) {
  RcParams p = Params(1000, ack_interval);
  p.timeout = 2;  // 16 us
  RcRequester req(p, 64 * 1000, 8000);
  RcResponder rsp(ack_interval);
  std::vector<uint64_t> taken;
  uint64_t now = 0, sent = 0;
  std::deque<Channel::InFlight> wire;
  for (int step = 0; step < 200000 && !req.completed(); step++) {
    now += 100;
    req.Advance(now);
    if (req.HasData()) {
      Channel::InFlight f{now + 1000, true, req.Next(now), {}};
      if (drop_every == 0 || ++sent % drop_every != 0) {
        if (swap_pairs && !wire.empty() && wire.back().to_responder && sent % 5 == 0)
          wire.insert(wire.end() - 1, f);  // overtakes the one before it
        else
          wire.push_back(f);
      }
    }
    while (!wire.empty() && wire.front().at <= now) {
      const Channel::InFlight f = wire.front();
      wire.pop_front();
      if (f.to_responder) {
        RcReply rep;
        if (rsp.OnPacket(f.pkt.psn & kPsnMask, f.pkt.last, f.pkt.last, &rep))
          taken.push_back(f.pkt.psn);
        if (rep.kind != RcReply::kNone) wire.push_back({now + 1000, false, {}, rep});
      } else if (f.reply.kind == RcReply::kAck) {
        req.OnAck(f.reply.psn24, now);
      } else {
        req.OnNak(f.reply.psn24, now);
      }
    }
  }
  ASSERT_TRUE(req.completed());
  EXPECT_FALSE(req.failed());
  EXPECT_EQ(req.counters().messages_done, 8u);
  ASSERT_EQ(taken.size(), 64u);
  for (uint64_t i = 0; i < taken.size(); i++) EXPECT_EQ(taken[i], i);
  EXPECT_EQ(rsp.counters().messages, 8u);
  if (drop_every != 0 || swap_pairs) {
    EXPECT_GT(req.counters().retransmits, 0u);
    EXPECT_GT(req.counters().naks, 0u);
  } else {
    EXPECT_EQ(req.counters().retransmits, 0u);
  }
}

TEST(RcTransport, LosslessChannel) { RunLossy(1, 0, false); }
TEST(RcTransport, LossRecoveredByNakAndTimeout) { RunLossy(1, 7, false); }
TEST(RcTransport, LossWithCoalescedAcks) { RunLossy(4, 5, false); }  // one timeout, too
TEST(RcTransport, Reordering) { RunLossy(2, 0, true); }

TEST(RcRequester, WirePsnWraps) {
  // PSNs past 2^24 still match their ACKs.
  RcRequester r(Params(256), 0, 256);  // unbounded, one packet a message
  for (uint64_t i = 0; i < (1u << 24) + 10; i++) {
    r.Next(i);
    if (i % 1000 == 999) r.OnAck(static_cast<uint32_t>(i & kPsnMask), i);
  }
  r.OnAck(static_cast<uint32_t>(((1u << 24) + 9) & kPsnMask), 1u << 25);
  EXPECT_EQ(r.outstanding(), 0u);
  EXPECT_EQ(r.counters().messages_done, (1u << 24) + 10);
  EXPECT_EQ(r.counters().stale, 0u);
}

}  // namespace
}  // namespace pfc::emulator
