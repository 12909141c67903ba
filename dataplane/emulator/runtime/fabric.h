// SPDX-License-Identifier: BSD-3-Clause
// An emulated fabric, the container (ns-3's node and device containers in
// one): many pfcswitch switches (the same Switch and stages as the
// standalone switch) over one Dataplane, their ports joined by emulated
// links (EmuPort) or carried by real DPDK devices, emulated RDMA hosts
// (host.h) on some ports, and the links' captures. It holds state and
// nothing that runs it:
//  * fabric_builder.h makes it, whole, from the validated plan;
//  * a clock (clock.h: virtual_clock.h, real_clock.h) runs it, and the
//    timeline (timeline.h) applies the file's events to it;
//  * the results and the verdict (results.h, verdict.h) read it through a
//    const Fabric, its read-only view, after the run.
//
// Ownership: the Fabric owns the Dataplane, the switches, the EmuPorts, the
// hosts and the captures; a clock borrows it and goes first. Threads: the
// clock that runs it writes it (the virtual clock's partitions each their
// own switches, hosts and link ends; the real clock's workers their
// switches); the view is read between a clock's steps on its main thread
// or after the run.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "dataplane/emulator/port/emu_port.h"
#include "dataplane/emulator/runtime/host.h"
#include "dataplane/emulator/runtime/pcapng_writer.h"
#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/fabric_spec.h"
#include "dataplane/stages/worker_ctx.h"
#include "dataplane/switch/switch.h"

namespace pfc::emulator {

// A switch of the fabric and the context its rounds run with on the
// virtual clock (worker 0; the real clock's workers make their own).
struct SwitchRun {
  std::unique_ptr<sw::Switch> sw;
  stages::WorkerCtx ctx;
  // The virtual clock's policy for ctx's rounds, when it installs one
  // (ctx.active points here).
  stages::ActivePorts active;
};

// A link capture: both directions of a link into one file, so the two
// ends (two workers on the real clock) share a lock.
struct Capture {
  std::string path;
  std::unique_ptr<PcapngWriter> out;
  std::mutex mu;
  // Virtual clock: frames wait here (copied) until the clock knows no
  // frame that started earlier can still come (Fabric::FlushCaptures), then
  // go to the file in the order they started on the wire, whichever order
  // the rounds ran in (time order, one entity at a time, partitions).
  bool held = false;
  struct Held {
    uint64_t start_ns;
    Direction dir;
    uint32_t off, len;  // in bytes
  };
  std::vector<Held> frames;
  std::vector<uint8_t> bytes;
};

class Fabric {
 public:
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  const FabricSpec& spec() const { return spec_; }
  const FabricPlan& plan() const { return plan_; }
  bool virtual_clock() const { return spec_.clock == ClockKind::kVirtual; }

  // The switches in plan order (plan().switches), then the emulated hosts
  // that run here, and the Dataplane under them.
  const std::vector<SwitchRun>& switches() const { return switches_; }
  std::vector<SwitchRun>& switches() { return switches_; }
  const std::vector<Host>& hosts() const { return hosts_; }
  std::vector<Host>& hosts() { return hosts_; }
  const sw::Dataplane& dp() const { return *dp_; }
  sw::Dataplane& dp() { return *dp_; }
  // The switches alone, as telemetry takes them (its commands may change a
  // switch).
  std::vector<sw::Switch*> SwitchList();

  // The EmuPort of link end (node, local port), or null when a real device
  // carries it or it runs in another process (--here).
  const EmuPort* PortOf(uint32_t node, uint16_t port) const { return ports_[node][port].get(); }
  EmuPort* PortOf(uint32_t node, uint16_t port) { return ports_[node][port].get(); }
  // f(node, port, EmuPort&) for every emulated link end, by node then port.
  template <typename F>
  void ForEachLinkEnd(F&& f) const {
    EachEnd(*this, f);
  }
  template <typename F>
  void ForEachLinkEnd(F&& f) {
    EachEnd(*this, f);
  }

  // What runs, numbered once for the clocks and the timeline (the virtual
  // clock's calendar ids, EmuPort::wake_id): switch i is i, host j is
  // switches().size() + j.
  uint32_t HostId(size_t j) const { return static_cast<uint32_t>(switches_.size() + j); }

  // The hosts' spare mbufs back to the pool (the end of a run).
  void ReleaseSpares();
  // The captures, one per file's capture (null: another MPI rank runs
  // the link); CloseCaptures completes their files (the end of a run).
  const std::vector<std::unique_ptr<Capture>>& captures() const { return captures_; }
  // Held frames that started before before_ns to their files, by start time
  // (outbound first at equal times); the rest stay. Called where no round
  // runs (the virtual clock's boundaries, its end).
  void FlushCaptures(uint64_t before_ns);
  void CloseCaptures();
  // Over MPI ranks: the mbufs this rank's part adds to the pool one process
  // would make for the whole fabric (its pool_size is their sum).
  uint64_t pool_share() const { return pool_share_; }

 private:
  friend class FabricBuilder;
  Fabric(const FabricSpec& spec, const FabricPlan& plan) : spec_(spec), plan_(plan) {}

  template <typename Self, typename F>
  static void EachEnd(Self& self, F& f) {
    using End = std::conditional_t<std::is_const_v<Self>, const EmuPort, EmuPort>;
    for (uint32_t n = 0; n < self.ports_.size(); n++)
      for (uint16_t p = 0; p < self.ports_[n].size(); p++)
        if (End* e = self.ports_[n][p].get()) f(n, p, *e);
  }

  const FabricSpec& spec_;
  const FabricPlan& plan_;
  std::unique_ptr<sw::Dataplane> dp_;
  // ports_[node][local port]: the EmuPort of that link end, or null.
  std::vector<std::vector<std::unique_ptr<EmuPort>>> ports_;
  std::vector<SwitchRun> switches_;
  std::vector<Host> hosts_;
  std::vector<std::unique_ptr<Capture>> captures_;
  uint64_t pool_share_ = 0;
};

}  // namespace pfc::emulator
