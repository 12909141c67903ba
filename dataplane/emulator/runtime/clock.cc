// SPDX-License-Identifier: BSD-3-Clause
// What both clocks share (clock.h), and the choice between them.
#include "dataplane/emulator/runtime/clock.h"

#include "dataplane/emulator/runtime/env_switch.h"
#include "dataplane/emulator/runtime/real_clock.h"
#include "dataplane/emulator/runtime/virtual_clock.h"

namespace pfc::emulator {

Clock::Clock(Fabric& fab, bool exact) : fab_(fab), timeline_(fab.spec()), logs_(fab) {
  rec_.Init(fab, exact);
  qlen_.Init(fab);
}

void Clock::Sample(uint64_t now) {
  if (now >= rec_.next_ns()) {  // at most once a sample bin
    logs_.Print(fab_);
    if (on_bin) on_bin(now);
  }
  rec_.Sample(now);
}

void Clock::Finish() {
  fab_.FlushCaptures(kNever);  // what the virtual clock still held
  qlen_.Finish(fab_, now_);
  logs_.Print(fab_);
  fab_.ReleaseSpares();
}

void Clock::ListDcfitSwitches() {
  dcfit_sws_.clear();
  for (const SwitchRun& s : fab_.switches()) dcfit_sws_.push_back(s.sw.get());
}

bool TimeOrderSettingOk(std::string* err) {
  return EnvSwitchOk("PFCFABRIC_TIME_ORDER",
                     "a window one switch or host at a time where that gives the same results, "
                     "the default",
                     "always in time order", err);
}

bool TimeOrderAsked() { return EnvSwitchIs("PFCFABRIC_TIME_ORDER", "1"); }

bool EveryPortSettingOk(std::string* err) {
  return EnvSwitchOk("PFCFABRIC_EVERY_PORT",
                     "a switch round visits the ports with something to do, the default",
                     "every port, every round", err);
}

bool EveryPortAsked() { return EnvSwitchIs("PFCFABRIC_EVERY_PORT", "1"); }

std::unique_ptr<Clock> MakeClock(Fabric& fab) {
  if (fab.virtual_clock()) return std::make_unique<VirtualClock>(fab);
  return std::make_unique<RealClock>(fab);
}

}  // namespace pfc::emulator
