// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/ack_cc.h"

#include "dataplane/net/int_trailer.h"

namespace pfc::emulator {

const char* AckCcName(AckCcMode m) {
  switch (m) {
    case AckCcMode::kHpcc:
      return "hpcc";
    case AckCcMode::kTimely:
      return "timely";
    case AckCcMode::kDctcp:
      return "dctcp";
    case AckCcMode::kHpccPint:
      return "hpcc_pint";
    case AckCcMode::kNone:
      break;
  }
  return "none";
}

AckCc::AckCc(AckCcMode mode, const AckCcParams& p, uint64_t line_bps, uint64_t base_rtt_ns,
             uint64_t win_bytes, uint32_t mtu, uint64_t seed)
    : mode_(mode), line_bps_(line_bps) {
  switch (mode) {
    case AckCcMode::kHpcc: {
      HpccParams hp = p.hpcc;
      hp.line_bps = line_bps;
      multi_ = hp.int_multi;
      rp_.emplace<HpccRp>(hp, base_rtt_ns, win_bytes);
      break;
    }
    case AckCcMode::kHpccPint: {
      HpccParams hp = p.hpcc;
      hp.line_bps = line_bps;
      rp_.emplace<HpccPintRp>(hp, win_bytes, seed);
      break;
    }
    case AckCcMode::kTimely:
      rp_.emplace<TimelyRp>(p.timely, line_bps, win_bytes);
      break;
    case AckCcMode::kDctcp:
      rp_.emplace<DctcpRp>(p.dctcp, line_bps, win_bytes, mtu);
      break;
    case AckCcMode::kNone:
      break;
  }
}

uint8_t AckCc::trailer_kind() const {
  switch (mode_) {
    case AckCcMode::kHpcc:
      return net::kIntHops;
    case AckCcMode::kHpccPint:
      return net::kIntPint;
    case AckCcMode::kTimely:
      return net::kIntTs;
    default:
      return 0;
  }
}
uint32_t AckCc::int_multi() const { return multi_; }

void AckCc::OnAck(uint64_t now_ns, uint64_t acked, uint64_t sent, const uint8_t* trailer,
                  bool becn) {
  if (auto* h = std::get_if<HpccRp>(&rp_)) {
    if (trailer == nullptr || net::IntKind(trailer) != net::kIntHopsEcho) {
      ++no_echo_;
      return;
    }
    net::IntHop hops[net::kIntMaxHops];
    const int held = net::IntHopsHeld(trailer);
    for (int i = 0; i < held; i++) hops[i] = net::IntHopAt(trailer, i);
    h->OnAck(now_ns, acked, sent, hops, net::IntHopCount(trailer), net::IntMulti(trailer));
  } else if (auto* pr = std::get_if<HpccPintRp>(&rp_)) {
    if (trailer == nullptr || net::IntKind(trailer) != net::kIntPintEcho) {
      ++no_echo_;
      return;
    }
    pr->OnAck(now_ns, acked, sent, net::IntPintPower(trailer));
  } else if (auto* t = std::get_if<TimelyRp>(&rp_)) {
    if (trailer == nullptr || net::IntKind(trailer) != net::kIntTsEcho) {
      ++no_echo_;
      return;
    }
    t->OnAck(now_ns, net::IntTimestamp(trailer), acked, sent);
  } else if (auto* d = std::get_if<DctcpRp>(&rp_)) {
    d->OnAck(now_ns, acked, sent, becn);
  }
}

uint64_t AckCc::pace_bps() const {
  if (const auto* h = std::get_if<HpccRp>(&rp_)) return h->pace_bps();
  if (const auto* h = std::get_if<HpccPintRp>(&rp_)) return h->pace_bps();
  if (const auto* t = std::get_if<TimelyRp>(&rp_)) return t->rate_bps();
  if (const auto* d = std::get_if<DctcpRp>(&rp_)) return d->rate_bps();
  return line_bps_;
}

uint64_t AckCc::window_bytes() const {
  if (const auto* h = std::get_if<HpccRp>(&rp_)) return h->window_bytes();
  if (const auto* h = std::get_if<HpccPintRp>(&rp_)) return h->window_bytes();
  if (const auto* t = std::get_if<TimelyRp>(&rp_)) return t->window_bytes();
  if (const auto* d = std::get_if<DctcpRp>(&rp_)) return d->window_bytes();
  return 0;
}

}  // namespace pfc::emulator
