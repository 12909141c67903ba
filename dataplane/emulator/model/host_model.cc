// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/host_model.h"

#include <algorithm>
#include <cstring>

#include "dataplane/common/rng.h"
#include "dataplane/common/types.h"
#include "dataplane/emulator/model/link_model.h"
#include "dataplane/emulator/model/roce_frame.h"
#include "dataplane/net/be_bytes.h"
#include "dataplane/net/int_trailer.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/pause/pfc_frame.h"

namespace pfc::emulator {
namespace {

using net::be::Get16;
using net::be::Get32;
using net::be::Get64;
using net::be::Put16;
using net::be::Put32;
using net::be::Put64;

// The index kept for `id` in a sorted (id, index) list, or -1.
int64_t FindId(const std::vector<std::pair<uint32_t, uint32_t>>& v, uint32_t id) {
  const auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(id, uint32_t{0}));
  return it != v.end() && it->first == id ? int64_t{it->second} : -1;
}
// Keeps (id, index) unless id has one already (the first flow of an id wins,
// as a scan in order finds it).
void AddId(std::vector<std::pair<uint32_t, uint32_t>>* v, uint32_t id, uint32_t index) {
  const auto it = std::lower_bound(v->begin(), v->end(), std::make_pair(id, uint32_t{0}));
  if (it == v->end() || it->first != id) v->insert(it, {id, index});
}

}  // namespace

HostModel::HostModel(const HostParams& p) : p_(p) { storm_next_ns_ = p.storm_start_ns; }

void HostModel::AddFlow(const FlowSpec& f) {
  FlowTx t;
  t.spec = f;
  t.spec.frame_len = std::clamp<uint32_t>(f.frame_len, kFlowHdrLen, kMaxFlowFrameLen);
  t.next_ns = f.start_ns;
  if (t.spec.rate_bps != 0)
    t.gap_ns = WireTimeNs(t.spec.frame_len, t.spec.rate_bps, p_.wire_overhead, p_.wire_ns3);
  if (f.dcqcn) {
    DcqcnParams dp = p_.dcqcn;
    dp.line_bps = p_.link_bps;
    t.rp.emplace(dp);
  }
  if (f.rc) t.rc.emplace(p_.rc, f.bytes, f.message_bytes);
  if (f.rc && f.ack_cc != AckCcMode::kNone)
    t.cc.emplace(f.ack_cc, p_.ack_cc, p_.link_bps, f.base_rtt_ns, f.win_bytes, p_.rc.mtu,
                 Mix64(f.id));
  AddId(&tx_by_id_, f.id, static_cast<uint32_t>(tx_.size()));
  // Latest start first: the next to start is at the back (NextFrame
  // admits it to live_ once it starts).
  const auto i = static_cast<uint32_t>(tx_.size());
  tx_.push_back(t);
  pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), i,
                                   [this](uint32_t a, uint32_t b) {
                                     return tx_[a].spec.start_ns > tx_[b].spec.start_ns;
                                   }),
                  i);
}

void HostModel::AddResponder(uint32_t id, uint8_t dscp, uint8_t prio, AckCcMode sender_cc,
                             uint16_t ack_src_port) {
  FlowRx* r = RxOf(id);
  r->ack_port = ack_src_port;
  r->cnp = sender_cc == AckCcMode::kNone;
  r->rc.emplace(p_.rc.ack_interval, p_.rc.nak_interval_ns);
  r->ack_dscp = p_.rc.ack_high_prio ? p_.dcqcn.cnp_dscp : dscp;
  r->ack_prio = p_.rc.ack_high_prio ? p_.dcqcn.cnp_prio : prio;
  // No pause holds them: a class past the eight a PFC frame can name.
  if (!p_.rc.ack_pausable) r->ack_prio = kNoPauseClass;
}

FlowRx* HostModel::RxOf(uint32_t id) {
  if (const int64_t i = FindId(rx_by_id_, id); i >= 0) return &rx_[static_cast<size_t>(i)];
  AddId(&rx_by_id_, id, static_cast<uint32_t>(rx_.size()));
  rx_.push_back(FlowRx{});
  rx_.back().id = id;
  return &rx_.back();
}

void HostModel::StartFlow(uint32_t id, uint64_t now_ns) {
  for (FlowTx& f : tx_) {
    if (f.spec.id != id) continue;
    f.spec.start_ns = now_ns;
    f.spec.stop_ns = kNever;
    f.next_ns = now_ns;
  }
}

void HostModel::StopFlow(uint32_t id, uint64_t now_ns) {
  for (FlowTx& f : tx_) {
    if (f.spec.id == id) f.spec.stop_ns = now_ns;
  }
}

void HostModel::SetStorm(uint8_t prios, uint64_t now_ns) {
  p_.storm_prios = prios;
  p_.storm_start_ns = now_ns;
  p_.storm_stop_ns = kNever;
  storm_next_ns_ = now_ns;
}

uint64_t HostModel::StormInterval() const {
  if (p_.storm_interval_ns != 0) return p_.storm_interval_ns;
  const uint64_t t = pause::PauseTimer::QuantaToNs(p_.storm_quanta, p_.link_bps) / 2;
  return t == 0 ? 1 : t;
}

// Whether an ACK-driven flow's unacknowledged bytes fill its window (the
// simulator's IsWinBound: packets from the oldest unacknowledged to the
// send position, times the MTU).
static bool WindowFull(const FlowTx& f, uint32_t mtu) {
  if (!f.has_cc()) return false;
  const uint64_t w = f.cc->window_bytes();
  return w != 0 && (f.rc->nxt() - f.rc->una()) * mtu >= w;
}

// A flow that will never send or time out again: done, and an RC one with
// nothing outstanding (completed, or failed). It stays in tx_ (late ACKs,
// the results) but leaves HostModel::live_.
static bool Retired(const FlowTx& f) {
  return f.done() && (!f.has_rc() || f.rc->NextEventNs() == kNever);
}

bool HostModel::Eligible(const FlowTx& f, uint8_t paused, uint64_t now_ns) const {
  if (f.has_rc() && !f.rc->HasData()) return false;
  if (WindowFull(f, p_.rc.mtu)) return false;
  return !f.done() && now_ns >= f.spec.start_ns && now_ns < f.spec.stop_ns && now_ns >= f.next_ns &&
         !(paused >> f.spec.prio & 1);
}

uint32_t HostModel::NextFrame(uint64_t now_ns, uint8_t* buf, uint32_t cap, bool* control,
                              bool data_ok) {
  *control = false;
  if (p_.storm_prios != 0 && now_ns >= storm_next_ns_ && now_ns >= p_.storm_start_ns &&
      now_ns < p_.storm_stop_ns) {
    pause::PauseRequest req;
    req.class_enable = p_.storm_prios;
    for (int i = 0; i < kNumPrio; ++i) {
      if (p_.storm_prios >> i & 1) req.quanta[i] = p_.storm_quanta;
    }
    const size_t n = pause::BuildPfcFrame(p_.mac, req, buf, cap);
    if (n == 0) return 0;
    storm_next_ns_ = now_ns + StormInterval();
    ++c_.pfc_tx;
    *control = true;
    return static_cast<uint32_t>(n);
  }
  // Flows that started join live_, in index order (the round robin's).
  while (!pending_.empty() && tx_[pending_.back()].spec.start_ns <= now_ns) {
    const uint32_t i = pending_.back();
    pending_.pop_back();
    live_.insert(std::upper_bound(live_.begin(), live_.end(), i), i);
  }
  // Retransmission timeouts, only once one may be due: a visit of every
  // live flow each frame was a tenth of a busy host's work.
  if (now_ns >= timeout_check_ns_) {
    uint64_t next = kNever;
    for (const uint32_t i : live_) {
      FlowTx& f = tx_[i];
      if (!f.has_rc()) continue;
      f.rc->Advance(now_ns);
      next = std::min<uint64_t>(next, f.rc->NextEventNs());
    }
    timeout_check_ns_ = next;
  }
  // Pruned only after a flow got done (a failed QP waits for the next).
  if (maybe_retired_) {
    maybe_retired_ = false;
    live_.erase(
        std::remove_if(live_.begin(), live_.end(), [this](uint32_t i) { return Retired(tx_[i]); }),
        live_.end());
  }
  if (!data_ok) return 0;
  const uint8_t paused = PausedMask(now_ns);
  // CNPs, ACKs and NAKs go ahead of data, as a NIC sends them (unless
  // their class is paused).
  if (const uint32_t n = NextControl(paused, buf, cap)) return n;
  // Round robin over tx_ from rr_: the live flows in that order (a
  // retired one is never eligible).
  size_t j = static_cast<size_t>(
      std::lower_bound(live_.begin(), live_.end(), static_cast<uint32_t>(rr_)) - live_.begin());
  for (size_t k = 0; k < live_.size(); ++k, ++j) {
    if (j == live_.size()) j = 0;
    const uint32_t i = live_[j];
    FlowTx& f = tx_[i];
    if (!Eligible(f, paused, now_ns)) continue;
    rr_ = (i + 1) % tx_.size();
    return f.has_rc() ? BuildRc(f, now_ns, buf, cap) : BuildData(f, now_ns, buf, cap);
  }
  return 0;
}

uint32_t HostModel::BuildData(FlowTx& f, uint64_t now_ns, uint8_t* buf, uint32_t cap) {
  const uint32_t len = f.spec.frame_len;
  if (cap < len) return 0;
  std::memset(buf, 0, len);
  std::memcpy(buf, p_.gw_mac.data(), 6);
  std::memcpy(buf + 6, p_.mac.data(), 6);
  Put16(buf + 12, 0x0800);
  uint8_t* ip = buf + 14;
  ip[0] = 0x45;
  ip[1] = static_cast<uint8_t>(f.spec.dscp << 2 | (f.spec.ecn & 3));
  Put16(ip + 2, static_cast<uint16_t>(len - 14));
  Put16(ip + 4, ip_id_++);
  ip[8] = f.spec.ttl;
  ip[9] = 17;
  Put32(ip + 12, p_.ip);
  Put32(ip + 16, f.spec.dst_ip);
  const uint16_t csum = net::Ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &csum, 2);
  uint8_t* udp = ip + 20;
  Put16(udp, static_cast<uint16_t>(kFlowUdpPort + (f.spec.id & 0xff)));  // ECMP entropy
  Put16(udp + 2, kFlowUdpPort);
  Put16(udp + 4, static_cast<uint16_t>(len - 34));
  uint8_t* h = udp + 8;
  Put32(h, kFlowMagic);
  Put32(h + 4, f.spec.id);
  Put64(h + 8, f.seq++);
  Put64(h + 16, now_ns);

  Pace(f, len, now_ns);
  return len;
}

uint32_t HostModel::BuildRc(FlowTx& f, uint64_t now_ns, uint8_t* buf, uint32_t cap) {
  // Room for the QP's largest frame first: Next() commits the PSN.
  if (cap < RoceWriteLen(kBthOpWriteFirst, p_.rc.mtu) + (f.has_cc() ? net::kIntHopsBytes : 0))
    return 0;
  const RcPacket k = f.rc->Next(now_ns);
  // The one way a QP's timeout comes sooner: its first outstanding packet
  // starts the timer (an ACK or a NAK only moves it later).
  timeout_check_ns_ = std::min<uint64_t>(timeout_check_ns_, f.rc->NextEventNs());
  RoceWrite w;
  w.opcode = k.first ? (k.last ? kBthOpWriteOnly : kBthOpWriteFirst)
                     : (k.last ? kBthOpWriteLast : kBthOpWriteMiddle);
  w.ack_req = k.last;
  w.psn = static_cast<uint32_t>(k.psn & kPsnMask);
  w.payload = k.payload;
  w.va = k.msg << 32;  // message k's buffer
  w.rkey = f.spec.id;
  w.dma_len = k.msg_len;
  w.stamp_ns = now_ns;
  RoceAddr a = AddrTo(f.spec.dst_ip, f.spec.id, f.spec.dscp);
  if (f.spec.src_port != 0) a.src_port = f.spec.src_port;
  a.ecn = f.spec.ecn;
  a.ip_id = ip_id_++;
  uint32_t len = BuildWrite(a, w, buf, cap);
  // An ACK-driven control's trailer after the datagram (room for it was
  // checked with the largest frame): empty hop records, or the send time.
  if (f.cc && f.cc->trailer_kind() != 0 && len + net::kIntHopsBytes <= cap)
    len += net::WriteIntTrailer(buf + len, f.cc->trailer_kind(), f.cc->int_multi(), now_ns);
  Pace(f, len, now_ns);
  return len;
}

// From this host to `ip`, for flow `flow` (its QP; its UDP source port,
// ECMP entropy), in class `dscp`.
RoceAddr HostModel::AddrTo(uint32_t ip, uint32_t flow, uint8_t dscp) const {
  RoceAddr a;
  a.dst_mac = p_.gw_mac;
  a.src_mac = p_.mac;
  a.src_ip = p_.ip;
  a.dst_ip = ip;
  a.dscp = dscp;
  a.src_port = static_cast<uint16_t>(0xc000 | (flow & 0x3fff));
  a.dest_qp = QpOf(flow);
  return a;
}

void HostModel::Pace(FlowTx& f, uint32_t len, uint64_t now_ns) {
  ++f.tx_frames;
  f.tx_bytes += len;
  maybe_retired_ |= f.done();
  ++c_.tx_frames;
  c_.tx_bytes += len;
  // A rate-limited flow is spaced by its wire time at its rate, catching up
  // at most one slot when asked late (no burst after a pause); an unlimited
  // one is paced by the link (the glue only asks when the link accepts).
  // DCQCN, once a CNP came, limits the rate to its own.
  uint64_t rate_gap = f.rc && f.spec.rate_bps != 0
                          ? WireTimeNs(len, f.spec.rate_bps, p_.wire_overhead, p_.wire_ns3)
                          : f.gap_ns;
  if (f.cc) rate_gap = WireTimeNs(len, f.cc->pace_bps(), p_.wire_overhead, p_.wire_ns3);
  if (f.rp) {
    f.rp->Advance(now_ns);
    f.rp->OnSent(len, now_ns);  // the byte counter, when on
    if (f.rp->active()) {
      const uint64_t rate =
          f.spec.rate_bps != 0 ? std::min(f.spec.rate_bps, f.rp->rate_bps()) : f.rp->rate_bps();
      rate_gap = WireTimeNs(len, rate, p_.wire_overhead, p_.wire_ns3);
    }
  }
  if (rate_gap != 0) {
    const uint64_t gap = rate_gap;
    // A congestion-controlled QP's rate limiter, without catch-up: its
    // next packet a whole slot after this one left (the HPCC simulator's
    // NIC). Taking back late slots lets a busy NIC's flows exceed the rate
    // their control set (measured: docs/howto/rdma-simulator.md).
    const bool from_now = !p_.rc.pace_catch_up && (f.rp || f.has_cc());
    f.next_ns =
        from_now ? now_ns + gap : std::max(f.next_ns, now_ns > gap ? now_ns - gap : 0) + gap;
  } else {
    f.next_ns = now_ns;
  }
}

bool ReadFlowHeader(const uint8_t* frame, uint32_t len, FlowHeader* out) {
  if (len < kFlowHdrLen || Get16(frame + 12) != 0x0800) return false;
  const uint8_t* ip = frame + 14;
  const uint32_t ihl = (ip[0] & 0xfu) * 4;
  if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != 17 || 14 + ihl + 8 + 24 > len) return false;
  const uint8_t* udp = ip + ihl;
  if (Get16(udp + 2) != kFlowUdpPort) return false;
  const uint8_t* h = udp + 8;
  if (Get32(h) != kFlowMagic) return false;
  out->flow = Get32(h + 4);
  out->seq = Get64(h + 8);
  out->sent_ns = Get64(h + 16);
  out->dscp = ip[1] >> 2;
  out->src_ip = Get32(ip + 12);
  out->ecn = ip[1] & 3;
  out->ttl = ip[8];
  return true;
}

const FlowRx* HostModel::rx_flow(uint32_t id) const {
  const int64_t i = FindId(rx_by_id_, id);
  return i >= 0 ? &rx_[static_cast<size_t>(i)] : nullptr;
}

void HostModel::Receive(const uint8_t* frame, uint32_t len, uint64_t now_ns) {
  ++c_.rx_frames;
  if (len >= 14 && Get16(frame + 12) == pause::kMacCtlEtherType) {
    pause::PauseRequest req;
    if (pause::ParseMacControl(frame, len, &req, &p_.mac) == pause::MacCtlKind::kMalformed) {
      ++c_.rx_malformed;
      return;
    }
    ++c_.pfc_rx;
    if (p_.ignore_pause) {
      ++c_.pfc_ignored;
      return;
    }
    pause_.OnFrame(req, now_ns, p_.link_bps);
    return;
  }
  if (ReceiveRoce(frame, len, now_ns)) return;
  FlowHeader h;
  if (!ReadFlowHeader(frame, len, &h)) {
    ++c_.rx_other;
    return;
  }
  FlowRx* r = RxOf(h.flow);
  if (h.ecn == net::kEcnCe) OnCe(*r, h.src_ip, now_ns);
  if (now_ns >= h.sent_ns) {
    r->sum_delay_ns += now_ns - h.sent_ns;
    r->min_delay_ns = std::min(r->min_delay_ns, now_ns - h.sent_ns);
  }
  if (h.seq < r->next_seq) {
    ++r->reordered;
  } else {
    r->lost += h.seq - r->next_seq;
    r->next_seq = h.seq + 1;
  }
  CountRx(*r, len, now_ns);
}

void HostModel::CountRx(FlowRx& r, uint32_t len, uint64_t now_ns) {
  ++r.frames;
  r.bytes += len;
  r.last_ns = now_ns;
  if (now_ns < p_.series_start_ns) return;  // before the time series
  const uint64_t bin = (now_ns - p_.series_start_ns) / p_.bin_ns;
  if (r.bin_bytes.empty()) {
    r.bin0 = bin;
  } else if (bin < r.bin0) {  // not on either clock (a host's time never goes back)
    r.bin_bytes.insert(r.bin_bytes.begin(), static_cast<size_t>(r.bin0 - bin), 0);
    r.bin0 = bin;
  }
  const size_t k = static_cast<size_t>(bin - r.bin0);
  if (k >= r.bin_bytes.size()) r.bin_bytes.resize(k + 1, 0);
  r.bin_bytes[k] += len;
}

// A CE-marked frame of flow r from src_ip: a CNP back, at most one per
// interval (the notification point).
void HostModel::OnCe(FlowRx& r, uint32_t src_ip, uint64_t now_ns) {
  ++r.ce;
  if (!r.cnp) return;  // its ACKs carry BECN instead
  if (!r.np) r.np.emplace(p_.dcqcn.cnp_interval_ns);
  if (!r.np->OnCe(now_ns)) return;
  ctl_q_.push_back({src_ip, r.id, p_.dcqcn.cnp_dscp, p_.dcqcn.cnp_prio, true, 0, 0, 0});
  ctl_q_.back().src_port = r.ack_port;
  ++r.cnp_tx;
}

// The first control frame whose class is not paused, or 0.
uint32_t HostModel::NextControl(uint8_t paused, uint8_t* buf, uint32_t cap) {
  for (auto it = ctl_q_.begin(); it != ctl_q_.end(); ++it) {
    if (paused >> it->prio & 1) continue;
    const PendingCtl c = *it;
    RoceAddr a = AddrTo(c.ip, c.flow, c.dscp);
    if (c.src_port != 0) a.src_port = c.src_port;
    uint32_t len;
    if (c.cnp) {
      if (cap < kCnpFrameLen) return 0;
      len = BuildCnp(a, buf);
      ++c_.cnp_tx;
    } else {
      if (cap < kAckFrameLen + c.echo_len) return 0;
      a.ip_id = ip_id_++;
      a.becn = c.becn;
      len = BuildAck(a, c.syndrome, c.psn, c.msn, buf);
      std::memcpy(buf + len, c.echo.data(), c.echo_len);
      len += c.echo_len;
      ++(c.syndrome == kAethAck ? c_.ack_tx : c_.nak_tx);
    }
    if (it == ctl_q_.begin())
      ctl_q_.pop_front();  // the usual case, without erase()'s bookkeeping
    else
      ctl_q_.erase(it);
    ++c_.tx_frames;
    c_.tx_bytes += len;
    return len;
  }
  return 0;
}

// A RoCEv2 frame: a CNP for one of our DCQCN flows cuts its rate; an
// ACK/NAK goes to the flow's requester, an RDMA WRITE to its responder.
// True when the frame was RoCEv2 (handled here, whatever it was).
bool HostModel::ReceiveRoce(const uint8_t* frame, uint32_t len, uint64_t now_ns) {
  RoceHeader rh;
  if (!ParseRoce(frame, len, &rh)) return false;
  if (!rh.complete || !rh.icrc_ok) {
    ++c_.rx_malformed;
    return true;
  }
  if (IsWrite(rh.opcode)) {
    ReceiveWrite(frame, len, rh, now_ns);
    return true;
  }
  if (rh.opcode != kBthOpCnp && rh.opcode != kBthOpAck) {
    ++c_.rx_malformed;  // an opcode no emulated NIC sends
    return true;
  }
  if (const int64_t i = FindId(tx_by_id_, rh.dest_qp - kQpBase); i >= 0) {
    FlowTx& f = tx_[static_cast<size_t>(i)];
    if (rh.opcode == kBthOpCnp) {
      ++f.cnp_rx;
      ++c_.cnp_rx;
      if (f.rp) f.rp->OnCnp(now_ns);
    } else if (!f.has_rc()) {
      ++c_.qp_unknown;
    } else if (rh.syndrome >> 5 == 0) {
      ++c_.ack_rx;
      f.rc->OnAck(rh.psn, now_ns);
      maybe_retired_ |= f.rc->completed();
      AckToCc(f, frame, len, rh, now_ns);
    } else if (rh.syndrome == kAethNakPsnSeq) {
      ++c_.nak_rx;
      f.rc->OnNak(rh.psn, now_ns);
      AckToCc(f, frame, len, rh, now_ns);  // the simulator's controls see NAKs too
    } else {
      ++c_.rx_malformed;  // RNR NAK and the other NAKs: not sent by the emulated NICs
    }
    return true;
  }
  ++(rh.opcode == kBthOpCnp ? c_.cnp_unknown : c_.qp_unknown);
  return true;
}

// An ACK or NAK of flow f, after its requester took it: to its ACK-driven
// control, with the bytes acknowledged and sent (PSNs times the MTU) and
// the echo it carries.
void HostModel::AckToCc(FlowTx& f, const uint8_t* frame, uint32_t len, const RoceHeader& rh,
                        uint64_t now_ns) {
  if (!f.has_cc()) return;
  const uint8_t* t = net::FindIntTrailer(const_cast<uint8_t*>(frame), len, rh.datagram_end);
  const uint64_t mtu = p_.rc.mtu;
  f.cc->OnAck(now_ns, f.rc->una() * mtu, f.rc->nxt() * mtu, t, rh.becn);
}

// An RDMA WRITE packet for one of our responders.
void HostModel::ReceiveWrite(const uint8_t* frame, uint32_t len, const RoceHeader& rh,
                             uint64_t now_ns) {
  FlowRx* r = nullptr;
  if (const int64_t i = FindId(rx_by_id_, rh.dest_qp - kQpBase);
      i >= 0 && rx_[static_cast<size_t>(i)].rc)
    r = &rx_[static_cast<size_t>(i)];
  if (r == nullptr) {
    ++c_.qp_unknown;
    return;
  }
  if (rh.ecn == net::kEcnCe) OnCe(*r, rh.src_ip, now_ns);
  if (rh.has_stamp && now_ns >= rh.stamp_ns) {
    r->min_delay_ns = std::min(r->min_delay_ns, now_ns - rh.stamp_ns);
  }
  RcReply rep;
  if (r->rc->OnPacket(rh.psn, rh.ack_req, IsLastOrOnly(rh.opcode), &rep, now_ns)) {
    if (rh.has_stamp && now_ns >= rh.stamp_ns) r->sum_delay_ns += now_ns - rh.stamp_ns;
    CountRx(*r, len, now_ns);
  }
  if (rep.kind == RcReply::kNone) return;
  PendingCtl c{rh.src_ip,   r->id,  r->ack_dscp,
               r->ack_prio, false,  rep.kind == RcReply::kAck ? kAethAck : kAethNakPsnSeq,
               rep.psn24,   rep.msn};
  c.src_port = r->ack_port;
  // The ACK of a CE-marked packet says so (BECN); the packet's INT trailer
  // goes back in it as an echo, which no switch writes into.
  c.becn = rh.ecn == net::kEcnCe;
  if (const uint8_t* t = net::FindIntTrailer(const_cast<uint8_t*>(frame), len, rh.datagram_end)) {
    const uint8_t echo = net::IntEchoKind(net::IntKind(t));
    if (echo != 0) {
      c.echo_len = static_cast<uint8_t>(net::IntTrailerBytes(echo));
      std::memcpy(c.echo.data(), t, c.echo_len);
      c.echo[2] = echo;
    }
  }
  ctl_q_.push_back(c);
}

Deadline HostModel::NextEventNs(uint64_t now_ns) const {
  uint64_t t = kNever;
  if (p_.storm_prios != 0 && now_ns < p_.storm_stop_ns) {
    t = std::max(storm_next_ns_, p_.storm_start_ns);
  }
  const uint8_t paused = PausedMask(now_ns);
  for (const PendingCtl& c : ctl_q_) {
    const bool held = paused >> c.prio & 1;
    t = std::min(t, held ? std::max(now_ns, pause_.PausedUntil(c.prio)) : now_ns);
  }
  auto lower = [&](const FlowTx& f) {
    if (f.has_rc()) {
      t = std::min(t, std::max(f.rc->NextEventNs(), now_ns));  // its timeout
      if (!f.rc->HasData()) return;
    }
    if (f.done() || f.spec.stop_ns <= now_ns || WindowFull(f, p_.rc.mtu))
      return;  // an ACK wakes it
    uint64_t ready = std::max(f.next_ns, f.spec.start_ns);
    if (paused >> f.spec.prio & 1) ready = std::max(ready, pause_.PausedUntil(f.spec.prio));
    t = std::min(t, std::max(ready, now_ns));
  };
  for (const uint32_t i : live_) lower(tx_[i]);
  // A flow yet to start is due no sooner than its start: the first few
  // of pending_ decide.
  for (auto it = pending_.rbegin(); it != pending_.rend() && tx_[*it].spec.start_ns < t; ++it)
    lower(tx_[*it]);
  return t;
}

}  // namespace pfc::emulator
