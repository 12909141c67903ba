// SPDX-License-Identifier: BSD-3-Clause
// Per-port egress scheduler over the 8 priority queues: strict priority
// (priority 7 first) or DWRR with byte quanta, gated by PFC pause state and an
// optional token-bucket shaper, so a fast virtual device can stand in for a
// 10/25/40/100G link. Pure code; time is an argument (ns), never read here.
// Owned and used by the single worker that transmits on the port.
//
// DWRR variant: a queue may overdraw its deficit by one burst (the deficit
// goes negative and is repaid in later rounds); this keeps long-run shares
// exact without peeking at head-of-line packet sizes.
#pragma once
#include <array>
#include <cstdint>

namespace pfc {

enum class SchedMode : uint8_t { kStrict, kDwrr };

struct SchedConfig {
  SchedMode mode = SchedMode::kStrict;
  std::array<uint32_t, 8> quantum{};   // DWRR bytes per round; 0 -> default 1500... validated by config
  uint64_t shaper_bps = 0;             // 0 = no shaper (line rate of the device)
  uint32_t shaper_burst = 0;           // token bucket depth, bytes (>= one MTU)
};

class EgressScheduler {
 public:
  void Configure(const SchedConfig& cfg, uint64_t now_ns);
  // Next queue to serve: a priority with its bit set in nonempty_mask and
  // clear in paused_mask. Returns -1 when nothing is eligible; when the shaper
  // is out of tokens also returns -1 and sets *ready_ns to when it will have
  // some. On success *byte_budget is how many bytes may leave this queue now
  // (send at least one packet, then stop once budget is used).
  int Pick(uint8_t nonempty_mask, uint8_t paused_mask, uint64_t now_ns,
           uint32_t* byte_budget, uint64_t* ready_ns);
  // Account bytes actually sent from prio.
  void Sent(int prio, uint32_t bytes, uint64_t now_ns);

  const SchedConfig& config() const { return cfg_; }

 private:
  void Refill(uint64_t now_ns);
  SchedConfig cfg_{};
  int64_t tokens_ = 0;           // bytes; may dip below 0 by one packet
  uint64_t last_ns_ = 0;
  std::array<int64_t, 8> deficit_{};
  int rr_ = 0;                   // DWRR round-robin pointer
};

}  // namespace pfc
