// SPDX-License-Identifier: BSD-3-Clause
// How the emulator advances time (ns-3's simulator implementations): a
// clock runs a built fabric (fabric.h) from 0 to the file's duration,
// applying the timeline's events (timeline.h) at their times, taking the
// recorder's samples (recorder.h), printing the switches' events
// (switch_logs.h) and following DCFIT's (dcfit_report.h). Two
// implementations, chosen by the file's fabric.clock (MakeClock):
//  * virtual_clock.h: one thread, or partitions in windows (--threads),
//    jumps from one thing due to the next; deterministic, byte for byte;
//  * real_clock.h: the switches on EAL worker lcores, as pfcswitch runs
//    them, the hosts and the timeline on the calling thread.
// Run is the one virtual call a run: what runs inside it (the virtual
// clock's windows, switch and host rounds) calls nothing through this
// interface.
//
// Ownership: the clock borrows the fabric, which must outlive it; it owns
// what a run records, which the results and the verdict read after Run
// (results.h, verdict.h). Run and the construction on one thread (EAL's
// main lcore).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/emulator/runtime/dcfit_report.h"
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/runtime/qlen_monitor.h"
#include "dataplane/emulator/runtime/recorder.h"
#include "dataplane/emulator/runtime/switch_logs.h"
#include "dataplane/emulator/runtime/timeline.h"
#include "dataplane/emulator/runtime/window_times.h"

namespace pfc::emulator {

class Clock {
 public:
  virtual ~Clock() = default;
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;

  // Runs the fabric to the file's duration or until `stop` is not 0 (the
  // signal that asked), if sooner; the real clock runs until `stop` with a
  // duration of 0. Returns the switch rounds run (the virtual clock; 0 on
  // the real one, whose workers do not count them).
  virtual uint64_t Run(const std::atomic<int>& stop) = 0;
  // The virtual clock's window with --threads; kNever otherwise.
  virtual uint64_t lookahead_ns() const { return kNever; }
  // Windows whose rounds run one entity at a time are at most this long
  // (virtual_clock.h); kNever: rounds run in time order.
  virtual uint64_t entity_window_ns() const { return kNever; }
  // Over MPI ranks: frames from other ranks this one found no mbuf for
  // (the machine's memory ran out), dropped.
  virtual uint64_t rank_frames_dropped() const { return 0; }
  // With --threads: where each thread's time went (empty otherwise).
  virtual const WindowTimes& window_times() const {
    static const WindowTimes kNone;
    return kNone;
  }

  // What the run recorded: where it ended, the switch rounds, the events
  // applied, the samples, DCFIT's events.
  uint64_t now_ns() const { return now_; }
  // The signal Run's `stop` said ended the run (over MPI ranks, the one any
  // rank got: all stop at the same window); 0: it was not stopped.
  int stopped_by() const { return stopped_by_; }
  uint64_t rounds() const { return rounds_; }
  const Timeline& timeline() const { return timeline_; }
  const Recorder& recorder() const { return rec_; }
  const DcfitReport& dcfit() const { return dcfit_; }
  const QlenMonitor& qlen() const { return qlen_; }

  // Called by the thread that runs the clock at each sample bin's boundary
  // (pfcfabric's progress line); must not touch the fabric.
  std::function<void(uint64_t now_ns)> on_bin;

 protected:
  // exact: the recorder reads pause state from the ports' owner state
  // (the virtual clock, whose thread owns it at a sample).
  Clock(Fabric& fab, bool exact);
  // Both clocks, once a loop: the recorder's samples due by now, and at a
  // sample bin's boundary the switches' new events printed.
  void Sample(uint64_t now);
  // The end of a run (now_ its last instant): the queue monitor's last
  // instants, the switches' last events printed, the hosts' spare mbufs
  // back to the pool.
  void Finish();
  // The switches as DCFIT's report reads them, refreshed at a run's start.
  void ListDcfitSwitches();

  Fabric& fab_;
  Timeline timeline_;
  Recorder rec_;
  QlenMonitor qlen_;  // monitor.qlen: the virtual clock's rounds feed it
  SwitchLogs logs_;
  DcfitReport dcfit_;
  std::vector<const sw::Switch*> dcfit_sws_;  // fab_.switches()[i].sw, for dcfit_
  uint64_t now_ = 0;
  uint64_t rounds_ = 0;
  int stopped_by_ = 0;
};

// The clock fab's file asks for (fabric.clock), set up over it. After
// BuildFabric, before anything runs.
std::unique_ptr<Clock> MakeClock(Fabric& fab);

// PFCFABRIC_TIME_ORDER: unset or 0, the virtual clock runs a window one
// entity at a time where that gives the same rounds (virtual_clock.h); 1,
// always in time order. Anything else is refused before the run (err).
bool TimeOrderSettingOk(std::string* err);
bool TimeOrderAsked();
// PFCFABRIC_EVERY_PORT (a test switch, tests/fabric/scale_test.py): unset or
// 0, a virtual clock's switch rounds visit the ports with something to do;
// 1, every port. Anything else is refused before the run (err).
bool EveryPortSettingOk(std::string* err);
bool EveryPortAsked();

}  // namespace pfc::emulator
