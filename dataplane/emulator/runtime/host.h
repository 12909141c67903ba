// SPDX-License-Identifier: BSD-3-Clause
// An emulated host of the fabric: the pure model (model/host_model.h) and
// its NIC, one end of an emulated link. Its round, the same on the virtual
// and the real clock, hands the model what landed on the NIC, lets the
// model send what it may, and reports when the host is next due.
//
// Owned by the Fabric (fabric.h); run by one thread at a time: the virtual
// clock's partition that holds it, or the real clock's main thread.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <memory>
#include <string>

#include "dataplane/common/deadline.h"
#include "dataplane/emulator/model/host_model.h"
#include "dataplane/emulator/port/emu_port.h"
#include "dataplane/switch/switch.h"

namespace pfc::emulator {

// Frames a host may send in one round (Host::Round); the pool keeps as
// many per host.
inline constexpr int kHostTxPerRound = 64;

struct Host {
  std::string name;
  uint32_t node = 0;
  std::unique_ptr<emulator::HostModel> model;
  EmuPort* nic = nullptr;
  // An mbuf the host took from the pool for a frame the model then did
  // not have: most rounds end that way, and keeping the buffer for the
  // next frame saves an allocation and a free each time (about 60
  // instructions a switch-hop, bench/fabric/cost.sh). Back to the pool when
  // a run ends (Fabric::ReleaseSpares), so pool_in_use counts frames only.
  rte_mbuf* spare = nullptr;
  // The virtual clock's record of the next frame landing on the NIC and
  // which it is (a prefetch hint, virtual_clock.h), when it keeps one
  // (track_landing): set by the sender as for a switch's port
  // (EmuPort::landing), and by the round to what is left after it took the
  // frames landed by then.
  sw::Landing landing;
  bool track_landing = false;
  // Receives what landed by now, sends what it may; returns the next time
  // something is due for it, or kNever.
  Deadline Round(sw::Dataplane& dp, uint64_t now_ns);
};

}  // namespace pfc::emulator
