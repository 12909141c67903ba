// SPDX-License-Identifier: BSD-3-Clause
// Pause-storm watchdog state machine. See pfcwd.h.
#include "dataplane/pause/pfcwd.h"

namespace pfc::pause {

Pfcwd::Event Pfcwd::Poll(uint64_t now_ns, const PfcwdObservation& o, const PfcwdConfig& cfg) {
  const bool moved = o.tx_packets != last_tx_;
  last_tx_ = o.tx_packets;
  paused_until_ = o.paused_until;
  if (in_storm_) {
    // Packets sent (action forward, or drop emptying the queue) say nothing
    // about the peer: only a quiet peer ends a storm.
    if (o.paused || now_ns < o.paused_until + cfg.restore_ns) return Event::kNone;
    in_storm_ = false;
    storm_ns_ += now_ns - storm_since_;
    stall_since_ = kNever;
    ++restores_;
    return Event::kRestored;
  }
  if (!o.paused || !o.queued || moved) {
    stall_since_ = kNever;
    return Event::kNone;
  }
  if (stall_since_ == kNever) stall_since_ = now_ns;
  if (now_ns - stall_since_ < cfg.detect_ns) return Event::kNone;
  in_storm_ = true;
  storm_since_ = now_ns;
  ++storms_;
  return Event::kDetected;
}

uint64_t Pfcwd::NextDeadline(const PfcwdConfig& cfg) const {
  if (in_storm_) return paused_until_ + cfg.restore_ns;
  return stall_since_ == kNever ? kNever : stall_since_ + cfg.detect_ns;
}

uint64_t Pfcwd::StormNs(uint64_t now_ns) const {
  return storm_ns_ + (in_storm_ && now_ns > storm_since_ ? now_ns - storm_since_ : 0);
}

}  // namespace pfc::pause
