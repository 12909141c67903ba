// SPDX-License-Identifier: BSD-3-Clause
// Flow completion time of a sized flow (`bytes` in the fabric file), as the
// RDMA simulator's fct.txt and the HPCC paper's figures report it: the
// time from the flow's start to its last frame's arrival, next to an ideal
// time, the flow alone on the idle shortest path between its hosts
// (IdlePath): its first frame stored and forwarded at every hop, the rest
// back to back behind it at the slower of its sending rate and the path's
// slowest link, and the propagation delay. slowdown = fct / ideal (>= 1).
// The simulator's standalone FCT (third.cc, qp_finish) is the same idea; it
// counts the first packet's payload once more at the bottleneck. Pure code.
//
// An RC flow (rc_qp.h) completes, as in the simulator, when its sender has
// the ACK of its last packet: fct is the start to that ACK, and the ideal
// adds the way back (propagation and one ACK frame per hop).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

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

// The shortest path between a flow's hosts as the flow alone would find
// it: the links' rates from sender to receiver and their summed one-way
// propagation delay (spec/fabric_plan.h IdlePathOf).
struct IdlePath {
  uint64_t delay_ns = 0;
  std::vector<uint64_t> bps;                   // one per link, sender first; empty: unknown
  int32_t wire_overhead = kWireOverheadBytes;  // the links' (LinkParams)
  bool wire_ns3 = false;                       // the links' wire time (LinkParams)
  uint64_t min_bps() const {
    uint64_t m = bps.empty() ? 0 : bps[0];
    for (uint64_t b : bps) m = std::min(m, b);
    return m;
  }
  // One frame of `len` bytes stored and forwarded at every hop.
  uint64_t StoreForwardNs(uint32_t len) const {
    uint64_t t = 0;
    for (uint64_t b : bps) t += WireTimeNs(len, b, wire_overhead, wire_ns3);
    return t;
  }
};

// `bytes`, `frame_len`, `start_ns`: the flow as asked; `send_bps` its
// sending rate (its rate limit, else its host's link); `rx` what its
// receiver saw (nullptr: nothing arrived).
inline Fct FctOf(uint64_t bytes, uint32_t frame_len, uint64_t start_ns, uint64_t send_bps,
                 const IdlePath& path, const FlowRx* rx) {
  Fct f;
  f.frames = (bytes + frame_len - 1) / frame_len;
  if (path.bps.empty() || f.frames == 0) return f;
  const uint64_t rate = std::min(send_bps, path.min_bps());
  f.ideal_ns = path.delay_ns + path.StoreForwardNs(frame_len) +
               (f.frames - 1) * WireTimeNs(frame_len, rate, path.wire_overhead, path.wire_ns3);
  if (rx == nullptr) return f;
  f.completed = rx->frames >= f.frames && rx->lost == 0;
  if (!f.completed) return f;
  f.fct_ns = rx->last_ns - start_ns;
  f.slowdown = static_cast<double>(f.fct_ns) / static_cast<double>(f.ideal_ns);
  return f;
}

// The wire time of one message of `len` bytes in packets of `mtu`.
inline uint64_t MessageWireNs(uint64_t len, uint32_t mtu, uint64_t bps,
                              int32_t overhead = kWireOverheadBytes) {
  const uint64_t pkts = (len + mtu - 1) / mtu;
  if (pkts <= 1) return WireTimeNs(RoceWriteLen(kBthOpWriteOnly, uint32_t(len)), bps, overhead);
  const uint32_t last = uint32_t(len - (pkts - 1) * mtu);
  return WireTimeNs(RoceWriteLen(kBthOpWriteFirst, mtu), bps, overhead) +
         (pkts - 2) * WireTimeNs(RoceWriteLen(kBthOpWriteMiddle, mtu), bps, overhead) +
         WireTimeNs(RoceWriteLen(kBthOpWriteLast, last), bps, overhead);
}

// A bounded RC flow's completion; `send_bps` its sending rate.
inline Fct FctOfRc(const RcRequester& rc, uint64_t start_ns, uint64_t send_bps,
                   const IdlePath& path) {
  Fct f;
  f.frames = rc.packets_total();
  f.completed = rc.completed();
  if (f.completed) f.fct_ns = rc.completed_ns() - start_ns;
  if (path.bps.empty() || rc.bytes() == 0) return f;
  const uint64_t rate = std::min(send_bps, path.min_bps());
  const uint64_t m = rc.message_bytes(), full = rc.bytes() / m, rest = rc.bytes() % m;
  const uint64_t all = full * MessageWireNs(m, rc.mtu(), rate, path.wire_overhead) +
                       (rest ? MessageWireNs(rest, rc.mtu(), rate, path.wire_overhead) : 0);
  // The first frame goes hop by hop; the rest follows at `rate`.
  const uint64_t first = std::min(m, uint64_t{rc.mtu()});
  const uint32_t first_len =
      RoceWriteLen(first == m ? kBthOpWriteOnly : kBthOpWriteFirst, uint32_t(first));
  f.ideal_ns = 2 * path.delay_ns + path.StoreForwardNs(first_len) + all -
               WireTimeNs(first_len, rate, path.wire_overhead, path.wire_ns3) +
               path.StoreForwardNs(kAckFrameLen);
  if (!f.completed) return f;
  f.slowdown = static_cast<double>(f.fct_ns) / static_cast<double>(f.ideal_ns);
  return f;
}

}  // namespace pfc::emulator
