// SPDX-License-Identifier: BSD-3-Clause
// The pause-storm watchdog's event log of a switch (Switch::pfcwd_log):
// storms detected and restored, by (port, priority), for telemetry and the
// fabric's results. The state machines themselves live in each port's
// owner state (switch/port_state.h). Written by the workers that own the
// ports (several when switch.workers > 1), read by anyone: events are rare
// (two a storm; event_log.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/switch/event_log.h"

namespace pfc::sw {

struct PfcwdEvent {
  bool restored = false;  // false: storm detected
  PortId port = 0;
  uint8_t prio = 0;
  uint64_t t_ns = 0;      // when the watchdog decided
  uint64_t since_ns = 0;  // detected: start of the stall; restored: start of the storm
  uint32_t drops = 0;     // detected with action drop: packets discarded at once
};

// One line for logs and telemetry: "storm port=p0 prio=3 t_ns=1201000
// stalled_ns=1000000 drops=12" or "restored port=p0 prio=3 t_ns=... storm_ns=...".
inline std::string PfcwdEventText(const PfcwdEvent& e, const std::string& port) {
  std::string s = e.restored ? "restored" : "storm";
  s += " port=" + port + " prio=" + std::to_string(e.prio) + " t_ns=" + std::to_string(e.t_ns);
  s += (e.restored ? " storm_ns=" : " stalled_ns=") + std::to_string(e.t_ns - e.since_ns);
  if (!e.restored) s += " drops=" + std::to_string(e.drops);
  return s;
}

using PfcwdEventLog = EventLog<PfcwdEvent>;

}  // namespace pfc::sw
