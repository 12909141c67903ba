// SPDX-License-Identifier: BSD-3-Clause
// DCTCP congestion control over RDMA RC for an emulated RDMA NIC: the
// reaction point (a sender's per-flow rate, driven by the ECN echoes its
// ACKs carry). The algorithm is DCTCP (Alizadeh et al., "Data Center TCP",
// SIGCOMM 2010) turned into a rate as the RDMA simulator of the HPCC work
// runs it (CC_MODE 8, simulation/src/point-to-point/model/rdma-hw.cc), with
// its parameter names (mix/config_doc.txt):
//
//  * the receiver flags the ACK of every packet that arrived CE-marked (the
//    simulator's CNP flag on the ACK: the ECE of TCP);
//  * alpha starts at 1 and is updated once per window of sequence: an ACK
//    beyond the sequence the last update recorded (snd_nxt then) closes the
//    window: alpha = (1 - g) alpha + g min(1, flagged / expected), where
//    flagged counts the flagged ACKs since the last update (this one
//    included) and expected is the window's packets as estimated when it
//    opened, (snd_nxt - ack_seq) / mtu + 1; the window's end becomes
//    snd_nxt (g = EWMA_GAIN);
//  * the first such ACK only opens the first window (expected snd_nxt / mtu
//    + 1) and leaves the count as it is: the first window's flagged ACKs
//    include those before it and that ACK itself;
//  * a flagged ACK outside CWR cuts: rate = max(MIN_RATE, rate (1 - alpha
//    / 2)), and enters CWR until an ACK beyond snd_nxt at the cut (CWR is
//    left before the cut is considered, so the ACK that leaves it may cut);
//  * an ACK that closes (or opens) a window outside CWR, and did not cut,
//    adds DCTCP_RATE_AI, never above the line rate.
// The window on the bytes in flight follows the rate (HAS_WIN 1, VAR_WIN 1
// in the simulator's DCTCP runs). The arithmetic is the simulator's, so the
// rates match it bit for bit: doubles for alpha, integer bits/s for the
// rate, a cut rounded down (ns-3's DataRate * double), the updates in its
// order. Sequence numbers are 64-bit here (32 in the simulator: the same
// below 4 GiB a flow). No timers: the simulator's DCTCP has none, and
// everything happens on an ACK.
//
// Pure code. Owned by the thread that runs the host that sends the flow.
#pragma once
#include <cstdint>
#include <span>

#include "dataplane/emulator/model/params.h"

namespace pfc::emulator {

// Defaults: what the simulator's run.py writes for `--cc dctcp --bw 100`.
struct DctcpParams {
  uint64_t rate_ai_bps = 615'000'000;     // DCTCP_RATE_AI: run.py 615Mb/s (1 KB a 13 us RTT)
  uint64_t min_rate_bps = 1'000'000'000;  // MIN_RATE: run.py 1000Mb/s
  double ewma_gain = 0.0625;              // EWMA_GAIN: run.py 0.0625 for dctcp
  bool has_win = true;                    // HAS_WIN: run.py 1
  bool var_win = true;                    // VAR_WIN: run.py 1
};

// The fabric file's dctcp section (model/params.h): the keys, in order.
std::span<const Param<DctcpParams>> DctcpParamTable();

struct DctcpCounters {
  uint64_t acks = 0;           // ACKs (and NAKs) seen
  uint64_t ece = 0;            // ... flagged (the packet arrived CE-marked)
  uint64_t alpha_updates = 0;  // windows closed
  uint64_t cuts = 0;
  uint64_t ai = 0;  // additive increases (including those the line rate capped)
};

// One flow's sending rate (the reaction point).
class DctcpRp {
 public:
  // line_bps: the NIC's link (the start and the ceiling). win_bytes: the
  // flow's window when has_win (the simulator gives every flow the fabric's
  // largest bandwidth-delay product, GLOBAL_T 1); 0: none. mtu: payload
  // bytes a packet (the RC transport's mtu, the simulator's
  // PACKET_PAYLOAD_SIZE), for the packets a window expects.
  DctcpRp(const DctcpParams& p, uint64_t line_bps, uint64_t win_bytes, uint32_t mtu);

  // An ACK (or NAK) of the flow arrived at now_ns acknowledging up to
  // ack_seq bytes, flagged `ece` when the packet it answers arrived
  // CE-marked; snd_nxt: the flow's next byte to send, after a NAK's
  // go-back-N rewind (the simulator rewinds before the reaction point
  // runs). now_ns is not used (no timers), kept for the hosts' one shape.
  void OnAck(uint64_t now_ns, uint64_t ack_seq, uint64_t snd_nxt, bool ece);

  uint64_t rate_bps() const { return rate_; }
  // Bytes the flow may have in flight: 0 = no window (HAS_WIN 0); with
  // VAR_WIN, win x rate / line rounded down, at least 1; else win.
  uint64_t window_bytes() const;
  double alpha() const { return alpha_; }
  bool in_cwr() const { return cwr_; }
  const DctcpCounters& counters() const { return c_; }

 private:
  DctcpParams p_;
  uint64_t line_, win_;
  uint32_t mtu_;
  uint64_t rate_;
  double alpha_ = 1.0;
  uint64_t last_update_seq_ = 0;  // the window's end; 0 before the first ACK
  uint64_t flagged_ = 0;          // ECE ACKs since the last alpha update
  uint64_t expected_ = 0;         // the window's packets, estimated when it opened
  bool cwr_ = false;              // after a cut, until an ACK beyond high_seq_
  uint64_t high_seq_ = 0;
  DctcpCounters c_;
};

}  // namespace pfc::emulator
