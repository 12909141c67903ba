// SPDX-License-Identifier: BSD-3-Clause
// ECN marking by RED on an egress queue's depth, as RoCEv2 switches run it
// for DCQCN: below the min threshold nothing is marked, above the max every
// ECN-capable packet is, and in between with a probability rising linearly
// from 0 to max_prob (the DCQCN paper's Fig. 5; the RDMA simulator of the
// HPCC work marks the same way with KMIN, KMAX and PMAX). min == max is a
// step at one threshold, DCTCP's K. The depth is instantaneous, not RED's
// moving average: DCQCN wants the feedback now.
//
// When: a profile marks at enqueue (the default; each packet judged by the
// bytes queued ahead of it, what the DCQCN paper's switches and most ASICs
// do) or at dequeue (judged by the bytes it leaves behind as it starts
// transmission, what the HPCC work's simulator does in
// SwitchNode::SwitchNotifyDequeue). The two differ most when a queue
// builds: a packet marked at enqueue tells of a queue that may have
// drained by the time it leaves, and reaches the sender later.
//
// Pure code: the caller supplies the depth and a uniform random word; the
// glue (stages/ecn_stage.h) owns the generator, the depth and the packet.
#pragma once
#include <cstdint>
#include <string>

namespace pfc::sched {

// A WRED profile as the config gives it (SONiC's WRED_PROFILE, green_*).
struct RedProfile {
  std::string name;
  uint64_t min_bytes = 0;   // green_min_threshold (KMIN)
  uint64_t max_bytes = 0;   // green_max_threshold (KMAX)
  double max_prob = 0;      // green_drop_probability / 100 (PMAX)
  bool at_dequeue = false;  // mark_at: dequeue
};

// A profile compiled for the packet path. Default: off (no depth is over it).
class RedQueue {
 public:
  RedQueue() = default;
  explicit RedQueue(const RedProfile& p);

  bool enabled() const { return min_ != kOff; }
  bool at_dequeue() const { return at_dequeue_; }
  // Marking starts above this depth (bytes).
  int64_t min_bytes() const { return min_; }
  // The same for the enqueue path's one test: never reached when the
  // profile marks at dequeue (the bytes are still counted as queued).
  int64_t enqueue_min_bytes() const { return at_dequeue_ ? kOff : min_; }

  // Whether a packet that finds `depth` bytes ahead of it is marked, given
  // `r`, uniform in [0, 2^32). Depths at or below the min never mark, depths
  // above the max always do; no random word is used for either.
  bool Mark(int64_t depth, uint32_t r) const {
    if (depth <= min_) return false;
    if (depth > max_) return true;
    return r < Threshold(depth);
  }
  // Whether the decision at `depth` needs a random word.
  bool NeedsDraw(int64_t depth) const { return depth > min_ && depth <= max_; }
  // The marking probability at `depth` as a fraction of 2^32.
  uint64_t Threshold(int64_t depth) const;

 private:
  static constexpr int64_t kOff = INT64_MAX;
  int64_t min_ = kOff, max_ = kOff;
  // max_prob * 2^32 / (max - min): the threshold per byte above min, 32.32.
  uint64_t slope_ = 0;
  bool at_dequeue_ = false;
};

}  // namespace pfc::sched
