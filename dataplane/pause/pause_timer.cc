// SPDX-License-Identifier: BSD-3-Clause
// Per-port PFC pause timers. See pause_timer.h.
#include "dataplane/pause/pause_timer.h"

#include <algorithm>

namespace pfc::pause {

uint64_t PauseTimer::QuantaToNs(uint16_t quanta, uint64_t port_bps) {
  if (port_bps == 0) return 0;
  // 65535 x 512 x 1e9 = 3.4e16: no overflow in 64 bits.
  const uint64_t bit_ns = uint64_t{quanta} * 512u * 1'000'000'000u;
  return (bit_ns + port_bps - 1) / port_bps;
}

bool PauseTimer::OnFrame(uint8_t class_enable, const std::array<uint16_t, 8>& quanta,
                         uint64_t now_ns, uint64_t port_bps) {
  if (port_bps == 0) return false;
  now_ns = std::max(now_ns, last_now_);
  last_now_ = now_ns;
  for (uint32_t m = class_enable; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    const uint8_t bit = static_cast<uint8_t>(1u << i);
    if (quanta[i] == 0)
      ++xon_rx_[i];
    else
      ++xoff_rx_[i];
    const bool running = (open_ & bit) && until_[i] > now_ns;
    if ((open_ & bit) && !running) {
      // The previous pause expired on its own: close it at its expiry.
      accrued_[i] += until_[i] - start_[i];
      open_ &= static_cast<uint8_t>(~bit);
    }
    if (quanta[i] == 0) {
      if (running) {  // XON: resume now
        accrued_[i] += now_ns - start_[i];
        open_ &= static_cast<uint8_t>(~bit);
        until_[i] = now_ns;
      }
      continue;
    }
    if (!running) {  // a new pause starts now
      start_[i] = now_ns;
      open_ |= bit;
    }
    until_[i] = now_ns + QuantaToNs(quanta[i], port_bps);  // refresh restarts the time
  }
  return true;
}

uint8_t PauseTimer::EndAll(uint64_t now_ns) {
  now_ns = std::max(now_ns, last_now_);
  last_now_ = now_ns;
  uint8_t ended = 0;
  for (uint32_t m = open_; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (until_[i] > now_ns) {
      ended |= static_cast<uint8_t>(1u << i);
      until_[i] = now_ns;
    }
    accrued_[i] += until_[i] - start_[i];
  }
  open_ = 0;
  return ended;
}

uint8_t PauseTimer::PausedMask(uint64_t now_ns) const {
  uint8_t mask = 0;
  for (uint32_t m = open_; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (until_[i] > now_ns) mask |= static_cast<uint8_t>(1u << i);
  }
  return mask;
}

uint64_t PauseTimer::NextExpiry(uint64_t now_ns) const {
  uint64_t next = kNever;
  for (uint32_t m = open_; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (until_[i] > now_ns) next = std::min(next, until_[i]);
  }
  return next;
}

uint64_t PauseTimer::PausedNs(int prio, uint64_t now_ns) const {
  uint64_t t = accrued_[prio];
  if ((open_ >> prio) & 1) {
    const uint64_t end = std::min(std::max(now_ns, start_[prio]), until_[prio]);
    t += end - start_[prio];
  }
  return t;
}

}  // namespace pfc::pause
