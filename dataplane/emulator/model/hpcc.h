// SPDX-License-Identifier: BSD-3-Clause
// HPCC congestion control for an emulated RDMA NIC: the reaction point (a
// sender's per-flow rate and window), driven by the in-band telemetry (INT)
// that switches stamp on the flow's data and its receiver echoes in each
// ACK (net/int_trailer.h). The algorithm is HPCC (Li et al., "HPCC: High
// Precision Congestion Control", SIGCOMM 2019) as the RDMA simulator of
// that work models it (simulation/src/point-to-point/model/rdma-hw.cc,
// CC_MODE 3), with parameters named as that simulator's config
// (mix/config_doc.txt):
//
//  * the first ACK only records its hops and sets last_update_seq to the
//    bytes sent so far (snd_nxt);
//  * an ACK whose seq passes last_update_seq is a per-RTT update: it
//    commits a new reference rate and stage, and last_update_seq moves to
//    snd_nxt; any other ACK is a fast reaction (with FAST_REACT): the same
//    computation from the committed reference, changing only the sending
//    rate. Both replace the recorded hops and update u (below);
//  * each hop i of the ACK, against the record of the same hop before it:
//    tau = its time delta (ns), u_i = bytes delta * 8 / tau / line rate +
//    min(qlen, previous qlen) * line_bps / hop line rate / win;
//  * one rate (MULTI_RATE off): U = the largest u_i, dt = that hop's tau
//    (at most the base RTT T), u = (u (T - dt) + U dt) / T, starting at 1;
//    with c = u / U_TARGET, if c >= 1 or the stage >= MI_THRESH,
//    multiplicative: rate = reference / c + RATE_AI, stage 0; else
//    additive: rate = reference + RATE_AI, stage + 1; then at least
//    MIN_RATE and at most the line;
//  * MULTI_RATE on: every hop keeps its own u (each with its own tau),
//    reference and stage through the same steps, and the flow sends at the
//    least of the hops' rates;
//  * SAMPLE_FEEDBACK: a fast reaction skips the hops with an empty queue
//    (their records are kept for the next per-RTT update);
//  * the window (HAS_WIN, VAR_WIN): win * rate / line_bps, at least 1 byte
//    (the simulator's RdmaQueuePair::GetWin, on the current rate, fast
//    reactions included); with VAR_WIN off it stays win; with HAS_WIN off
//    there is none (0);
//  * RATE_BOUND: the pacer spaces packets at the rate; off, at the line
//    (the simulator's UpdateNextAvail), the window alone limiting the flow.
//
// Arithmetic is the simulator's so results match it: u and c in doubles,
// evaluated in its order; a rate divided by c is truncated to whole bits/s
// before RATE_AI is added (ns-3's DataRate / double, then +). Where the
// simulator's arithmetic is undefined we choose: a quotient too large for
// 64 bits saturates (the line ceiling applies anyway), and a hop record
// with no time since the last (tau = 0, a division by zero there that
// would poison u with NaN) is ignored and kept for the next ACK. With
// HAS_WIN off the simulator's u divides by a window of 0; here u always
// uses the BDP the host passes, and HAS_WIN only removes the window limit.
//
// Base RTT and window, per flow (the simulator's scratch/third.cc, which
// the host reproduces): for the path between the two hosts (shortest by
// hops), delay = the sum of the links' one-way propagation delays (ns),
// tx_delay = the sum over its links of PACKET_PAYLOAD_SIZE (1000 in
// run.py) * 8e9 / link bps (ns, each term rounded down), bw = the least
// link rate on it (bps); then
//     base_rtt_ns = 2 * delay + tx_delay,
//     win_bytes   = base_rtt_ns * bw / 1e9 / 8 (integer, each step down).
// With GLOBAL_T 1 (run.py's setting) every flow takes the largest of
// these over all host pairs, both the RTT and the BDP (maxRtt, maxBdp);
// with GLOBAL_T 0, its own pair's.
//
// Pure code: time comes from the INT records (ns mod 2^24), rates are
// integer bits/s. One HpccRp per flow, owned by the thread that runs the
// flow's host; nothing shared.
#pragma once
#include <cstdint>
#include <span>

#include "dataplane/emulator/model/params.h"
#include "dataplane/net/int_trailer.h"

namespace pfc::emulator {

// Defaults: what the simulator's run.py writes for `--cc hp --bw 100`
// (its config template, with mi = 0 and utgt = 95, its defaults).
struct HpccParams {
  uint64_t line_bps = 0;                  // the NIC's link (set by the host): start, ceiling
  double u_target = 0.95;                 // U_TARGET 0.95 (--utgt 95)
  uint32_t mi_thresh = 0;                 // MI_THRESH 0 (--mi 0): every step multiplicative
  bool fast_react = true;                 // FAST_REACT 1
  bool multi_rate = false;                // MULTI_RATE 0
  bool sample_feedback = false;           // SAMPLE_FEEDBACK 0
  uint64_t rate_ai_bps = 40'000'000;      // RATE_AI 10 * bw / 25 Mb/s: 40Mb/s at 100G
  uint64_t min_rate_bps = 1'000'000'000;  // MIN_RATE 1000Mb/s (run.py; config_doc says 100)
  bool has_win = true;                    // HAS_WIN 1
  bool var_win = true;                    // VAR_WIN 1
  bool rate_bound = true;                 // RATE_BOUND 1
  // Read by the host, not the model: whether base RTT and window are the
  // fabric's largest (GLOBAL_T 1) or the pair's (see above), and the unit
  // multiplier it writes in its data's INT trailers (INT_MULTI bw / 25:
  // 4 at 100G; the model takes each ACK's).
  bool global_t = true;    // GLOBAL_T 1
  uint32_t int_multi = 4;  // INT_MULTI 4
  // HPCC-PINT's (hpcc_pint.h; run.py's --pint_log_base, --pint_prob
  // defaults): the encoding's base, which the switches' int.pint must
  // share, and the share of ACKs the sender reacts to.
  double pint_log_base = 1.01;  // PINT_LOG_BASE 1.01
  double pint_prob = 1.0;       // PINT_PROB 1.0
};

// The fabric file's hpcc section (model/params.h): the keys, in order.
std::span<const Param<HpccParams>> HpccParamTable();

// One rate step from reference rate `ref` at utilisation u and stage
// `stage` (the header's comment: multiplicative by u / U_TARGET, or
// additive under MI_THRESH; then MIN_RATE and the line); HPCC-PINT's
// sender takes the same step (hpcc_pint.h).
struct HpccStep {
  uint64_t rate;
  uint32_t stage;
  bool mi;
};
HpccStep HpccNextRate(const HpccParams& p, uint64_t ref, double u, uint32_t stage);

// The window at `rate` (HAS_WIN, VAR_WIN): win x rate / line, at least 1
// byte; win with VAR_WIN off; 0 (none) with HAS_WIN off.
uint64_t HpccWindow(const HpccParams& p, uint64_t win_bytes, uint64_t rate_bps);

struct HpccCounters {
  uint64_t acks = 0;         // OnAck calls
  uint64_t first = 0;        // ACKs that only recorded the hops (the first)
  uint64_t updates = 0;      // per-RTT updates (seq past last_update_seq)
  uint64_t fast_reacts = 0;  // fast reactions
  uint64_t no_react = 0;     // ACKs within the RTT with FAST_REACT off: ignored
  uint64_t mi = 0, ai = 0;   // committed multiplicative / additive steps (per hop with MULTI_RATE)
  uint64_t sampled_out = 0;  // hop records a fast reaction skipped (SAMPLE_FEEDBACK)
  uint64_t zero_tau = 0;     // hop records ignored: no time since the last (see above)
  uint64_t too_many_hops = 0;  // ACKs with more than 5 hops: INT ignored, as the simulator
};

// One flow's sending rate and window (the reaction point).
class HpccRp {
 public:
  // base_rtt_ns and win_bytes as the header's comment computes them (both
  // > 0); p.line_bps the NIC's rate, the flow's start and ceiling.
  HpccRp(const HpccParams& p, uint64_t base_rtt_ns, uint64_t win_bytes);

  // An ACK of the flow arrived at now_ns (kept as last_ack_ns(); the
  // algorithm's clock is the INT records'). acked_seq: the ACK's seq, the
  // next byte the receiver expects; snd_nxt: bytes sent so far; hops: the
  // min(nhop, 5) records its INT echoes, nhop the trailer's hop count
  // (net::IntHopCount), multi its unit multiplier (net::IntMulti). When
  // rate_bps() changes, the host's pacer moves the flow's next send time
  // by the difference of its last packet's time at the new and old rates
  // (the simulator's ChangeRate).
  void OnAck(uint64_t now_ns, uint64_t acked_seq, uint64_t snd_nxt, const net::IntHop* hops,
             int nhop, uint32_t multi);

  // The sending rate now (fast reactions included: the simulator's m_rate).
  uint64_t rate_bps() const { return rate_; }
  // The reference rate the last per-RTT update committed (hp.m_curRate).
  uint64_t ref_rate_bps() const { return ref_; }
  // Bytes the flow may have unacknowledged: 0 = no window (HAS_WIN off).
  uint64_t window_bytes() const;
  // Whether the pacer spaces packets at rate_bps() (RATE_BOUND) or the line.
  bool rate_bound() const { return p_.rate_bound; }
  uint64_t pace_bps() const { return p_.rate_bound ? rate_ : p_.line_bps; }

  double u() const { return u_; }
  uint32_t inc_stage() const { return stage_; }
  uint64_t last_update_seq() const { return last_update_seq_; }
  uint64_t last_ack_ns() const { return last_ack_ns_; }
  // MULTI_RATE's per-hop state, i < 5.
  double hop_u(int i) const { return hop_[i].u; }
  uint64_t hop_ref_rate_bps(int i) const { return hop_[i].ref; }
  uint32_t hop_inc_stage(int i) const { return hop_[i].stage; }
  const HpccCounters& counters() const { return c_; }

 private:
  void Update(const net::IntHop* hops, int nhop, uint32_t multi, uint64_t snd_nxt, bool fast);

  HpccParams p_;
  uint64_t base_rtt_, win_;
  uint64_t rate_, ref_;
  double u_ = 1.0;  // the simulator's initial u
  uint32_t stage_ = 0;
  uint64_t last_update_seq_ = 0;  // 0: no ACK yet (the simulator's first-RTT test)
  uint64_t last_ack_ns_ = 0;
  struct Hop {
    net::IntHop rec;  // the last record used for this hop
    double u = 1.0;   // MULTI_RATE: the hop's u, reference and stage
    uint64_t ref = 0;
    uint32_t stage = 0;
  };
  Hop hop_[net::kIntMaxHops];
  HpccCounters c_;
};

}  // namespace pfc::emulator
