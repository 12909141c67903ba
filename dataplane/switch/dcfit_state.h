// SPDX-License-Identifier: BSD-3-Clause
// A switch's DCFIT state (Switch::dcfit; nullptr when dcfit.enabled is
// false): the pure detector (dataplane/dcfit/detector.h, which owns the
// causality structure) and what the glue (stages/dcfit_stage.h) keeps beside
// it.
//
// Threads: everything but `log` has a single writer, the one worker that
// runs the whole switch (config requires switch.workers: 1 with DCFIT on,
// and the fabric pins each switch to one worker), since enqueue (ingress)
// and dequeue (egress) both update the causality counts. `log` is the one
// thing other threads read (telemetry, the fabric's results): events are
// rare (a few per deadlock), so a mutex there costs nothing on the packet
// path, which never takes it.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/dcfit/detector.h"
#include "dataplane/switch/event_log.h"

namespace pfc {

// One detector event as reported: the event, and what recovery did.
struct DcfitEventRecord {
  dcfit::Event ev;
  bool broke = false;        // recovery: break discarded the looped queue
  uint32_t break_drops = 0;  // packets it discarded
};

// One line for logs and telemetry: "deadlock prio=1 in=L2 out=L3
// initiator=12/3 seq=5 trigger=12/3 hops=4 t_ns=2051200 break=37".
// in/out: the names of the event's ports.
std::string DcfitEventText(const DcfitEventRecord& r, const std::string& in,
                           const std::string& out);

using DcfitEventLog = EventLog<DcfitEventRecord>;

struct SwitchDcfit {
  dcfit::Detector det;
  dcfit::Output out;  // reused: no allocation in steady state
  bool recovery_break = false;
  uint64_t tick_ns = 0;       // how often the detector's timeouts are checked
  uint64_t next_tick_ns = 0;  //
  // Per port: the lossless priorities the detector was told we pause
  // (OnXoffSent without OnXonSent since), so a frame the device refused and
  // the generator reports again is not a second XOFF to the detector.
  std::array<uint8_t, kMaxPorts> told_off{};
  // Per (port, priority): since when the peer pauses our egress (continuously),
  // 0 when not paused. Read by the fabric to date a loop's formation.
  std::array<std::array<uint64_t, kNumPrio>, kMaxPorts> paused_since{};
  DcfitEventLog log;
};

}  // namespace pfc
