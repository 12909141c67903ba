// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/dctcp.h"

#include <algorithm>

namespace pfc::emulator {

namespace {
using D = DctcpParams;
using K = ParamKind;
// Keys: the simulator's config.txt names in lower case (rate_ai for its
// DCTCP_RATE_AI: the section says whose increase it is).
const Param<D> kDctcpParams[] = {
    {"rate_ai", K::kRate, 0, 0, "DCTCP_RATE_AI: the additive increase step, once a window",
     &D::rate_ai_bps},
    {"min_rate", K::kRate, 0, 0, "MIN_RATE: the floor of a cut", &D::min_rate_bps},
    {"ewma_gain", K::kReal, 0, 1, "EWMA_GAIN: g, alpha's gain (1/16)", &D::ewma_gain},
    {"has_win", K::kBool, 0, 0, "HAS_WIN: the flow's bytes in flight bounded by a window",
     &D::has_win},
    {"var_win", K::kBool, 0, 0, "VAR_WIN: the window scaled by rate / line rate", &D::var_win},
};
}  // namespace

std::span<const Param<DctcpParams>> DctcpParamTable() { return kDctcpParams; }

DctcpRp::DctcpRp(const DctcpParams& p, uint64_t line_bps, uint64_t win_bytes, uint32_t mtu)
    : p_(p), line_(line_bps), win_(win_bytes), mtu_(mtu != 0 ? mtu : 1000), rate_(line_bps) {}

void DctcpRp::OnAck(uint64_t /*now_ns*/, uint64_t ack_seq, uint64_t snd_nxt, bool ece) {
  ++c_.acks;
  if (ece) {
    ++c_.ece;
    ++flagged_;
  }
  // An ACK beyond the window's end closes it (the first opens the first).
  const bool new_window = ack_seq > last_update_seq_;
  if (new_window) {
    if (last_update_seq_ == 0) {
      expected_ = snd_nxt / mtu_ + 1;  // the count is not reset: see the header
    } else {
      const double frac =
          std::min(1.0, static_cast<double>(flagged_) / static_cast<double>(expected_));
      alpha_ = (1 - p_.ewma_gain) * alpha_ + p_.ewma_gain * frac;
      flagged_ = 0;
      expected_ = (snd_nxt >= ack_seq ? snd_nxt - ack_seq : 0) / mtu_ + 1;
      ++c_.alpha_updates;
    }
    last_update_seq_ = snd_nxt;
  }
  if (cwr_ && ack_seq > high_seq_) cwr_ = false;
  if (ece && !cwr_) {
    const auto cut = static_cast<uint64_t>(static_cast<double>(rate_) * (1 - alpha_ / 2));
    rate_ = std::max(p_.min_rate_bps, cut);  // rounded down, as ns-3's DataRate * double
    cwr_ = true;
    high_seq_ = snd_nxt;
    ++c_.cuts;
  }
  if (!cwr_ && new_window) {
    rate_ = std::min(line_, rate_ + p_.rate_ai_bps);
    ++c_.ai;
  }
}

uint64_t DctcpRp::window_bytes() const {
  if (!p_.has_win || win_ == 0) return 0;
  if (!p_.var_win || line_ == 0) return win_;
  // The simulator's integer product, widened so a large window at a high
  // rate does not overflow (the same value wherever its 64 bits suffice).
  const auto w = static_cast<uint64_t>(static_cast<unsigned __int128>(win_) * rate_ / line_);
  return w != 0 ? w : 1;
}

}  // namespace pfc::emulator
