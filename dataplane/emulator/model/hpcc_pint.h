// SPDX-License-Identifier: BSD-3-Clause
// HPCC-PINT for an emulated RDMA NIC: HPCC's reaction point driven by one
// value a data packet carries instead of five hop records, the largest
// utilisation a port on its path estimated, as a power of a log base
// (net/pint.h) that its receiver echoes in each ACK. The algorithm is the
// HPCC work's simulator's CC_MODE 10 (rdma-hw.cc, HandleAckHpPint and
// UpdateRateHpPint), with HPCC's parameters (hpcc.h) and its two own:
//
//  * an ACK is used with probability PINT_PROB (the simulator draws
//    rand() % 65536 against PINT_PROB x 65536), else ignored;
//  * the first ACK used sets last_update_seq to snd_nxt and nothing else;
//  * then U = base^power / 512, c = U / U_TARGET; if c >= 1 or the stage
//    >= MI_THRESH: rate = reference / c + RATE_AI, stage 0; else rate =
//    reference + RATE_AI, stage + 1; then at least MIN_RATE, at most the
//    line. An ACK whose seq passes last_update_seq commits that rate and
//    stage as the reference and moves last_update_seq to snd_nxt; any
//    other only changes the sending rate (always: FAST_REACT is not read);
//  * window (HAS_WIN, VAR_WIN) and pacing (RATE_BOUND) as HPCC's.
//
// The simulator keeps no utilisation of its own here (no u, no EWMA at the
// sender): the switches' estimate is the EWMA. Pure code; one per flow,
// owned by the thread that runs the flow's host.
#pragma once
#include <cstdint>

#include "dataplane/common/rng.h"
#include "dataplane/emulator/model/hpcc.h"
#include "dataplane/net/pint.h"

namespace pfc::emulator {

struct HpccPintCounters {
  uint64_t acks = 0;         // OnAck calls
  uint64_t sampled_out = 0;  // ACKs PINT_PROB left unused
  uint64_t first = 0;        // the ACK that only set last_update_seq
  uint64_t updates = 0;      // per-RTT updates
  uint64_t fast_reacts = 0;  // the others
  uint64_t mi = 0, ai = 0;   // committed multiplicative / additive steps
};

class HpccPintRp {
 public:
  // p.line_bps the NIC's rate (start and ceiling); win_bytes the window
  // as HPCC's (hpcc.h); seed the flow's draws for PINT_PROB.
  HpccPintRp(const HpccParams& p, uint64_t win_bytes, uint64_t seed);

  // An ACK at now_ns: acked_seq the next byte the receiver expects,
  // snd_nxt the bytes sent so far, power the echoed trailer's.
  void OnAck(uint64_t now_ns, uint64_t acked_seq, uint64_t snd_nxt, uint16_t power);

  uint64_t rate_bps() const { return rate_; }
  uint64_t ref_rate_bps() const { return ref_; }
  uint32_t inc_stage() const { return stage_; }
  uint64_t last_update_seq() const { return last_update_seq_; }
  uint64_t window_bytes() const;
  uint64_t pace_bps() const { return p_.rate_bound ? rate_ : p_.line_bps; }
  // The utilisation the last ACK used decoded to (0 before any).
  double last_u() const { return last_u_; }
  const HpccPintCounters& counters() const { return c_; }

 private:
  HpccParams p_;
  net::PintCodec codec_;
  uint64_t win_;
  uint32_t smpl_thresh_;  // PINT_PROB x 65536, truncated
  Rng rng_;
  uint64_t rate_, ref_;
  uint32_t stage_ = 0;
  uint64_t last_update_seq_ = 0;  // 0: no ACK used yet
  double last_u_ = 0;
  HpccPintCounters c_;
};

}  // namespace pfc::emulator
