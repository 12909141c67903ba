// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/runtime/recorder.h"

namespace pfc::emulator {

void Recorder::Init(const Fabric& fab, bool exact) {
  sw_.clear();
  for (const SwitchRun& s : fab.switches()) sw_.push_back(s.sw.get());
  links_.clear();
  if (exact)
    fab.ForEachLinkEnd([&](uint32_t, uint16_t, const EmuPort& e) { links_.push_back(&e); });
  total_ = {};
  drops_.clear();
  bin_ns_ = fab.spec().bin_ns;
  start_ns_ = fab.spec().series_start_ns;
  exact_ = exact;
  // From 0 every counter is 0: no baseline to take (and no stop at 0).
  next_ns_ = start_ns_ != 0 ? start_ns_ : bin_ns_;
  last_ns_ = start_ns_;
  size_t n = 0;
  for (const sw::Switch* s : sw_) n += s->ports.size() * kNumPrio;
  last_tx_.assign(n, 0);
}

void Recorder::Sample(uint64_t now_ns) {
  while (next_ns_ <= now_ns) {
    // Only the first sample is at start_ns_ (the next are a bin on).
    const bool baseline = start_ns_ != 0 && next_ns_ == start_ns_;
    if (!exact_ && !baseline)
      next_ns_ += (now_ns - next_ns_) / bin_ns_ * bin_ns_;  // the last boundary
    const uint64_t t = next_ns_;
    const uint64_t span = t - last_ns_;
    last_ns_ = t;
    size_t flat = 0;
    DropSample now{t, 0, 0, 0};
    for (const EmuPort* e : links_) now.link_down += e->counters().rx_stale + e->counters().tx_down;
    for (uint16_t s = 0; s < sw_.size(); ++s) {
      const sw::Switch& sw = *sw_[s];
      const uint8_t keep =
          static_cast<uint8_t>(sw.cfg.tag_map.lossless_mask | 1u << sw.cfg.tag_map.lossy_prio);
      for (uint16_t p = 0; p < sw.ports.size(); ++p) {
        const sw::PortOwnerState& os = *sw.ports[p].owner_state;
        for (uint8_t q = 0; q < kNumPrio; ++q, ++flat) {
          uint64_t tx = 0, paused = 0, pausing = 0, dropped = 0;
          for (const auto& w : sw.stats) {
            tx += w->prio[p][q].tx_bytes.Get();
            paused += w->prio[p][q].paused_now.Get();
            pausing += w->prio[p][q].pausing_now.Get();
            for (const sw::Counter& d : w->prio[p][q].drops) dropped += d.Get();
          }
          (sw.cfg.tag_map.IsLossless(q) ? now.lossless : now.lossy) += dropped;
          if (exact_) {
            paused = os.pause.PausedMask(t) >> q & 1;
            pausing = os.pfc_gen.peer_paused_mask(t) >> q & 1;
          }
          const uint64_t delta = tx - last_tx_[flat];
          last_tx_[flat] = tx;
          if (baseline || !(keep >> q & 1)) continue;
          rows_.push_back({t, s, p, q, static_cast<uint8_t>(paused != 0),
                           static_cast<uint8_t>(pausing != 0), sw.buffer.occupancy(p, q), delta,
                           span});
        }
      }
    }
    if (!baseline)
      drops_.push_back({t, now.lossless - total_.lossless, now.lossy - total_.lossy,
                        now.link_down - total_.link_down});
    total_ = now;
    next_ns_ += bin_ns_;
  }
}

}  // namespace pfc::emulator
