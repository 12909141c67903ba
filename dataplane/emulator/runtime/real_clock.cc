// SPDX-License-Identifier: BSD-3-Clause
// Fabric: the real clock. The switches run on worker lcores as pfcswitch's
// do; this thread runs the hosts, the timeline and the recorder.
#include <chrono>
#include <thread>

#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/switch/link_watch.h"
#include "dataplane/switch/log.h"

namespace pfc::emulator {

void Fabric::RunReal(const std::atomic<bool>& stop) {
  const std::vector<EventSpec>& ev = spec_.events;
  // The real hosts' device ports: their links watched as pfcswitch watches
  // its own (switch/link_watch.h), every 100 ms.
  std::vector<sw::LinkWatch> links;
  for (const SwitchRun& s : switches_) links.emplace_back(*s.sw);
  uint64_t next_watch_ns = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    now_ = dp_->NowNs();  // 0 at Create (Dataplane::epoch_ns)
    if (spec_.duration_ns != 0 && now_ >= spec_.duration_ns) break;
    if (now_ >= next_watch_ns) {
      next_watch_ns = now_ + 100'000'000;
      for (sw::LinkWatch& lw : links)
        for (const std::string& line : lw.Poll())
          PFC_LOG(INFO, fabric, "pfcfabric: %s\n", line.c_str());
    }
    while (next_event_ < ev.size() && ev[next_event_].at_ns <= now_)
      ApplyEvent(ev[next_event_++], now_);
    Deadline soonest = kNever;
    for (Host& h : hosts_) LowerTo(&soonest, h.Round(*dp_, now_));
    Sample(now_);
    // Hosts run on this thread: spin while something is due within 20 us,
    // otherwise yield the core to the workers briefly.
    if (soonest == kNever || soonest > now_ + 20'000)
      std::this_thread::sleep_for(std::chrono::microseconds(10));
  }
  PrintEvents();
  ReleaseSpares();
  // DCFIT's events, without the loops: the workers own the switches' state.
  dcfit_sws_.clear();
  for (const SwitchRun& s : switches_) dcfit_sws_.push_back(s.sw.get());
  for (size_t i = 0; i < switches_.size(); i++) dcfit_.Take(dcfit_sws_, plan_, i, false);
}

}  // namespace pfc::emulator
