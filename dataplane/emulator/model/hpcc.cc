// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/hpcc.h"

#include <algorithm>

namespace pfc::emulator {

namespace {
using H = HpccParams;
using K = ParamKind;
// Keys are the simulator's config.txt names in lower case.
const Param<H> kHpccParams[] = {
    {"u_target", K::kReal, 0.01, 1, "U_TARGET: the utilisation aimed at (the paper's eta)",
     &H::u_target},
    {"mi_thresh", K::kInt, 0, 1000,
     "MI_THRESH: additive steps before a multiplicative one (the paper's maxStage); 0: all "
     "multiplicative",
     &H::mi_thresh},
    {"fast_react", K::kBool, 0, 0, "FAST_REACT: react to every ACK, not only once per RTT",
     &H::fast_react},
    {"multi_rate", K::kBool, 0, 0, "MULTI_RATE: a rate per hop, the flow sending at the least",
     &H::multi_rate},
    {"sample_feedback", K::kBool, 0, 0,
     "SAMPLE_FEEDBACK: within an RTT, react only to hops with a queue", &H::sample_feedback},
    {"rate_ai", K::kRate, 0, 0, "RATE_AI: the additive increase (run.py: 10 * bw / 25 Mb/s)",
     &H::rate_ai_bps},
    {"min_rate", K::kRate, 0, 0, "MIN_RATE: the floor of the rate", &H::min_rate_bps},
    {"has_win", K::kBool, 0, 0, "HAS_WIN: a window (the BDP) limits bytes in flight", &H::has_win},
    {"var_win", K::kBool, 0, 0, "VAR_WIN: the window scales with the rate", &H::var_win},
    {"rate_bound", K::kBool, 0, 0, "RATE_BOUND: packets paced at the rate (off: at the line)",
     &H::rate_bound},
    {"global_t", K::kBool, 0, 0,
     "GLOBAL_T: base RTT and window are the fabric's largest, not the host pair's", &H::global_t},
    {"int_multi", K::kInt, 1, 255,
     "INT_MULTI: the unit multiplier of the INT byte and queue counts (run.py: bw / 25)",
     &H::int_multi},
    {"pint_log_base", K::kReal, 1.0002, 16,
     "PINT_LOG_BASE: HPCC-PINT's log base, (1 + epsilon)^2 for an error epsilon; the switches' "
     "int.pint.log_base",
     &H::pint_log_base},
    {"pint_prob", K::kReal, 0, 1,
     "PINT_PROB: HPCC-PINT: the share of ACKs whose utilisation the sender reacts to",
     &H::pint_prob},
};
}  // namespace

std::span<const Param<HpccParams>> HpccParamTable() { return kHpccParams; }

HpccRp::HpccRp(const HpccParams& p, uint64_t base_rtt_ns, uint64_t win_bytes)
    : p_(p), base_rtt_(base_rtt_ns), win_(win_bytes), rate_(p.line_bps), ref_(p.line_bps) {
  for (Hop& h : hop_) h.ref = p.line_bps;  // the simulator's AddQueuePair
}

uint64_t HpccWindow(const HpccParams& p, uint64_t win_bytes, uint64_t rate_bps) {
  if (!p.has_win) return 0;
  if (!p.var_win || p.line_bps == 0) return win_bytes;
  // 128 bits: win * rate overflows 64 at 10 MB and 2T (the simulator's
  // 64-bit product agrees wherever it does not overflow).
  const auto w =
      static_cast<uint64_t>(static_cast<unsigned __int128>(win_bytes) * rate_bps / p.line_bps);
  return w == 0 ? 1 : w;  // never shut: the simulator's "must > 0"
}

uint64_t HpccRp::window_bytes() const { return HpccWindow(p_, win_, rate_); }

void HpccRp::OnAck(uint64_t now_ns, uint64_t acked_seq, uint64_t snd_nxt, const net::IntHop* hops,
                   int nhop, uint32_t multi) {
  ++c_.acks;
  last_ack_ns_ = now_ns;
  if (nhop < 0) nhop = 0;
  if (acked_seq > last_update_seq_) {
    Update(hops, nhop, multi, snd_nxt, false);
  } else if (p_.fast_react) {
    Update(hops, nhop, multi, snd_nxt, true);
  } else {
    ++c_.no_react;  // nothing, not even the records: the next update spans both
  }
}

HpccStep HpccNextRate(const HpccParams& p, uint64_t ref, double u, uint32_t stage) {
  const double c = u / p.u_target;
  HpccStep s;
  if (c >= 1 || stage >= p.mi_thresh) {
    // ns-3's DataRate / double truncates to whole bits/s before RATE_AI is
    // added. A quotient at or past the line ends at the line after the
    // clamps below (the simulator's conversion is undefined past 2^64).
    const double q = static_cast<double>(ref) / c;
    s = {
        q < static_cast<double>(p.line_bps) ? static_cast<uint64_t>(q) + p.rate_ai_bps : p.line_bps,
        0, true};
  } else {
    s = {ref + p.rate_ai_bps, stage + 1, false};
  }
  // The floor first, then the ceiling, as the simulator.
  if (s.rate < p.min_rate_bps) s.rate = p.min_rate_bps;
  if (s.rate > p.line_bps) s.rate = p.line_bps;
  return s;
}

void HpccRp::Update(const net::IntHop* hops, int nhop, uint32_t multi, uint64_t snd_nxt,
                    bool fast) {
  if (last_update_seq_ == 0) {  // the first ACK: only the records
    ++c_.first;
    last_update_seq_ = snd_nxt;
    if (nhop > net::kIntMaxHops) {
      ++c_.too_many_hops;
      return;
    }
    for (int i = 0; i < nhop; i++) hop_[i].rec = hops[i];
    return;
  }
  ++(fast ? c_.fast_reacts : c_.updates);
  if (nhop > net::kIntMaxHops) {
    // The records are a rotating subset that matches no hop's history.
    ++c_.too_many_hops;
  } else {
    const double T = static_cast<double>(base_rtt_);
    double U = 0;     // one rate: the largest u_i ...
    uint64_t dt = 0;  // ... and its hop's tau
    bool updated[net::kIntMaxHops] = {}, any = false;
    for (int i = 0; i < nhop; i++) {
      const net::IntHop& h = hops[i];
      Hop& s = hop_[i];
      if (p_.sample_feedback && fast && h.qlen == 0) {
        ++c_.sampled_out;
        continue;
      }
      const uint64_t tau = h.TimeDelta(s.rec);
      if (tau == 0) {
        ++c_.zero_tau;
        continue;
      }
      updated[i] = any = true;
      // The simulator's expression, in its order and types.
      const double duration = static_cast<double>(tau) * 1e-9;
      const double tx_bps = static_cast<double>(h.BytesDelta(s.rec, multi) * 8) / duration;
      const double line = static_cast<double>(h.LineRate());
      const double u =
          tx_bps / line + static_cast<double>(std::min(h.Qlen(multi), s.rec.Qlen(multi))) *
                              static_cast<double>(p_.line_bps) / line / static_cast<double>(win_);
      if (!p_.multi_rate) {
        if (u > U) {
          U = u;
          dt = tau;
        }
      } else {
        const uint64_t t = std::min(tau, base_rtt_);
        s.u = (s.u * static_cast<double>(base_rtt_ - t) + u * static_cast<double>(t)) / T;
      }
      s.rec = h;
    }

    HpccStep next{p_.line_bps, stage_, false};
    HpccStep per_hop[net::kIntMaxHops] = {};
    if (!p_.multi_rate) {
      if (any) {
        // u = 0 on every hop leaves dt 0: u stays as it was.
        dt = std::min(dt, base_rtt_);
        u_ = (u_ * static_cast<double>(base_rtt_ - dt) + U * static_cast<double>(dt)) / T;
        next = HpccNextRate(p_, ref_, u_, stage_);
      }
    } else {
      for (int i = 0; i < nhop; i++) {
        if (updated[i]) {
          per_hop[i] = HpccNextRate(p_, hop_[i].ref, hop_[i].u, hop_[i].stage);
          next.rate = std::min(next.rate, per_hop[i].rate);
        } else {
          next.rate = std::min(next.rate, hop_[i].ref);
        }
      }
    }
    if (any) rate_ = next.rate;
    if (!fast) {  // a per-RTT update commits the references and stages
      if (any) {
        ref_ = next.rate;
        if (!p_.multi_rate) {
          stage_ = next.stage;
          ++(next.mi ? c_.mi : c_.ai);
        }
      }
      if (p_.multi_rate) {
        for (int i = 0; i < nhop; i++) {
          if (!updated[i]) continue;
          hop_[i].ref = per_hop[i].rate;
          hop_[i].stage = per_hop[i].stage;
          ++(per_hop[i].mi ? c_.mi : c_.ai);
        }
      }
    }
  }
  if (!fast && snd_nxt > last_update_seq_) last_update_seq_ = snd_nxt;
}

}  // namespace pfc::emulator
