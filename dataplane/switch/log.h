// SPDX-License-Identifier: BSD-3-Clause
// Logging through DPDK's log types, one per module, so a user sets levels
// from the command line like any DPDK application's:
//   --log-level=pfc.dcfit:warning   (quiet DCFIT's event lines)
//   --log-level='pfc.*:debug'
// Types: pfc.switch (set-up notes), pfc.worker (worker lifecycle),
// pfc.dcfit and pfc.pfcwd (their events), pfc.fabric (the emulator's
// timeline). Lines keep the programs' own prefixes ("pfcswitch: ...").
//
// Workers never print: a feature's worker adds its event to the switch's
// event log (event_log.h) and the control thread prints what is new with
// an EventPrinter (pfcswitch's main loop, the fabric's run loops), so a
// storm of events costs a worker a mutex, never a write(2).
#pragma once
#include <rte_log.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "dataplane/switch/mechanism_state.h"

namespace pfc::sw {

extern int pfc_logtype_switch;
extern int pfc_logtype_worker;
extern int pfc_logtype_dcfit;
extern int pfc_logtype_pfcwd;
extern int pfc_logtype_fabric;

#define PFC_LOG(level, module, ...) \
  rte_log(RTE_LOG_##level, ::pfc::sw::pfc_logtype_##module, __VA_ARGS__)

class Switch;

// Names a port of any switch of a DCFIT episode (switch IDs are numbers on
// the wire): the fabric knows every switch ("L2 port S1"); a lone switch
// knows its own ports ("this switch port p0") and numbers the others
// ("switch 12 port 3"), which is what OwnDcfitNamer gives.
using DcfitNamer = PortNamer;
DcfitNamer OwnDcfitNamer(const Switch& sw);

// Prints a switch's new DCFIT and pause-storm events (pfc.dcfit,
// pfc.pfcwd, INFO), one line each: "pfcswitch: dcfit[S2]: deadlock ...".
// One per switch, owned by the control thread; `namer` as above (default:
// OwnDcfitNamer).
class EventPrinter {
 public:
  void Print(const Switch& sw);
  DcfitNamer namer;

 private:
  std::array<uint64_t, kMaxMechanisms> mech_seen_{};  // by mechanism slot
};

// One event line, "pfcswitch: <module>: text" for a lone switch,
// "pfcswitch: <module>[S2]: text" in a fabric, on log type `type`.
void EventLine(int type, const Switch& sw, const char* module, const std::string& text);

}  // namespace pfc::sw
