// SPDX-License-Identifier: BSD-3-Clause
// HPCC-PINT's telemetry (Ben Basat et al., "PINT: Probabilistic In-band
// Network Telemetry", SIGCOMM 2020), as the HPCC work's RDMA simulator
// models it (CC_MODE 10: simulation/src/point-to-point/model/pint.cc and
// switch-node.cc): in place of HPCC's five hop records a data packet
// carries one value, the largest utilisation any port on its path saw,
// encoded on a log scale so that it fits a few bits.
//
//  * The switch's side, per egress port: a utilisation estimate u, an EWMA
//    over the base RTT T (the fabric's largest, the simulator's maxRtt)
//    updated at each PINT packet that leaves, from the time dt since the
//    port's previous packet (at most T), the bytes still queued at the port
//    (every priority) and the size of that previous packet:
//        u' = u (T - dt) / T + qlen dt / (B T^2) + last_size / (B T)
//    (B the port's rate in bytes per ns). The simulator computes each term
//    in a switch's fixed-point logarithms (log2apprx: 16 significant bits,
//    log2 times 2^15, rounded at random past 16 bits); so does PintNextU,
//    with qlen in whole 256-byte units and u in units of 1/8192 as there.
//  * The encoding: u as the power p of the log base b (PINT_LOG_BASE,
//    (1 + epsilon)^2 for a relative error epsilon): b^p ~ u x 512, p
//    rounded up or down at random so that the value is unbiased; a switch
//    writes its p when it exceeds the packet's. The sender decodes
//    u = b^p / 512.
//
// Arithmetic is the simulator's (doubles in its order) so results compare;
// its rand() draws come from the caller's generator here. Pure: no DPDK.
#pragma once
#include <cstdint>

#include "dataplane/common/rng.h"

namespace pfc::net {

// The largest number of flows the encoding is sized for (the simulator's
// Pint::max_concurrent): u x 512 is what gets a log.
inline constexpr uint32_t kPintMaxConcurrent = 512;

class PintCodec {
 public:
  explicit PintCodec(double log_base);
  double log_base() const { return base_; }
  // The power for utilisation u, rounded at random by r16 (uniform in
  // [0, 65536), the simulator's rand() % 65536).
  uint16_t Encode(double u, uint32_t r16) const;
  double Decode(uint16_t p) const;
  // Bits (and bytes) a power needs for u up to kPintMaxConcurrent, as the
  // simulator sizes its field (Pint::get_n_bits).
  int Bits() const;

 private:
  double base_, factor_;  // b and 1 / ln b
};

// One egress port's estimate (owned by the worker that sends on it).
struct PintPort {
  double u = 0;            // the simulator starts every port at 0
  uint64_t last_ns = 0;    // when the port's previous packet left
  uint32_t last_size = 0;  // its bytes (0: none yet)
};

// The port's next u for a PINT packet leaving at now_ns with qlen bytes
// queued behind it; the port's rate port_bps, base RTT max_rtt_ns (> 0).
// Draws from rng where a logarithm's argument passes 16 bits.
double PintNextU(const PintPort& p, uint64_t now_ns, uint64_t qlen, uint64_t port_bps,
                 uint64_t max_rtt_ns, Rng& rng);

// The simulator's fixed-point log2 (switch-node.cc log2apprx with b = 20,
// m = 16, l = 20): log2(x) x 2^15, truncated, x first cut to its 16 most
// significant bits (rounding up at random by the bits cut). x > 0.
int PintLog2(uint32_t x, Rng& rng);

}  // namespace pfc::net
