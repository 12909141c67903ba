// SPDX-License-Identifier: BSD-3-Clause
// TIMELY congestion control for an emulated RDMA NIC: the reaction point (a
// sender's per-flow rate, driven by the RTT its ACKs measure). The algorithm
// is TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the
// Datacenter", SIGCOMM 2015) as the RDMA simulator of the HPCC work models
// it (CC_MODE 7, simulation/src/point-to-point/model/rdma-hw.cc), with its
// parameter names (mix/config_doc.txt keys and RdmaHw attributes):
//
//  * every data packet carries the sender's clock at the time it was built
//    (the simulator's IntHeader in TS mode); the receiver echoes it in the
//    ACK; rtt = now - echoed time;
//  * the rate changes at most once per window of sequence: an ACK beyond
//    the sequence the last update recorded (snd_nxt then) updates, and
//    records the flow's snd_nxt and this RTT; the ACKs in between change
//    nothing (the simulator's TIMELY "fast react" is empty, whatever
//    FAST_REACT says);
//  * the first such ACK only records (no RTT to compare with yet);
//  * each later one: rtt_diff = (1 - alpha) rtt_diff + alpha (rtt -
//    last_rtt), gradient = rtt_diff / MIN_RTT, and then
//      rtt < T_LOW:     increase;
//      rtt > T_HIGH:    rate = rate (1 - beta (1 - T_HIGH / rtt));
//      gradient <= 0:   increase;
//      else:            rate = rate max(0, 1 - beta gradient);
//    an increase adds RATE_AI, or RATE_HAI once `hai_thresh` increases in a
//    row came before it (the count restarts at every decrease), never above
//    the line rate; a decrease never goes below MIN_RATE.
// The arithmetic is the simulator's, so the rates match it bit for bit:
// doubles for the EWMA, the gradient and the factor, integer bits/s for the
// rate, a decrease rounded down (ns-3's DataRate * double), the updates in
// its order. Sequence numbers are 64-bit here (32 in the simulator: the same
// below 4 GiB a flow). No timers: everything happens on an ACK.
//
// Pure code: time is an argument (ns). Owned by the thread that runs the
// host that sends the flow.
#pragma once
#include <cstdint>
#include <span>

#include "dataplane/emulator/model/params.h"

namespace pfc::emulator {

// Defaults: what the simulator's run.py writes for `--cc timely --bw 100`,
// and for what it does not write, its RdmaHw attributes' defaults.
struct TimelyParams {
  uint64_t rate_ai_bps = 100'000'000;     // RATE_AI: run.py 10 * bw / 10 Mb/s
  uint64_t rate_hai_bps = 500'000'000;    // RATE_HAI: run.py 50 * bw / 10 Mb/s
  uint64_t min_rate_bps = 1'000'000'000;  // MIN_RATE: run.py 1000Mb/s
  double alpha = 0.875;                   // TimelyAlpha (attribute): rtt_diff's EWMA gain
  double beta = 0.8;                      // TimelyBeta (attribute): the decrease factor
  uint64_t t_low_ns = 50'000;             // TimelyTLow (attribute) 50 us
  uint64_t t_high_ns = 500'000;           // TimelyTHigh (attribute) 500 us
  uint64_t min_rtt_ns = 20'000;           // TimelyMinRtt (attribute) 20 us: the gradient's unit
  uint32_t hai_thresh = 5;                // UpdateRateTimely's constant 5 (not MI_THRESH)
  bool has_win = false;                   // HAS_WIN: run.py 0 (timely_vwin: 1)
  bool var_win = false;                   // VAR_WIN: run.py 0 (timely_vwin: 1)
};

// The fabric file's timely section (model/params.h): the keys, in order.
std::span<const Param<TimelyParams>> TimelyParamTable();

struct TimelyCounters {
  uint64_t acks = 0;          // ACKs (and NAKs) seen
  uint64_t in_window = 0;     // ... at or below the last update's sequence: no change
  uint64_t below_t_low = 0;   // updates that increased because rtt < T_LOW
  uint64_t above_t_high = 0;  // updates that decreased because rtt > T_HIGH
  uint64_t ai = 0, hai = 0;   // increases, by step
  uint64_t decreases = 0;     // by T_HIGH or by a positive gradient
};

// One flow's sending rate (the reaction point).
class TimelyRp {
 public:
  // line_bps: the NIC's link (the start and the ceiling). win_bytes: the
  // flow's window when has_win (the simulator gives every flow the fabric's
  // largest bandwidth-delay product, GLOBAL_T 1); 0: none.
  TimelyRp(const TimelyParams& p, uint64_t line_bps, uint64_t win_bytes = 0);

  // An ACK (or NAK) of the flow arrived at now_ns, echoing the send time
  // ts_ns of the packet that caused it, acknowledging up to ack_seq bytes;
  // snd_nxt: the flow's next byte to send, after a NAK's go-back-N rewind
  // (the simulator rewinds before the reaction point runs).
  void OnAck(uint64_t now_ns, uint64_t ts_ns, uint64_t ack_seq, uint64_t snd_nxt);

  uint64_t rate_bps() const { return rate_; }
  // Bytes the flow may have in flight: 0 = no window (HAS_WIN 0); with
  // VAR_WIN, win x rate / line rounded down, at least 1; else win.
  uint64_t window_bytes() const;
  double rtt_diff_ns() const { return rtt_diff_; }
  uint64_t last_rtt_ns() const { return last_rtt_; }
  uint32_t increases_in_a_row() const { return inc_stage_; }
  const TimelyCounters& counters() const { return c_; }

 private:
  void Update(uint64_t rtt);

  TimelyParams p_;
  uint64_t line_, win_;
  uint64_t rate_;
  uint64_t last_update_seq_ = 0;  // 0 until the first update (a sent flow's snd_nxt is > 0)
  uint64_t last_rtt_ = 0;
  double rtt_diff_ = 0;
  uint32_t inc_stage_ = 0;
  TimelyCounters c_;
};

}  // namespace pfc::emulator
