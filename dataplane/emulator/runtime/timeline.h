// SPDX-License-Identifier: BSD-3-Clause
// The fabric file's timeline (spec/fabric_spec.h events: links down and
// up, routes, rules, flows started and stopped, hosts' faults), applied to
// the fabric by either clock at the events' times and logged
// (results.json "events").
//
// Applying an event writes the fabric (a link's state, a switch's tables, a
// host's model), so the timeline takes it writable; the clock calls it on
// the thread that owns what an event touches at that time (the virtual
// clock's main thread at a window boundary, every partition stopped; the
// real clock's main thread, which owns the hosts and asks the workers for
// link changes).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/spec/fabric_spec.h"

namespace pfc::emulator {

class Timeline {
 public:
  explicit Timeline(const FabricSpec& spec) : events_(spec.events) {}
  // The next event's time; kNever when none is left.
  uint64_t next_ns() const { return next_ < events_.size() ? events_[next_].at_ns : kNever; }
  // The clock's part in an event: `wake(id, now)` makes what the event
  // changed (Fabric::HostId numbering) run at its time. Without one (the
  // real clock, where everything runs continually), a link's new state is
  // a request its end's owner applies.
  using Wake = std::function<void(uint32_t id, uint64_t now)>;
  // Applies, in order, every event due by now.
  void ApplyDue(Fabric& fab, uint64_t now, const Wake& wake) {
    while (next_ < events_.size() && events_[next_].at_ns <= now)
      Apply(fab, events_[next_++], now, wake);
  }
  // "0.000000 ms: link L1-S1 down" and the like, one line an event applied.
  const std::vector<std::string>& log() const { return log_; }

 private:
  void Apply(Fabric& fab, const EventSpec& e, uint64_t now, const Wake& wake);
  void SetLink(Fabric& fab, uint32_t a, uint32_t b, bool up, uint64_t now, const Wake& wake);

  const std::vector<EventSpec>& events_;  // sorted by time
  size_t next_ = 0;
  std::vector<std::string> log_;
};

}  // namespace pfc::emulator
