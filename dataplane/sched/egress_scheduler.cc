// SPDX-License-Identifier: BSD-3-Clause
// Egress scheduler: strict priority / DWRR pick and the token-bucket shaper.
// See egress_scheduler.h.
#include "dataplane/sched/egress_scheduler.h"

#include <algorithm>

namespace pfc::sched {
namespace {
// One byte of credit is 8 bits x 1e9 ns/s: refill = elapsed_ns x bps / kUnit.
constexpr uint64_t kUnit = 8'000'000'000ull;
}  // namespace

void EgressScheduler::Configure(const SchedConfig& cfg, uint64_t now_ns) {
  cfg_ = cfg;
  for (auto& q : cfg_.quantum)
    if (q == 0) q = kDefaultQuantum;
  if (cfg_.shaper_bps) {
    if (cfg_.shaper_burst == 0) cfg_.shaper_burst = kDefaultShaperBurst;
    cfg_.shaper_burst = std::min(cfg_.shaper_burst, kMaxShaperBurst);
    // elapsed x bps + rem_ must not wrap; any interval this long refills
    // > 2^64 / 8e9 (= 2.3 GB) of credit, more than the deepest bucket.
    max_elapsed_ = (~uint64_t{0} - kUnit) / cfg_.shaper_bps;
  }
  tokens_ = cfg_.shaper_burst;
  rem_ = 0;
  last_ns_ = now_ns;
  deficit_.fill(0);
  rr_ = 0;
  in_turn_ = false;
}

void EgressScheduler::Refill(uint64_t now_ns) {
  if (now_ns <= last_ns_) return;  // same instant, or a clock that stepped back
  const uint64_t el = now_ns - last_ns_;
  last_ns_ = now_ns;
  if (el >= max_elapsed_) {
    tokens_ = cfg_.shaper_burst;
    rem_ = 0;
    return;
  }
  const uint64_t credit = el * cfg_.shaper_bps + rem_;
  tokens_ += static_cast<int64_t>(credit / kUnit);
  rem_ = credit % kUnit;
  if (tokens_ >= static_cast<int64_t>(cfg_.shaper_burst)) {
    tokens_ = cfg_.shaper_burst;
    rem_ = 0;
  }
}

int EgressScheduler::Pick(uint8_t nonempty_mask, uint8_t paused_mask, uint64_t now_ns,
                          uint32_t* byte_budget, uint64_t* ready_ns) {
  const uint8_t eligible = nonempty_mask & static_cast<uint8_t>(~paused_mask);
  if (!eligible) {
    if (ready_ns) *ready_ns = kNever;
    return -1;
  }
  int64_t budget = 0xffffffff;
  if (cfg_.shaper_bps) {
    Refill(now_ns);
    if (tokens_ <= 0) {
      // Credit needed to reach one whole byte, minus the fraction carried.
      const uint64_t need = static_cast<uint64_t>(1 - tokens_) * kUnit - rem_;
      if (ready_ns) *ready_ns = now_ns + (need + cfg_.shaper_bps - 1) / cfg_.shaper_bps;
      return -1;
    }
    budget = tokens_;
  }
  int q;
  if (cfg_.mode == SchedMode::kStrict) {
    q = 31 - __builtin_clz(eligible);
  } else {
    q = PickDwrr(nonempty_mask, eligible);
    budget = std::min(budget, deficit_[q]);
  }
  *byte_budget = static_cast<uint32_t>(std::min<int64_t>(budget, 0xffffffff));
  return q;
}

int EgressScheduler::PickDwrr(uint8_t nonempty_mask, uint8_t eligible) {
  bool forwarded = false;
  for (int visits = 0;; ++visits) {
    const int q = rr_;
    if ((eligible >> q) & 1) {
      if (!in_turn_) {
        deficit_[q] += cfg_.quantum[q];
        in_turn_ = true;
      }
      if (deficit_[q] > 0) return q;
    } else if (!((nonempty_mask >> q) & 1) && deficit_[q] > 0) {
      deficit_[q] = 0;  // idle queues do not save up credit
    }
    in_turn_ = false;
    rr_ = (rr_ + 1) & 7;
    if (visits == 7 && !forwarded) {
      // A whole round and every eligible queue is still repaying debt (large
      // packets against small quanta). Skip the k-1 further rounds in which
      // nobody would turn positive, in O(8) instead of looping k times.
      int64_t k = INT64_MAX;
      for (int i = 0; i < 8; ++i)
        if ((eligible >> i) & 1)
          k = std::min<int64_t>(k, (1 - deficit_[i] + cfg_.quantum[i] - 1) / cfg_.quantum[i]);
      for (int i = 0; i < 8; ++i)
        if ((eligible >> i) & 1) deficit_[i] += (k - 1) * cfg_.quantum[i];
      forwarded = true;
    } else if (visits > 16) {
      // Unreachable: the pass after the fast-forward always finds a queue.
      // Kept so that a logic error can never spin the worker forever.
      return __builtin_ctz(eligible);
    }
  }
}

void EgressScheduler::Sent(int prio, uint32_t bytes, uint64_t now_ns) {
  if (cfg_.shaper_bps) {
    Refill(now_ns);
    tokens_ -= bytes;
  }
  if (cfg_.mode == SchedMode::kDwrr) deficit_[prio] -= bytes;
}

}  // namespace pfc::sched
