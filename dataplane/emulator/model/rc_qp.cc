// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/rc_qp.h"

#include <algorithm>
#include <cstddef>

namespace pfc::emulator {

namespace {
using R = RcParams;
using K = ParamKind;
// Named as the verbs attributes (timeout, retry_cnt) and the simulator's
// config (PACKET_PAYLOAD_SIZE as mtu, L2_ACK_INTERVAL as ack_interval).
const Param<R> kRcParams[] = {
    {"mtu", K::kInt, 256, 4096, "payload bytes a packet (PACKET_PAYLOAD_SIZE)", &R::mtu},
    {"ack_interval", K::kInt, 1, 65536,
     "packets per ACK (L2_ACK_INTERVAL, in bytes in the simulator)", &R::ack_interval},
    {"timeout", K::kInt, 0, 31,
     "local ACK timeout exponent: 4.096 us x 2^timeout (8: 1.05 ms); 0: none, as in verbs (the "
     "simulator has none: hpcc_import writes 0)",
     &R::timeout},
    {"retry_cnt", K::kInt, 0, 7, "timeouts without progress before the QP fails", &R::retry_cnt},
    {"nak_interval", K::kTimeOrOff, 0, 0,
     "a gap NAKed again each this while it lasts, 0 once (the simulator's NACK interval: 500us)",
     &R::nak_interval_ns},
    {"ack_high_prio", K::kBool, 0, 1,
     "ACKs and NAKs sent in the CNPs' class (dcqcn.cnp_dscp, cnp_prio), ahead of data; false: "
     "in the flow's own (the HPCC simulator's ACK_HIGH_PRIO does not do this: its switches "
     "queue ACKs in the flow's group whatever it says, and hpcc_import leaves this off)",
     &R::ack_high_prio},
    {"ack_pausable", K::kBool, 0, 1,
     "the NIC holds ACKs and NAKs while a PFC pause of their class lasts; false: they go on, "
     "in their class (the HPCC simulator's NIC with ACK_HIGH_PRIO 1, whose ACK queue is its "
     "queue 0, which the data's pauses do not stop)",
     &R::ack_pausable},
    {"pace_catch_up", K::kBool, 0, 1,
     "a congestion-controlled QP asked late for its next packet (its link was busy) may take "
     "back up to one slot of its rate; false: the next packet waits a whole slot after this "
     "one left, as the HPCC simulator's RdmaHw::UpdateNextAvail (hpcc_import writes false)",
     &R::pace_catch_up},
};
}  // namespace

std::span<const Param<RcParams>> RcParamTable() { return kRcParams; }

RcRequester::RcRequester(const RcParams& p, uint64_t bytes, uint64_t message_bytes)
    : p_(p), bytes_(bytes), msg_bytes_(message_bytes != 0 ? message_bytes : bytes) {
  // What a host's scan of its flows reads, in the first line (rc_qp.h).
  static_assert(offsetof(RcRequester, p_) + offsetof(RcParams, timeout) < 64 &&
                offsetof(RcRequester, failed_) < 64);
  if (p_.mtu == 0) p_.mtu = 1000;
  if (msg_bytes_ == 0) msg_bytes_ = p_.mtu;  // unbounded without a size: one packet each
  pkts_per_msg_ = (msg_bytes_ + p_.mtu - 1) / p_.mtu;
  if (bytes_ == 0) {
    total_pkts_ = kUnbounded;
  } else {
    const uint64_t full = bytes_ / msg_bytes_, rest = bytes_ % msg_bytes_;
    total_pkts_ = full * pkts_per_msg_ + (rest + p_.mtu - 1) / p_.mtu;
  }
  std::fill(sent_psn_, sent_psn_ + kRttSlots, kUnbounded);
  std::fill(sent_ns_, sent_ns_ + kRttSlots, 0);
}

RcPacket RcRequester::Next(uint64_t now_ns) {
  RcPacket k;
  k.psn = nxt_++;
  k.msg = k.psn / pkts_per_msg_;
  const uint64_t idx = k.psn % pkts_per_msg_;
  k.msg_len = static_cast<uint32_t>(
      bytes_ == 0 ? msg_bytes_ : std::min(msg_bytes_, bytes_ - k.msg * msg_bytes_));
  const uint64_t pkts = (k.msg_len + p_.mtu - 1) / p_.mtu;
  k.first = idx == 0;
  k.last = idx + 1 == pkts;
  k.payload = k.last ? static_cast<uint32_t>(k.msg_len - (pkts - 1) * p_.mtu) : p_.mtu;
  ++c_.packets;
  const uint32_t slot = k.psn % kRttSlots;
  if (una_ == high_) progress_ns_ = now_ns;  // the timer starts with the first outstanding
  if (k.psn < high_) {
    k.retransmit = true;
    ++c_.retransmits;
    if (sent_psn_[slot] == k.psn) sent_psn_[slot] = kUnbounded;  // Karn: no RTT from it
    if (probe_psn_ == k.psn) probe_psn_ = kUnbounded;
  } else {
    high_ = k.psn + 1;
    sent_psn_[slot] = k.psn;
    sent_ns_[slot] = now_ns;
    if (k.last && probe_psn_ == kUnbounded) {
      probe_psn_ = k.psn;
      probe_ns_ = now_ns;
    }
  }
  return k;
}

bool RcRequester::Unwrap(uint32_t psn24, uint64_t* out) const {
  const uint64_t delta = (psn24 - (una_ & kPsnMask)) & kPsnMask;
  if (delta >= (kPsnMask + 1) / 2) return false;
  *out = una_ + delta;
  return *out < high_;
}

void RcRequester::Progress(uint64_t una, uint64_t now_ns) {
  if (una <= una_) return;
  una_ = una;
  retries_ = 0;
  progress_ns_ = now_ns;
  nxt_ = std::max(nxt_, una_);
  const uint64_t last = una - 1;
  const uint32_t slot = last % kRttSlots;
  if (sent_psn_[slot] == last && now_ns >= sent_ns_[slot]) {
    min_rtt_ = std::min(min_rtt_, now_ns - sent_ns_[slot]);
  }
  if (probe_psn_ != kUnbounded && probe_psn_ <= last) {
    // Its own ACK, or (when that was lost) a later one: only the first times it.
    if (probe_psn_ == last && now_ns >= probe_ns_)
      min_rtt_ = std::min(min_rtt_, now_ns - probe_ns_);
    probe_psn_ = kUnbounded;
  }
  c_.messages_done =
      una_ == total_pkts_ ? (bytes_ + msg_bytes_ - 1) / msg_bytes_ : una_ / pkts_per_msg_;
  if (una_ == total_pkts_) done_ns_ = now_ns;
}

void RcRequester::OnAck(uint32_t psn24, uint64_t now_ns) {
  Advance(now_ns);
  uint64_t v;
  if (!Unwrap(psn24, &v)) {
    ++c_.stale;
    return;
  }
  ++c_.acks;
  Progress(v + 1, now_ns);
}

void RcRequester::OnNak(uint32_t psn24, uint64_t now_ns) {
  Advance(now_ns);
  uint64_t v;
  if (failed_ || !Unwrap(psn24, &v)) {
    ++c_.stale;
    return;
  }
  ++c_.naks;
  Progress(v, now_ns);  // everything before the expected PSN arrived
  nxt_ = v;             // go back N
  progress_ns_ = now_ns;
}

void RcRequester::Advance(uint64_t now_ns) {
  if (failed_ || una_ == high_ || p_.timeout == 0 || now_ns < progress_ns_ + p_.TimeoutNs()) return;
  ++c_.timeouts;
  if (++retries_ > p_.retry_cnt) {
    failed_ = true;  // the QP's error state: no more sends
    return;
  }
  progress_ns_ = now_ns;
  nxt_ = una_;  // resend everything outstanding
}

Deadline RcRequester::NextEventNs() const {
  if (failed_ || una_ == high_ || p_.timeout == 0) return kNever;
  return progress_ns_ + p_.TimeoutNs();
}

bool RcResponder::OnPacket(uint32_t psn24, bool ack_req, bool last_of_msg, RcReply* reply,
                           uint64_t now_ns) {
  reply->kind = RcReply::kNone;
  const uint64_t delta = (psn24 - (epsn_ & kPsnMask)) & kPsnMask;
  bool accepted = false;
  if (delta == 0) {
    accepted = true;
    ++epsn_;
    ++c_.accepted;
    nak_sent_ = false;
    if (last_of_msg) ++c_.messages;
  } else if (delta < (kPsnMask + 1) / 2) {
    // Ahead of the expected PSN: something before it was lost.
    ++c_.out_of_sequence;
    if (nak_sent_ && (nak_interval_ == 0 || now_ns < nak_ns_ + nak_interval_)) return false;
    nak_sent_ = true;
    nak_ns_ = now_ns;
    ++c_.naks;
    reply->kind = RcReply::kNak;
    reply->psn24 = static_cast<uint32_t>(epsn_ & kPsnMask);
    reply->msn = static_cast<uint32_t>(c_.messages & kPsnMask);
    unacked_ = 0;
    return false;
  } else {
    if (epsn_ == 0) return false;  // nothing taken yet: not a duplicate of anything
    ++c_.duplicates;               // acknowledged again: its ACK may have been lost
  }
  if (++unacked_ < ack_interval_ && !ack_req) return accepted;
  unacked_ = 0;
  ++c_.acks;
  reply->kind = RcReply::kAck;
  reply->psn24 = static_cast<uint32_t>((epsn_ - 1) & kPsnMask);
  reply->msn = static_cast<uint32_t>(c_.messages & kPsnMask);
  return accepted;
}

}  // namespace pfc::emulator
