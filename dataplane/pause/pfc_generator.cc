// SPDX-License-Identifier: BSD-3-Clause
// PFC XOFF/XON generator. See pfc_generator.h.
#include "dataplane/pause/pfc_generator.h"

#include <algorithm>
#include <cmath>

namespace pfc::pause {

bool PfcGenerator::Configure(const PfcGenConfig& cfg, std::string* err) {
  auto fail = [&](const std::string& m) {
    if (err) *err = m;
    return false;
  };
  if (cfg.port_bps == 0) return fail("pfc.port_bps = 0: expected the port speed in bits/s (> 0)");
  if (cfg.xoff_quanta == 0)
    return fail("pfc.xoff_quanta = 0: expected 1..65535 (0 would be an XON, not a pause)");
  if (!std::isfinite(cfg.refresh_fraction) || cfg.refresh_fraction <= 0 ||
      cfg.refresh_fraction >= 1)
    return fail("pfc.refresh_fraction = " + std::to_string(cfg.refresh_fraction) +
                ": expected in (0, 1), so the refresh leaves before the peer's pause expires");
  const uint64_t pause_ns = PauseTimer::QuantaToNs(cfg.xoff_quanta, cfg.port_bps);
  const auto refresh = static_cast<uint64_t>(std::floor(pause_ns * cfg.refresh_fraction));
  if (refresh < kMinRefreshNs)
    return fail("pfc.xoff_quanta = " + std::to_string(cfg.xoff_quanta) + " at " +
                std::to_string(cfg.port_bps) + " bit/s pauses for " + std::to_string(pause_ns) +
                " ns; refreshing every " + std::to_string(refresh) +
                " ns would flood the port: expected a refresh period >= 1 us "
                "(raise xoff_quanta or refresh_fraction)");
  *this = PfcGenerator{};
  cfg_ = cfg;
  refresh_ns_ = refresh;
  return true;
}

void PfcGenerator::Observe(int prio, uint64_t occupancy, uint64_t xoff, uint64_t xon) {
  const uint8_t bit = static_cast<uint8_t>(1u << prio);
  if (!(cfg_.lossless_mask & bit)) return;
  if (cfg_.on_change) {
    const uint64_t last = last_occ_[prio];
    last_occ_[prio] = static_cast<uint32_t>(std::min<uint64_t>(occupancy, UINT32_MAX));
    if (occupancy > last) {
      if (!(off_ & bit) && occupancy > xoff) off_ |= bit;
    } else if (occupancy < last) {
      if ((off_ & bit) && occupancy <= xon) off_ &= static_cast<uint8_t>(~bit);
    }
    return;
  }
  if (!(off_ & bit)) {
    if (occupancy > xoff) off_ |= bit;
  } else if (occupancy <= xon) {
    off_ &= static_cast<uint8_t>(~bit);
  }
}

bool PfcGenerator::Collect(uint64_t now_ns, PauseRequest* out) const {
  const uint8_t need_xoff = off_ & static_cast<uint8_t>(~announced_);
  const uint8_t need_xon = announced_ & static_cast<uint8_t>(~off_);
  uint8_t refresh_due = 0;
  for (uint32_t m = off_ & announced_; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (now_ns >= last_xoff_ns_[i] + refresh_ns_) refresh_due |= static_cast<uint8_t>(1u << i);
  }
  if (!(need_xoff | need_xon | refresh_due)) return false;
  out->class_enable = off_ | need_xon;
  for (int i = 0; i < 8; ++i) out->quanta[i] = ((off_ >> i) & 1) ? cfg_.xoff_quanta : 0;
  return true;
}

bool PfcGenerator::Poll(const std::array<PgLevel, 8>& levels, uint64_t now_ns, PauseRequest* out) {
  for (uint32_t m = cfg_.lossless_mask; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    Observe(i, levels[i].occupancy, levels[i].xoff, levels[i].xon);
  }
  return Collect(now_ns, out);
}

void PfcGenerator::MarkSent(const PauseRequest& req, uint64_t now_ns) {
  for (uint32_t m = req.class_enable; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    const uint8_t bit = static_cast<uint8_t>(1u << i);
    if (req.quanta[i] != 0) {
      if (announced_ & bit)
        ++refresh_sent_[i];
      else
        ++xoff_sent_[i];
      announced_ |= bit;
      last_xoff_ns_[i] = now_ns;
    } else {
      ++xon_sent_[i];
      announced_ &= static_cast<uint8_t>(~bit);
    }
  }
  ++frames_sent_;
  peer_.OnFrame(req, now_ns, cfg_.port_bps);
}

void PfcGenerator::OnLinkChange(bool up, uint64_t now_ns) {
  if (!up) peer_.EndAll(now_ns);
  announced_ = 0;
}

uint64_t PfcGenerator::NextDeadline(uint64_t now_ns) const {
  if ((off_ & ~announced_) || (announced_ & ~off_)) return now_ns;
  uint64_t next = kNever;
  for (uint32_t m = off_ & announced_; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    next = std::min(next, std::max(now_ns, last_xoff_ns_[i] + refresh_ns_));
  }
  return next;
}

}  // namespace pfc::pause
