// SPDX-License-Identifier: BSD-3-Clause
// The pause-storm watchdog's state for a switch (its slot of the switch,
// switch/mechanism_state.h; stages/pfcwd_stage.h): per port, its settings
// and state machines, which only the port's owner touches; and its event
// log, storms detected and restored by (port, priority), for telemetry and
// the fabric's results, written by the workers that own the ports (several
// when switch.workers > 1), read by anyone: events are rare (two a storm;
// event_log.h).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/pause/pfcwd.h"
#include "dataplane/switch/event_log.h"
#include "dataplane/switch/mechanism_state.h"

namespace pfc::stages {

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

using PfcwdEventLog = sw::EventLog<PfcwdEvent>;

// The watchdog of one port: its settings (pfc_watchdog and the port's
// override), one state machine per priority (lossless ones used), the
// priorities whose watch is running (a stall or a storm) and those in
// storm. Only the port's owner reads and writes it; kWorkerAlign-aligned,
// as ports of different workers sit side by side.
struct alignas(kWorkerAlign) PortWatch {
  pause::PfcwdConfig cfg;
  std::array<pause::Pfcwd, kNumPrio> wd;
  uint8_t active = 0;
  uint8_t storm = 0;
};

struct PfcwdState final : sw::MechanismState {
  std::vector<PortWatch> port;
  PfcwdEventLog log;
  // The log's new events, one line each on pfc.pfcwd (switch/log.h).
  void PrintEvents(const sw::Switch& sw, uint64_t* seen, const sw::PortNamer&) const override;
};

}  // namespace pfc::stages
