// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/timely.h"

#include <algorithm>

namespace pfc::emulator {

namespace {
using T = TimelyParams;
using K = ParamKind;
// Keys: the simulator's config.txt names in lower case where it has one,
// else its RdmaHw attribute's name without the "Timely" prefix.
const Param<T> kTimelyParams[] = {
    {"rate_ai", K::kRate, 0, 0, "RATE_AI: the additive increase step", &T::rate_ai_bps},
    {"rate_hai", K::kRate, 0, 0, "RATE_HAI: the step after hai_thresh increases in a row",
     &T::rate_hai_bps},
    {"min_rate", K::kRate, 0, 0, "MIN_RATE: the floor of a decrease", &T::min_rate_bps},
    {"alpha", K::kReal, 0, 1, "TimelyAlpha (attribute): the RTT difference's EWMA gain", &T::alpha},
    {"beta", K::kReal, 0, 1, "TimelyBeta (attribute): the multiplicative decrease factor",
     &T::beta},
    {"t_low", K::kInterval, 0, 0, "TimelyTLow (attribute): below this RTT, increase", &T::t_low_ns},
    {"t_high", K::kInterval, 0, 0, "TimelyTHigh (attribute): above this RTT, decrease",
     &T::t_high_ns},
    {"min_rtt", K::kInterval, 0, 0, "TimelyMinRtt (attribute): the RTT gradient's unit",
     &T::min_rtt_ns},
    {"hai_thresh", K::kInt, 0, 1000,
     "increases in a row before RATE_HAI (a constant 5 in the simulator's UpdateRateTimely)",
     &T::hai_thresh},
    {"has_win", K::kBool, 0, 0, "HAS_WIN: the flow's bytes in flight bounded by a window",
     &T::has_win},
    {"var_win", K::kBool, 0, 0, "VAR_WIN: the window scaled by rate / line rate", &T::var_win},
};
}  // namespace

std::span<const Param<TimelyParams>> TimelyParamTable() { return kTimelyParams; }

TimelyRp::TimelyRp(const TimelyParams& p, uint64_t line_bps, uint64_t win_bytes)
    : p_(p), line_(line_bps), win_(win_bytes), rate_(line_bps) {}

void TimelyRp::OnAck(uint64_t now_ns, uint64_t ts_ns, uint64_t ack_seq, uint64_t snd_nxt) {
  ++c_.acks;
  // Within the window the last update opened: the simulator's fast react,
  // which does nothing for TIMELY.
  if (ack_seq <= last_update_seq_) {
    ++c_.in_window;
    return;
  }
  // The echoed time is this host's clock, so it is never ahead of now.
  const uint64_t rtt = now_ns >= ts_ns ? now_ns - ts_ns : 0;
  if (last_update_seq_ != 0) Update(rtt);  // the first ACK only records
  if (snd_nxt > last_update_seq_) {
    last_update_seq_ = snd_nxt;
    last_rtt_ = rtt;
  }
}

void TimelyRp::Update(uint64_t rtt) {
  const int64_t new_diff = static_cast<int64_t>(rtt) - static_cast<int64_t>(last_rtt_);
  const double diff = (1 - p_.alpha) * rtt_diff_ + p_.alpha * static_cast<double>(new_diff);
  const double gradient = diff / static_cast<double>(p_.min_rtt_ns);
  bool inc = false;
  double c = 0;  // the decrease's factor
  if (rtt < p_.t_low_ns) {
    inc = true;
    ++c_.below_t_low;
  } else if (rtt > p_.t_high_ns) {
    c = 1 - p_.beta * (1 - static_cast<double>(p_.t_high_ns) / static_cast<double>(rtt));
    ++c_.above_t_high;
  } else if (gradient <= 0) {
    inc = true;
  } else {
    c = std::max(0.0, 1 - p_.beta * gradient);
  }
  if (inc) {
    // The step is chosen on the count before this increase: with
    // hai_thresh 5, the 6th increase in a row is the first hyper one.
    if (inc_stage_ < p_.hai_thresh) {
      rate_ += p_.rate_ai_bps;
      ++c_.ai;
    } else {
      rate_ += p_.rate_hai_bps;
      ++c_.hai;
    }
    rate_ = std::min(rate_, line_);
    ++inc_stage_;
  } else {
    const auto cut = static_cast<uint64_t>(static_cast<double>(rate_) * c);  // rounded down
    rate_ = std::max(p_.min_rate_bps, cut);
    inc_stage_ = 0;
    ++c_.decreases;
  }
  rtt_diff_ = diff;
}

uint64_t TimelyRp::window_bytes() const {
  if (!p_.has_win || win_ == 0) return 0;
  if (!p_.var_win || line_ == 0) return win_;
  // The simulator's integer product, widened so a large window at a high
  // rate does not overflow (the same value wherever its 64 bits suffice).
  const auto w = static_cast<uint64_t>(static_cast<unsigned __int128>(win_) * rate_ / line_);
  return w != 0 ? w : 1;
}

}  // namespace pfc::emulator
