// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/net/pint.h"

#include <bit>
#include <cmath>

namespace pfc::net {
namespace {

// log2apprx's scale: 2^(l - ceil-ish log2 b) with b = l = 20 (logres_shift).
constexpr int kLogShift = 15;
constexpr double kFct = 1 << kLogShift;
constexpr int kLogBits = 16;  // m: significant bits kept

}  // namespace

PintCodec::PintCodec(double log_base) : base_(log_base), factor_(1 / std::log(log_base)) {}

uint16_t PintCodec::Encode(double u, uint32_t r16) const {
  // As Pint::encode_u: u x 512 rounded up, at least 1, then its log to the
  // base, rounded to a neighbouring power with the odds that keep it unbiased.
  uint32_t v = static_cast<uint32_t>(std::ceil(u * kPintMaxConcurrent));
  if (v == 0) v = 1;
  const double power = std::log(v) * factor_;
  const auto hi = static_cast<uint16_t>(std::ceil(power));
  const auto lo = static_cast<uint16_t>(std::floor(power));
  double upper = std::pow(base_, hi);
  const double lower = std::pow(base_, lo);
  if (hi == lo) upper *= base_;
  return r16 < (v - lower) / (upper - lower) * 65536 ? hi : lo;
}

double PintCodec::Decode(uint16_t p) const { return std::pow(base_, p) / kPintMaxConcurrent; }

int PintCodec::Bits() const {
  const double max = std::log(double{kPintMaxConcurrent} * kPintMaxConcurrent) * factor_;
  return static_cast<int>(std::ceil(std::log2(max)));
}

int PintLog2(uint32_t x, Rng& rng) {
  const int msb = std::bit_width(x);
  if (msb > kLogBits) {
    const int cut = msb - kLogBits;
    const uint32_t mask = (1u << cut) - 1;
    const uint32_t kept = x >> cut << cut;
    x = (x & mask) > (rng.Next32() & mask) ? kept + (1u << cut) : kept;
  }
  return static_cast<int>(std::log2(x) * kFct);
}

double PintNextU(const PintPort& p, uint64_t now_ns, uint64_t qlen, uint64_t port_bps,
                 uint64_t max_rtt_ns, Rng& rng) {
  // switch-node.cc's HPCC-PINT branch of SwitchNotifyDequeue, term by term.
  uint64_t dt = now_ns - p.last_ns;
  if (dt > max_rtt_ns) dt = max_rtt_ns;
  const double log_t = std::log2(static_cast<double>(max_rtt_ns)) * kFct;
  const double log_b = std::log2(static_cast<double>(port_bps / 8)) * kFct;
  const double log_1e9 = std::log2(1e9) * kFct;
  double qterm = 0, byte_term = 0, u_term = 0;
  // (A dt of 0 has no logarithm: the simulator's term is then 2^-65536.)
  if ((qlen >> 8) > 0 && dt > 0) {
    const int log_dt = PintLog2(static_cast<uint32_t>(dt), rng);
    const int log_q = PintLog2(static_cast<uint32_t>(qlen >> 8), rng);
    qterm = std::pow(2, (log_dt + log_q + log_1e9 - log_b - 2 * log_t) / kFct) * 256;
  }
  if (p.last_size > 0) {
    const int log_byte = PintLog2(p.last_size, rng);
    byte_term = std::pow(2, (log_byte + log_1e9 - log_b - log_t) / kFct);
  }
  const auto u8192 = static_cast<uint32_t>(std::round(p.u * 8192));
  if (max_rtt_ns > dt && p.u > 0 && u8192 > 0) {
    const int log_t_dt = PintLog2(static_cast<uint32_t>(max_rtt_ns - dt), rng);
    const int log_u = PintLog2(u8192, rng);
    u_term = std::pow(2, (log_t_dt + log_u - log_t) / kFct) / 8192;
  }
  return qterm + byte_term + u_term;
}

}  // namespace pfc::net
