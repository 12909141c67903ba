// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/hpcc_pint.h"

namespace pfc::emulator {

HpccPintRp::HpccPintRp(const HpccParams& p, uint64_t win_bytes, uint64_t seed)
    : p_(p),
      codec_(p.pint_log_base),
      win_(win_bytes),
      smpl_thresh_(static_cast<uint32_t>(65536 * p.pint_prob)),
      rng_(seed),
      rate_(p.line_bps),
      ref_(p.line_bps) {}

uint64_t HpccPintRp::window_bytes() const {
  if (!p_.has_win) return 0;
  if (!p_.var_win || p_.line_bps == 0) return win_;
  const auto w = static_cast<uint64_t>(static_cast<unsigned __int128>(win_) * rate_ / p_.line_bps);
  return w == 0 ? 1 : w;  // never shut, as HPCC's
}

void HpccPintRp::OnAck(uint64_t, uint64_t acked_seq, uint64_t snd_nxt, uint16_t power) {
  ++c_.acks;
  // (At PINT_PROB 1 the threshold is 65536: no draw can reach it, and the
  // simulator's draws are made all the same.)
  if ((rng_.Next32() & 0xffff) >= smpl_thresh_) {
    ++c_.sampled_out;
    return;
  }
  const bool fast = !(acked_seq > last_update_seq_);
  if (last_update_seq_ == 0) {  // the first RTT: only the mark
    ++c_.first;
    last_update_seq_ = snd_nxt;
    return;
  }
  last_u_ = codec_.Decode(power);
  const double c = last_u_ / p_.u_target;
  uint64_t rate;
  uint32_t stage;
  if (c >= 1 || stage_ >= p_.mi_thresh) {
    // ns-3's DataRate / double truncates to whole bits/s before RATE_AI;
    // a quotient past the line ends at the line (the clamp below).
    const double q = static_cast<double>(ref_) / c;
    rate = q < static_cast<double>(p_.line_bps) ? static_cast<uint64_t>(q) + p_.rate_ai_bps
                                                : p_.line_bps;
    stage = 0;
  } else {
    rate = ref_ + p_.rate_ai_bps;
    stage = stage_ + 1;
  }
  if (rate < p_.min_rate_bps) rate = p_.min_rate_bps;
  if (rate > p_.line_bps) rate = p_.line_bps;
  rate_ = rate;
  if (fast) {
    ++c_.fast_reacts;
    return;
  }
  ++c_.updates;
  ++(stage == 0 ? c_.mi : c_.ai);
  ref_ = rate;
  stage_ = stage;
  if (snd_nxt > last_update_seq_) last_update_seq_ = snd_nxt;
}

}  // namespace pfc::emulator
