// SPDX-License-Identifier: BSD-3-Clause
// The real clock's run (real_clock.h).
#include "dataplane/emulator/runtime/real_clock.h"

#include <rte_launch.h>
#include <rte_lcore.h>

#include <chrono>
#include <thread>

#include "dataplane/stages/worker.h"
#include "dataplane/switch/link_watch.h"
#include "dataplane/switch/log.h"

namespace pfc::emulator {

RealClock::RealClock(Fabric& fab) : Clock(fab, /*exact=*/false) {
  sw::Dataplane& dp = fab.dp();
  std::vector<SwitchRun>& sws = fab.switches();
  workers_.resize(dp.workers);
  for (unsigned w = 0; w < dp.workers; w++) {
    workers_[w].dp = &dp;
    workers_[w].id = w;
  }
  for (size_t i = 0; i < sws.size(); i++) {
    const unsigned w = static_cast<unsigned>(i % dp.workers);
    workers_[w].slots.push_back(stages::MakeWorkerCtx(*sws[i].sw, w));
  }
  timeline_.ApplyDue(fab, 0, nullptr);
  dp.epoch_ns = dp.NowNs();  // nothing has read the clock yet
}

uint64_t RealClock::Run(const std::atomic<int>& stop) {
  sw::Dataplane& dp = fab_.dp();
  const uint64_t duration_ns = fab_.spec().duration_ns;
  unsigned w = 0, lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) {
    if (w == workers_.size()) break;
    rte_eal_remote_launch(stages::WorkerMain, &workers_[w++], lcore);
  }
  // The real hosts' device ports: their links watched as pfcswitch watches
  // its own (switch/link_watch.h), every 100 ms.
  std::vector<sw::LinkWatch> links;
  for (const SwitchRun& s : fab_.switches()) links.emplace_back(*s.sw);
  uint64_t next_watch_ns = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    now_ = dp.NowNs();  // 0 when the clock was made (Dataplane::epoch_ns)
    if (duration_ns != 0 && now_ >= duration_ns) break;
    if (now_ >= next_watch_ns) {
      next_watch_ns = now_ + 100'000'000;
      for (sw::LinkWatch& lw : links)
        for (const std::string& line : lw.Poll())
          PFC_LOG(INFO, fabric, "pfcfabric: %s\n", line.c_str());
    }
    timeline_.ApplyDue(fab_, now_, nullptr);
    Deadline soonest = kNever;
    for (Host& h : fab_.hosts()) LowerTo(&soonest, h.Round(dp, now_));
    Sample(now_);
    // Hosts run on this thread: spin while something is due within 20 us,
    // otherwise yield the core to the workers briefly.
    if (soonest == kNever || soonest > now_ + 20'000)
      std::this_thread::sleep_for(std::chrono::microseconds(10));
  }
  stopped_by_ = stop.load(std::memory_order_relaxed);
  Finish();
  // DCFIT's events, without the loops: the workers own the switches' state.
  ListDcfitSwitches();
  for (size_t i = 0; i < fab_.switches().size(); i++)
    dcfit_.Take(dcfit_sws_, fab_.plan(), i, false);
  dp.stop.store(true);
  rte_eal_mp_wait_lcore();
  return rounds_;
}

}  // namespace pfc::emulator
