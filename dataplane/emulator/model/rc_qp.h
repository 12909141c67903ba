// SPDX-License-Identifier: BSD-3-Clause
// Reliable Connected (RC) transport of one emulated RDMA queue pair, as a
// RoCEv2 NIC runs it for RDMA WRITEs (InfiniBand Architecture Specification
// Vol. 1, ch. 9.7 "Reliable service"), and as the RDMA simulator of the HPCC
// work models it (go-back-N, an ACK interval):
//
//  * the requester splits its messages into packets of at most `mtu` payload
//    bytes, numbered by PSN (24 bits on the wire, 64 here); the last packet
//    of a message asks for an ACK (AckReq);
//  * the responder takes packets in PSN order only: the expected one is
//    accepted, and every `ack_interval` accepted packets (or at an AckReq)
//    it sends an ACK carrying the last PSN it took (ACKs are cumulative);
//    a packet beyond the expected one is dropped and answered, once until
//    the expected one arrives, by a NAK "PSN sequence error" carrying the
//    expected PSN (with `nak_interval`, again each that long while the gap
//    lasts, as the simulator does with its NACK interval of 500 us: a lost
//    go-back-N restart is then repaired without waiting for the timeout);
//    a duplicate (below it) is acknowledged again;
//  * on a NAK the requester goes back to the NAKed PSN and resends from
//    there (go-back-N); a message completes when its last packet is ACKed;
//  * with packets outstanding and no ACK progress for `timeout` (the
//    verbs attribute: 4.096 us x 2^timeout; 0, as in verbs, none: the
//    HPCC simulator's NIC has no such timer), the requester goes back to
//    the oldest unacknowledged PSN; after `retry_cnt` timeouts in a row
//    without progress the QP fails (IBV_WC_RETRY_EXC_ERR), and sends no
//    more.
// Not modelled: READs, SENDs and atomics, RNR NAKs, the responder's
// resources (credits are always "unlimited"), PSN wrap beyond 2^23 in
// flight.
//
// Pure code: time is an argument (ns). Each object is owned by the thread
// that runs its host.
#pragma once
#include <cstdint>

#include "dataplane/common/deadline.h"
#include "dataplane/emulator/model/params.h"

namespace pfc::emulator {

inline constexpr uint32_t kPsnMask = 0xffffff;

// Defaults: `mtu` and `ack_interval` as the simulator's mix/config.txt
// (PACKET_PAYLOAD_SIZE 1000, L2_ACK_INTERVAL 1); `timeout` 8 (1.05 ms:
// perftest's 14 is 67 ms, longer than most emulated runs) and `retry_cnt` 7
// as verbs users set them.
struct RcParams {
  uint32_t mtu = 1000;           // payload bytes per packet, 256..4096
  uint32_t ack_interval = 1;     // accepted packets per ACK, >= 1
  uint8_t timeout = 8;           // local ACK timeout: 4.096 us << timeout (1..31; 0: none)
  uint8_t retry_cnt = 7;         // timeouts without progress before failing, 0..7
  uint64_t nak_interval_ns = 0;  // a gap NAKed again after this; 0: once
  bool ack_high_prio = false;    // ACKs and NAKs in the CNPs' class, not the data's
  bool ack_pausable = true;      // the NIC holds ACKs and NAKs while their class is paused
  bool pace_catch_up = true;     // a CC-paced QP asked late may take back one slot of its rate
  uint64_t TimeoutNs() const { return 4096ull << timeout; }
};

// The fabric file's rc section (model/params.h): the keys, in order.
std::span<const Param<RcParams>> RcParamTable();

// One packet the requester sends.
struct RcPacket {
  uint64_t psn = 0;      // 64-bit (the wire carries psn & kPsnMask)
  uint32_t payload = 0;  // bytes
  uint32_t msg_len = 0;  // the message's length (the RETH's DMA length)
  uint64_t msg = 0;      // message index (RETH virtual address base)
  bool first = false, last = false;
  bool retransmit = false;
};

struct RcRequesterCounters {
  uint64_t packets = 0, retransmits = 0;   // retransmits: packets sent again
  uint64_t acks = 0, naks = 0, stale = 0;  // stale: ACK/NAK for nothing outstanding
  uint64_t timeouts = 0;
  uint64_t messages_done = 0;
};

class alignas(64) RcRequester {
 public:
  // `bytes` to send in messages of `message_bytes` (the last one shorter);
  // bytes == 0: messages of message_bytes without end.
  RcRequester(const RcParams& p, uint64_t bytes, uint64_t message_bytes);

  // A packet may go now (pacing, PFC and the flow's start aside).
  bool HasData() const { return !failed_ && nxt_ < total_pkts_; }
  // The packet at the send position; moves it on. Only when HasData().
  RcPacket Next(uint64_t now_ns);
  // A cumulative ACK for wire PSN psn24 / a NAK (sequence error) expecting
  // wire PSN psn24, arriving at now_ns.
  void OnAck(uint32_t psn24, uint64_t now_ns);
  void OnNak(uint32_t psn24, uint64_t now_ns);
  // The retransmission timer: runs a timeout due at or before now_ns.
  void Advance(uint64_t now_ns);
  // When the timer is due (kNever when nothing is outstanding).
  Deadline NextEventNs() const;

  bool completed() const { return total_pkts_ != kUnbounded && una_ == total_pkts_; }
  bool failed() const { return failed_; }
  uint64_t completed_ns() const { return done_ns_; }  // the last message's ACK
  uint64_t outstanding() const { return high_ - una_; }
  uint64_t una() const { return una_; }  // oldest unacknowledged PSN
  uint64_t nxt() const { return nxt_; }  // next PSN to send (after any go-back-N)
  uint64_t packets_total() const { return total_pkts_; }
  uint64_t bytes() const { return bytes_; }  // 0: unbounded
  uint64_t message_bytes() const { return msg_bytes_; }
  uint32_t mtu() const { return p_.mtu; }
  // The smallest ACK round trip seen (first transmissions only; kNever
  // before one): the base RTT of the flow's completion-time ideal.
  uint64_t min_rtt_ns() const { return min_rtt_; }
  const RcRequesterCounters& counters() const { return c_; }

 private:
  static constexpr uint64_t kUnbounded = ~uint64_t{0};
  static constexpr uint32_t kRttSlots = 64;
  // The 64-bit PSN a wire PSN stands for, at or after una_; false when it
  // is not within [una_, high_).
  bool Unwrap(uint32_t psn24, uint64_t* out) const;
  void Progress(uint64_t una, uint64_t now_ns);

  // The first line: what a host's scan of its flows reads (HasData,
  // completed, failed, una, nxt, NextEventNs with p_.timeout).
  uint64_t una_ = 0;   // oldest unacknowledged PSN
  uint64_t nxt_ = 0;   // next PSN to send
  uint64_t high_ = 0;  // one past the highest PSN ever sent
  uint64_t total_pkts_ = 0;
  uint64_t progress_ns_ = 0;  // last ACK progress (or first send)
  uint32_t retries_ = 0;
  bool failed_ = false;
  RcParams p_;
  uint64_t bytes_, msg_bytes_;
  uint64_t pkts_per_msg_;
  uint64_t done_ns_ = 0;
  uint64_t min_rtt_ = kNever;
  // Send times of recent first transmissions, by PSN modulo kRttSlots.
  uint64_t sent_psn_[kRttSlots];
  uint64_t sent_ns_[kRttSlots];
  // One message's last packet, timed apart from the slots: it asks for an
  // ACK of its own, so it is sampled even when more than kRttSlots packets
  // are outstanding (a congested flow would otherwise finish with no RTT,
  // and no completion-time ideal). kUnbounded: none out.
  uint64_t probe_psn_ = kUnbounded;
  uint64_t probe_ns_ = 0;
  RcRequesterCounters c_;
};

struct RcResponderCounters {
  uint64_t accepted = 0, duplicates = 0, out_of_sequence = 0;
  uint64_t acks = 0, naks = 0, messages = 0;
};

// What the responder answers a packet with.
struct RcReply {
  enum Kind : uint8_t { kNone, kAck, kNak } kind = kNone;
  uint32_t psn24 = 0;  // ACK: the last PSN taken; NAK: the expected PSN
  uint32_t msn = 0;    // messages completed (AETH MSN, 24 bits)
};

class RcResponder {
 public:
  explicit RcResponder(uint32_t ack_interval, uint64_t nak_interval_ns = 0)
      : ack_interval_(ack_interval ? ack_interval : 1), nak_interval_(nak_interval_ns) {}
  // A data packet with wire PSN psn24 arrived at now_ns: true when it is
  // accepted (in order); *reply is what to send back.
  bool OnPacket(uint32_t psn24, bool ack_req, bool last_of_msg, RcReply* reply,
                uint64_t now_ns = 0);
  uint64_t expected() const { return epsn_; }
  const RcResponderCounters& counters() const { return c_; }

 private:
  uint32_t ack_interval_;
  uint64_t nak_interval_;
  uint64_t epsn_ = 0;
  uint32_t unacked_ = 0;
  bool nak_sent_ = false;
  uint64_t nak_ns_ = 0;  // when the gap's last NAK went
  RcResponderCounters c_;
};

}  // namespace pfc::emulator
