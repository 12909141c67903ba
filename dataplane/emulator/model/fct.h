// SPDX-License-Identifier: BSD-3-Clause
// Flow completion time of a sized flow (`bytes` in the fabric file), as the
// RDMA simulator's fct.txt and the HPCC paper's figures report it: the
// time from the flow's start to its last frame's arrival, next to an ideal
// time, the flow alone on an idle path: its first frame's base one-way
// delay (propagation and one frame's store-and-forward per hop, measured:
// the smallest delay any of its frames saw) plus the rest of its frames
// back to back at its sending rate. slowdown = fct / ideal (>= 1 up to the
// measurement's granularity). Pure code.
#pragma once
#include <algorithm>
#include <cstdint>

#include "dataplane/emulator/model/host_model.h"
#include "dataplane/emulator/model/link_model.h"

namespace pfc::emu {

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

}  // namespace pfc::emu
