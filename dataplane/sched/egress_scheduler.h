// SPDX-License-Identifier: BSD-3-Clause
// Per-port egress scheduler over the 8 priority queues: strict priority
// (priority 7 first) or DWRR with byte quanta, gated by PFC pause state and an
// optional token-bucket shaper, so a fast virtual device can stand in for a
// 10/25/40/100G link. Pure code; time is an argument (ns), never read here.
// Owned and used by the single worker that transmits on the port.
//
// DWRR variant: a queue may overdraw its deficit by one packet (the deficit
// goes negative and is repaid in later rounds); this keeps long-run shares
// exact without peeking at head-of-line packet sizes. An empty queue forfeits
// positive credit (it cannot save up while idle) but keeps its debt; a paused
// queue keeps both. Quanta should be at least one MTU so that a queue is
// served on most visits.
//
// Shaper: tokens are bytes, refilled at shaper_bps with exact integer
// arithmetic (the sub-byte remainder is carried, so there is no drift), up to
// shaper_burst. The bucket starts full. The bytes passed to Sent() are what
// the shaper charges: to emulate a wire, the glue should add the per-frame
// overhead it wants counted (e.g. 24 bytes = FCS + preamble + inter-frame gap).
#pragma once
#include <array>
#include <cstdint>

#include "dataplane/common/deadline.h"

namespace pfc::sched {

enum class SchedMode : uint8_t { kStrict, kDwrr };

struct SchedConfig {
  SchedMode mode = SchedMode::kStrict;
  std::array<uint32_t, 8> quantum{};  // DWRR bytes per round; 0 -> kDefaultQuantum
  uint64_t shaper_bps = 0;            // 0 = no shaper (line rate of the device)
  uint32_t shaper_burst = 0;  // token bucket depth, bytes (>= 64 B: a frame may overdraw the
                              // tokens); 0 -> kDefaultShaperBurst
};

class EgressScheduler {
 public:
  static constexpr uint32_t kDefaultQuantum = 1500;
  static constexpr uint32_t kDefaultShaperBurst = 64 * 1024;
  static constexpr uint32_t kMaxShaperBurst = 1u << 30;  // larger depths are clamped

  void Configure(const SchedConfig& cfg, uint64_t now_ns);
  // Next queue to serve: a priority with its bit set in nonempty_mask and
  // clear in paused_mask. Returns -1 when nothing is eligible (*ready_ns = kNever:
  // no shaper wake-up, wait for new packets or a pause expiry); when the
  // shaper is out of tokens also returns -1 and sets *ready_ns (> now_ns) to
  // the first time it will have some. On success *byte_budget is how many
  // bytes may leave this queue now (send at least one packet, then stop once
  // budget is used). ready_ns may be null.
  int Pick(uint8_t nonempty_mask, uint8_t paused_mask, uint64_t now_ns, uint32_t* byte_budget,
           uint64_t* ready_ns);
  // Account bytes actually sent from prio.
  void Sent(int prio, uint32_t bytes, uint64_t now_ns);

  const SchedConfig& config() const { return cfg_; }
  int64_t tokens() const { return tokens_; }  // for tests and telemetry
  int64_t deficit(int prio) const { return deficit_[prio]; }

 private:
  void Refill(uint64_t now_ns);
  int PickDwrr(uint8_t nonempty_mask, uint8_t eligible);
  SchedConfig cfg_{};
  int64_t tokens_ = 0;        // bytes; may dip below 0 by one packet
  uint64_t rem_ = 0;          // credit below one byte, in bit x ns units (< 8e9)
  uint64_t max_elapsed_ = 0;  // refill intervals >= this fill the bucket outright
  uint64_t last_ns_ = 0;
  std::array<int64_t, 8> deficit_{};
  int rr_ = 0;            // DWRR round-robin pointer
  bool in_turn_ = false;  // rr_'s quantum for this visit already added
};

}  // namespace pfc::sched
