// SPDX-License-Identifier: BSD-3-Clause
// PFC response state of one port: for each of the 8 priorities, until when
// the peer has asked us to stop sending it (IEEE 802.1Qbb: quanta x 512 bit
// times at the port speed; a refresh restarts the time, quanta 0 resumes at
// once), plus how long each priority has been paused in total and how many
// XOFF / XON requests arrived. The egress scheduler takes PausedMask(now) as
// its paused_mask; NextExpiry() tells an idle worker how long it may sleep.
//
// Pure and single-threaded: owned by the worker that owns the port, which
// both receives the pause frames and transmits on the port (a port's rx and
// tx are never split between workers, switch/switch.h), so no message
// passing is involved. Time is always an argument, so tests use a virtual
// clock. Time must not go backwards between calls (earlier times are treated
// as the latest one seen).
#pragma once
#include <array>
#include <cstdint>

#include "dataplane/common/deadline.h"
#include "dataplane/pause/pfc_frame.h"

namespace pfc::pause {

class PauseTimer {
 public:
  // Pause duration of `quanta` at port_bps, rounded up to whole ns (a pause
  // is never shortened). 0xffff quanta at 10 Gb/s = 3,355,392 ns.
  static uint64_t QuantaToNs(uint16_t quanta, uint64_t port_bps);

  // Applies a received PFC/PAUSE request that arrived at now_ns. port_bps is
  // the port speed (the shaper rate when the port is shaped). Returns false,
  // changing nothing, when port_bps is 0 (the glue counts it as malformed).
  bool OnFrame(uint8_t class_enable, const std::array<uint16_t, 8>& quanta, uint64_t now_ns,
               uint64_t port_bps);
  bool OnFrame(const PauseRequest& r, uint64_t now_ns, uint64_t port_bps) {
    return OnFrame(r.class_enable, r.quanta, now_ns, port_bps);
  }

  // Priorities paused at now_ns (bit i = priority i).
  uint8_t PausedMask(uint64_t now_ns) const;
  // The priorities with an interval not yet closed: none, and nothing is
  // paused (PausedMask 0) and nothing expires (NextExpiry kNever).
  uint8_t open_mask() const { return open_; }
  // End of priority's current pause (<= now when not paused).
  uint64_t PausedUntil(int prio) const { return until_[prio]; }
  // Earliest pause end after now_ns, or kNever when nothing is paused.
  uint64_t NextExpiry(uint64_t now_ns) const;
  // Total time priority has spent paused up to now_ns (closed intervals plus
  // the running one, cut at its expiry).
  uint64_t PausedNs(int prio, uint64_t now_ns) const;

  uint64_t xoff_received(int prio) const { return xoff_rx_[prio]; }  // quanta > 0
  uint64_t xon_received(int prio) const { return xon_rx_[prio]; }    // quanta == 0
  void Reset() { *this = PauseTimer{}; }
  // The link went down: every running pause ends now (a port forgets the
  // pause it received when its link drops, as a real MAC does), as an XON
  // would end it but without counting one. Returns the priorities it ended.
  uint8_t EndAll(uint64_t now_ns);

 private:
  // What PausedMask and NextExpiry read (every egress round) first.
  uint8_t open_ = 0;  // priorities with an interval not yet closed
  uint64_t last_now_ = 0;
  std::array<uint64_t, 8> until_{};    // the current/last pause interval's end (may be past)
  std::array<uint64_t, 8> start_{};    // start of the current/last pause interval
  std::array<uint64_t, 8> accrued_{};  // closed intervals
  std::array<uint64_t, 8> xoff_rx_{};
  std::array<uint64_t, 8> xon_rx_{};
};

}  // namespace pfc::pause
