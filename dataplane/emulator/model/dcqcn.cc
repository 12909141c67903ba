// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/dcqcn.h"

#include <algorithm>

namespace pfc::emulator {

namespace {
using D = DcqcnParams;
using K = ParamKind;
// Keys are the simulator's config.txt names in lower case.
const Param<D> kDcqcnParams[] = {
    {"rate_ai", K::kRate, 0, 0, "RATE_AI: the additive increase step", &D::rate_ai_bps},
    {"rate_hai", K::kRate, 0, 0, "RATE_HAI: the hyper increase step", &D::rate_hai_bps},
    {"min_rate", K::kRate, 0, 0, "MIN_RATE: the floor of a cut", &D::min_rate_bps},
    {"ewma_gain", K::kReal, 0, 1, "EWMA_GAIN: g, alpha's gain (1/256)", &D::ewma_gain},
    {"alpha_resume_interval", K::kInterval, 0, 0,
     "ALPHA_RESUME_INTERVAL: alpha decays each this without a CNP", &D::alpha_resume_interval_ns},
    {"rate_decrease_interval", K::kInterval, 0, 0,
     "RATE_DECREASE_INTERVAL: at most one cut each this", &D::rate_decrease_interval_ns},
    {"rp_timer", K::kInterval, 0, 0, "RP_TIMER: a rate increase event each this", &D::rp_timer_ns},
    {"fast_recovery_times", K::kInt, 0, 1000,
     "FAST_RECOVERY_TIMES: increase events of fast recovery", &D::fast_recovery_times},
    {"clamp_target_rate", K::kBool, 0, 0,
     "CLAMP_TARGET_RATE: the target rate drops to the rate at every cut", &D::clamp_target_rate},
    {"rate_on_first_cnp", K::kReal, 0.001, 1,
     "the rate on a flow's first CNP, a fraction of the line (its model's RateOnFirstCnp)",
     &D::rate_on_first_cnp},
    {"byte_counter", K::kBytes, 0, 1099511627776.0,
     "an increase event each this many bytes sent, 0 off (the DCQCN paper's B, 10 MB there; "
     "none in the simulator)",
     &D::byte_counter_bytes},
    {"cnp_interval", K::kInterval, 0, 0,
     "at most one CNP per flow per this (none in the simulator, which flags every ACK of a "
     "marked packet)",
     &D::cnp_interval_ns},
    {"cnp_dscp", K::kInt, 0, 63, "the CNPs' DSCP", &D::cnp_dscp},
    {"cnp_prio", K::kInt, 0, 7, "the CNPs' priority", &D::cnp_prio},
};
}  // namespace

std::span<const Param<DcqcnParams>> DcqcnParamTable() { return kDcqcnParams; }

DcqcnRp::DcqcnRp(const DcqcnParams& p) : p_(p), rate_(p.line_bps), target_(p.line_bps) {}

void DcqcnRp::OnCnp(uint64_t now_ns) {
  Advance(now_ns);
  ++c_.cnps;
  alpha_cnp_ = true;
  decrease_cnp_ = true;
  if (active_) return;
  // The first CNP: alpha starts at 1 (this CNP is not counted again in the
  // first update), the timers start, and the rate may drop at once.
  active_ = true;
  alpha_ = 1.0;
  alpha_cnp_ = false;
  Schedule(&alpha_t_, now_ns + p_.alpha_resume_interval_ns);
  Schedule(&decrease_t_, now_ns + p_.rate_decrease_interval_ns + 1);
  rate_ = target_ = static_cast<uint64_t>(p_.rate_on_first_cnp * static_cast<double>(rate_));
}

void DcqcnRp::Advance(uint64_t now_ns) {
  auto before = [](const Timer& a, const Timer& b) {
    return a.at < b.at || (a.at == b.at && a.seq < b.seq);
  };
  while (active_) {
    // The earliest due timer, ties in the order they were scheduled.
    Timer* next = &alpha_t_;
    if (before(decrease_t_, *next)) next = &decrease_t_;
    if (before(increase_t_, *next)) next = &increase_t_;
    const Deadline t = next->at;
    if (t > now_ns) return;
    if (next == &alpha_t_) {
      AlphaUpdate();
      Schedule(&alpha_t_, t + p_.alpha_resume_interval_ns);
    } else if (next == &decrease_t_) {
      Schedule(&decrease_t_, t + p_.rate_decrease_interval_ns);
      if (decrease_cnp_) {
        DecreaseCheck();
        Schedule(&increase_t_, t + p_.rp_timer_ns);  // the increase stage restarts
      }
    } else {
      Schedule(&increase_t_, t + p_.rp_timer_ns);
      Increase();
      ++stage_;
    }
  }
}

void DcqcnRp::OnSent(uint32_t bytes, uint64_t now_ns) {
  if (!active_ || p_.byte_counter_bytes == 0) return;
  Advance(now_ns);
  for (sent_ += bytes; sent_ >= p_.byte_counter_bytes; sent_ -= p_.byte_counter_bytes) {
    ++c_.byte_counter;
    Increase();
    ++bc_stage_;
  }
}

Deadline DcqcnRp::NextEventNs() const {
  if (!active_) return kNever;
  return Earliest(alpha_t_.at, Earliest(decrease_t_.at, increase_t_.at));
}

void DcqcnRp::AlphaUpdate() {
  alpha_ = (1 - p_.ewma_gain) * alpha_ + (alpha_cnp_ ? p_.ewma_gain : 0.0);
  alpha_cnp_ = false;
}

void DcqcnRp::DecreaseCheck() {
  if (p_.clamp_target_rate || stage_ + bc_stage_ != 0) target_ = rate_;
  const auto cut = static_cast<uint64_t>(static_cast<double>(rate_) * (1 - alpha_ / 2));
  rate_ = std::max(p_.min_rate_bps, cut);
  stage_ = bc_stage_ = 0;
  sent_ = 0;
  decrease_cnp_ = false;
  ++c_.cuts;
}

void DcqcnRp::Increase() {
  const uint32_t f = p_.fast_recovery_times;
  if (p_.byte_counter_bytes != 0) {  // the paper's rule on both counts
    const uint32_t hi = std::max(stage_, bc_stage_), lo = std::min(stage_, bc_stage_);
    if (hi < f) {
      ++c_.recoveries;
    } else if (lo > f) {
      target_ = std::min(p_.line_bps, target_ + p_.rate_hai_bps);
      ++c_.hai;
    } else {
      target_ = std::min(p_.line_bps, target_ + p_.rate_ai_bps);
      ++c_.ai;
    }
  } else if (stage_ < f) {
    ++c_.recoveries;
  } else if (stage_ == f) {
    target_ = std::min(p_.line_bps, target_ + p_.rate_ai_bps);
    ++c_.ai;
  } else {
    target_ = std::min(p_.line_bps, target_ + p_.rate_hai_bps);
    ++c_.hai;
  }
  rate_ = rate_ / 2 + target_ / 2;
}

}  // namespace pfc::emulator
