// SPDX-License-Identifier: BSD-3-Clause
// What a pipeline mechanism (stages/mechanism.h: the pause-storm watchdog,
// DCFIT, ECN marking) keeps for a switch, and for each worker that serves
// it, in slots the switch and the worker do not name: slot i belongs to the
// i-th mechanism in their sorted order, which makes and reads its own state
// type. Switch::mech and WorkerCtx::mech only own and free it.
//
// Threads: made on the main thread before any worker runs the switch
// (stages::MakeWorkerCtx); what is inside says who writes what; a worker's
// slots are that worker's alone.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pfc::sw {

class Switch;

// Names a port of any switch by the numbers a mechanism's messages carry
// (log.h: DcfitNamer).
using PortNamer = std::function<std::string(uint64_t switch_id, uint64_t port)>;

struct MechanismState {
  virtual ~MechanismState() = default;
  // The control thread's EventPrinter (log.h): prints the events added
  // since *seen (and advances it), one line each; `namer` names ports of
  // other switches. Nothing for a mechanism without events.
  virtual void PrintEvents(const Switch& /*sw*/, uint64_t* /*seen*/,
                           const PortNamer& /*namer*/) const {}
  // Its own counters for a switch's report (the fabric's results.json
  // entry for the switch, beside the switch's counters): the section's
  // name, and (name, value) pairs; nothing for a mechanism whose counters
  // are all the switch's (stats.h). Any thread; read while the workers run.
  using Counters = std::vector<std::pair<const char*, uint64_t>>;
  virtual const char* ReportCounters(Counters* /*out*/) const { return nullptr; }
};

inline constexpr int kMaxMechanisms = 8;
using MechanismSlots = std::array<std::unique_ptr<MechanismState>, kMaxMechanisms>;

}  // namespace pfc::sw
