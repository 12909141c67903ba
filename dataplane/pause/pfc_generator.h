// SPDX-License-Identifier: BSD-3-Clause
// PFC generation for one port: a per-priority XOFF/XON state machine over the
// ingress buffer occupancy of each lossless priority group (buffer/
// accountant.h). It decides WHEN a PFC frame must leave the port and WHAT it
// says; pfc_frame.h turns that into bytes, the glue sends it ahead of queued
// data.
//
//   ON  --(occupancy > XOFF)--> OFF: send XOFF (xoff_quanta, default 0xffff)
//   OFF --(occupancy <= XON)--> ON : send XON (quanta 0)
//   OFF, peer told, refresh period elapsed: send a refresh (xoff_quanta again)
// The refresh period is refresh_fraction (default 1/2) of the pause time at
// the port speed, so the peer never resumes on its own while we stay above
// XON. Every priority that needs a frame shares one; when a frame goes out,
// every priority in OFF rides along with a fresh XOFF (a refresh that costs
// nothing and keeps the priorities' refresh times aligned).
//
// Two-phase, so that a frame the device refused is retried: Poll()/Collect()
// only report what to send; MarkSent() records that it left, updating the
// counters and a model of the peer's pause timers (time spent pausing the
// peer). Until MarkSent the same frame is reported again.
//
// Pure and single-threaded: owned by one worker (the one that polls the
// port's occupancy and transmits on it). Time is an argument.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "dataplane/common/deadline.h"
#include "dataplane/pause/pause_timer.h"
#include "dataplane/pause/pfc_frame.h"

namespace pfc::pause {

struct PfcGenConfig {
  uint8_t lossless_mask = 0;      // priorities with PFC enabled
  uint64_t port_bps = 0;          // port speed (the shaper rate when shaped)
  uint16_t xoff_quanta = 0xffff;  // pause time requested by XOFF / refresh
  double refresh_fraction = 0.5;  // refresh after this fraction of the pause time, (0, 1)
  // false: every look compares the group with its current thresholds (a
  // dynamic XOFF point that moves with the free pool can pause or resume a
  // group whose own bytes did not move). true: only a change of the group's
  // own bytes decides, a rise may pause and a fall may resume, as a switch
  // that checks at each enqueue and dequeue (the HPCC simulator's MMU).
  bool on_change = false;
};

// One priority group's level and thresholds, as read from the accountant.
struct PgLevel {
  uint64_t occupancy = 0;
  uint64_t xoff = 0;  // pause when occupancy > xoff
  uint64_t xon = 0;   // resume when occupancy <= xon
};

class PfcGenerator {
 public:
  static constexpr uint64_t kMinRefreshNs = 1000;  // never refresh more often than 1 us

  // Validates and resets. Errors name the field and the accepted range.
  bool Configure(const PfcGenConfig& cfg, std::string* err);
  const PfcGenConfig& config() const { return cfg_; }
  uint64_t refresh_ns() const { return refresh_ns_; }

  // Feeds one priority's current level and thresholds (ignored for priorities
  // not in lossless_mask). State changes only; timing is Collect's business.
  void Observe(int prio, uint64_t occupancy, uint64_t xoff, uint64_t xon);
  // The group is empty and ON (the caller skipped its thresholds): with
  // on_change, its next bytes are a rise from zero.
  void ObserveEmpty(int prio) { last_occ_[prio] = 0; }
  // With on_change, Observe(prio, occupancy, ...) would change nothing
  // whatever the thresholds: the group's bytes are those of its last look
  // (the caller, worker.cc, then skips the look).
  bool Unchanged(int prio, uint64_t occupancy) const {
    return cfg_.on_change && ((cfg_.lossless_mask >> prio) & 1) && occupancy < UINT32_MAX &&
           last_occ_[prio] == occupancy;
  }
  // True when a frame should leave now; *out holds the class-enable vector
  // and quanta. Does not change state (see MarkSent).
  bool Collect(uint64_t now_ns, PauseRequest* out) const;
  // Observe() for every lossless priority, then Collect().
  bool Poll(const std::array<PgLevel, 8>& levels, uint64_t now_ns, PauseRequest* out);
  // The frame *req (from Collect) was handed to the device at now_ns.
  void MarkSent(const PauseRequest& req, uint64_t now_ns);

  // The link went down or came back. Down: the peer forgot our pauses (its
  // timers went with the link), so our model of them ends now. Either way
  // nothing counts as announced, so once the link is up a priority still
  // above XOFF pauses the peer at once instead of at the next refresh.
  void OnLinkChange(bool up, uint64_t now_ns);
  // When the next frame is due if nothing changes: now_ns when one is due
  // already, the earliest refresh time, or kNever. For idle sleeping.
  uint64_t NextDeadline(uint64_t now_ns) const;
  uint8_t off_mask() const { return off_; }  // priorities above XOFF (not yet at XON)
  // Nothing to send now or later: every priority ON and the peer told so.
  // (Collect is false and NextDeadline kNever until an Observe changes it.)
  bool quiet() const { return (off_ | announced_) == 0; }
  uint8_t peer_paused_mask(uint64_t now_ns) const { return peer_.PausedMask(now_ns); }

  uint64_t xoff_sent(int prio) const { return xoff_sent_[prio]; }
  uint64_t xon_sent(int prio) const { return xon_sent_[prio]; }
  uint64_t refresh_sent(int prio) const { return refresh_sent_[prio]; }
  uint64_t frames_sent() const { return frames_sent_; }
  // Time the peer has been paused by our frames, per priority.
  uint64_t pausing_ns(int prio, uint64_t now_ns) const { return peer_.PausedNs(prio, now_ns); }

 private:
  // The state first, then the config: quiet() and a round's first look at
  // a port read the first 48 bytes.
  uint8_t off_ = 0;        // state OFF: occupancy crossed XOFF, not yet back to XON
  uint8_t announced_ = 0;  // the last frame sent for the priority paused it
  uint64_t refresh_ns_ = 0;
  PfcGenConfig cfg_{};
  std::array<uint64_t, 8> last_xoff_ns_{};  // when the last XOFF/refresh left
  std::array<uint32_t, 8> last_occ_{};      // on_change: the group's bytes at the last look
  std::array<uint64_t, 8> xoff_sent_{};
  std::array<uint64_t, 8> xon_sent_{};
  std::array<uint64_t, 8> refresh_sent_{};
  uint64_t frames_sent_ = 0;
  PauseTimer peer_;  // what the peer should be doing, from what we sent
};

}  // namespace pfc::pause
