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

uint64_t HpccPintRp::window_bytes() const { return HpccWindow(p_, win_, rate_); }

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
  // HPCC's step from the reference at the path's utilisation.
  const HpccStep step = HpccNextRate(p_, ref_, last_u_, stage_);
  rate_ = step.rate;
  if (fast) {
    ++c_.fast_reacts;
    return;
  }
  ++c_.updates;
  ++(step.mi ? c_.mi : c_.ai);
  ref_ = step.rate;
  stage_ = step.stage;
  if (snd_nxt > last_update_seq_) last_update_seq_ = snd_nxt;
}

}  // namespace pfc::emulator
