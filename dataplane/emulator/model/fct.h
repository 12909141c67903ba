// SPDX-License-Identifier: BSD-3-Clause
// Flow completion time of a sized flow (`bytes` in the fabric file), as the
// RDMA simulator's fct.txt and the HPCC paper's figures report it: the
// time from the flow's start to its last frame's arrival, next to an ideal
// time, the flow alone on an idle path: its first frame's base one-way
// delay (propagation and one frame's store-and-forward per hop, measured:
// the smallest delay any of its frames saw) plus the rest of its frames
// back to back at its sending rate. slowdown = fct / ideal (>= 1 up to the
// measurement's granularity). Pure code.
//
// An RC flow (rc_qp.h) completes, as in the simulator, when its sender has
// the ACK of its last packet: fct is the start to that ACK, and the ideal
// is the smallest ACK round trip the flow saw (one full frame out, an ACK
// back) plus the rest of its packets back to back at its sending rate.
#pragma once
#include <algorithm>
#include <cstdint>

#include "dataplane/emulator/model/host_model.h"
#include "dataplane/emulator/model/link_model.h"
#include "dataplane/emulator/model/rc_qp.h"
#include "dataplane/emulator/model/roce_frame.h"

namespace pfc::emulator {

struct Fct {
  bool completed = false;  // every frame arrived
  uint64_t frames = 0;     // the flow's frames
  uint64_t fct_ns = 0;     // start to the last frame's arrival (0 if not completed)
  uint64_t ideal_ns = 0;
  double slowdown = 0;
};

// `bytes`, `frame_len`, `start_ns`: the flow as asked; `send_bps` its
// sending rate (its rate limit, else its host's link); `rx` what its
// receiver saw (nullptr: nothing arrived).
inline Fct FctOf(uint64_t bytes, uint32_t frame_len, uint64_t start_ns, uint64_t send_bps,
                 const FlowRx* rx) {
  Fct f;
  f.frames = (bytes + frame_len - 1) / frame_len;
  if (rx == nullptr || rx->min_delay_ns == kNever) return f;
  f.ideal_ns = rx->min_delay_ns + (f.frames - 1) * WireTimeNs(frame_len, send_bps);
  f.completed = rx->frames >= f.frames && rx->lost == 0;
  if (!f.completed) return f;
  f.fct_ns = rx->last_ns - start_ns;
  f.slowdown = f.ideal_ns ? static_cast<double>(f.fct_ns) / static_cast<double>(f.ideal_ns) : 0;
  return f;
}

// The wire time of one message of `len` bytes in packets of `mtu`.
inline uint64_t MessageWireNs(uint64_t len, uint32_t mtu, uint64_t bps) {
  const uint64_t pkts = (len + mtu - 1) / mtu;
  if (pkts <= 1) return WireTimeNs(RoceWriteLen(kBthOpWriteOnly, uint32_t(len)), bps);
  const uint32_t last = uint32_t(len - (pkts - 1) * mtu);
  return WireTimeNs(RoceWriteLen(kBthOpWriteFirst, mtu), bps) +
         (pkts - 2) * WireTimeNs(RoceWriteLen(kBthOpWriteMiddle, mtu), bps) +
         WireTimeNs(RoceWriteLen(kBthOpWriteLast, last), bps);
}

// A bounded RC flow's completion; `send_bps` its sending rate.
inline Fct FctOfRc(const RcRequester& rc, uint64_t start_ns, uint64_t send_bps) {
  Fct f;
  f.frames = rc.packets_total();
  f.completed = rc.completed();
  if (f.completed) f.fct_ns = rc.completed_ns() - start_ns;
  // No round trip timed (every ACK lost): the time is known, its ideal not.
  if (rc.min_rtt_ns() == kNever || rc.bytes() == 0) return f;
  const uint64_t m = rc.message_bytes(), full = rc.bytes() / m, rest = rc.bytes() % m;
  const uint64_t all = full * MessageWireNs(m, rc.mtu(), send_bps) +
                       (rest ? MessageWireNs(rest, rc.mtu(), send_bps) : 0);
  // The round trip covers the first frame.
  const uint64_t first = std::min(m, uint64_t{rc.mtu()});
  const uint8_t op = first == m ? kBthOpWriteOnly : kBthOpWriteFirst;
  f.ideal_ns = rc.min_rtt_ns() + all - WireTimeNs(RoceWriteLen(op, uint32_t(first)), send_bps);
  if (!f.completed) return f;
  f.slowdown = f.ideal_ns ? static_cast<double>(f.fct_ns) / static_cast<double>(f.ideal_ns) : 0;
  return f;
}

}  // namespace pfc::emulator
