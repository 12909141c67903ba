// SPDX-License-Identifier: BSD-3-Clause
// The lossless-fabric emulator's runtime: many pfcswitch switches (the same
// Switch and stages as the standalone switch) in one process, their ports
// joined by emulated links (EmuPort), emulated RDMA hosts on some ports and
// real DPDK devices (real hosts, links to other servers) on others; a
// timeline of events; and a recorder of flow rates, pause state and buffer
// occupancy over time.
//
// Two clocks:
//  * virtual: one thread runs everything. It advances the clock to the next
//    thing due (a frame landing, a link slot, a pause expiry, a host's next
//    frame, an event, a sample) and runs exactly the switches and hosts due
//    then, in a fixed order (switches by index, then hosts, repeated while
//    one is due again at the same time); nothing reads the wall clock, so a
//    run is deterministic: same file and seed, same results, byte for byte.
//    A calendar (model/due_queue.h) holds every switch's and host's due
//    time: a step costs O(log n) in the entities, not a scan of all of them.
//    With --threads N the fabric is split into N partitions
//    (spec/partition.h), each with its own calendar and thread, in windows:
//    a window is at most the lookahead long (the shortest delay of a link
//    between partitions, plus the shortest wire time), so a frame one
//    partition sends lands in another only after the window; at the
//    boundary the main thread alone applies events, samples and makes the
//    receivers of frames that crossed due. Entities that run at the same
//    instant never interact (a frame takes wire time), so every entity runs
//    the same rounds at the same times as on one thread: results are
//    byte-identical for any thread count.
//  * real: switches are pinned to worker lcores (whole switches, so
//    per-switch state has one writer) and run WorkerMain as pfcswitch does;
//    the main thread runs the emulated hosts, the events and the recorder.
//
// Ownership: the Fabric owns the Dataplane, the switches, the EmuPorts and
// the hosts; it outlives the workers it hands slots to.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/model/host_model.h"
#include "dataplane/emulator/port/emu_port.h"
#include "dataplane/emulator/runtime/dcfit_report.h"
#include "dataplane/emulator/runtime/pcapng_writer.h"
#include "dataplane/emulator/runtime/recorder.h"
#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/fabric_spec.h"
#include "dataplane/stages/worker_ctx.h"
#include "dataplane/switch/log.h"
#include "dataplane/switch/switch.h"

namespace pfc::emulator {

// Frames a host may send in one round (Host::Round); the pool keeps as
// many per host.
inline constexpr int kHostTxPerRound = 64;

// An emulated host: the pure model and its NIC (an EmuPort end).
struct Host {
  std::string name;
  uint32_t node = 0;
  std::unique_ptr<emulator::HostModel> model;
  EmuPort* nic = nullptr;
  // An mbuf the host took from the pool for a frame the model then did
  // not have: most rounds end that way, and keeping the buffer for the
  // next frame saves an allocation and a free each time (about 60
  // instructions a switch-hop, bench/fabric/cost.sh). Back to the pool when
  // a run ends (ReleaseSpares), so pool_in_use counts frames only.
  rte_mbuf* spare = nullptr;
  // Receives what landed by now, sends what it may; returns the next time
  // something is due for it, or kNever.
  Deadline Round(sw::Dataplane& dp, uint64_t now_ns);
};

// The verdict's lines, as pfcfabric prints them last.
std::vector<std::string> VerdictLines(const nlohmann::json& verdict, bool real_clock);
// pfcfabric --expect: the expectations (no-deadlock, lossless, no-loss,
// rates, complete) the verdict does not meet, each with what it saw
// ("no-deadlock (1 deadlock)"), joined by "; "; empty when all hold.
std::string FailedExpectations(const nlohmann::json& verdict,
                               const std::vector<std::string>& expect);

class Fabric {
 public:
  // After rte_eal_init. `workers` worker lcores for the real clock (0 for
  // the virtual clock).
  static std::unique_ptr<Fabric> Create(const emulator::FabricSpec& spec,
                                        const emulator::FabricPlan& plan,
                                        const std::vector<config::SwitchConfig>& configs,
                                        unsigned workers, std::string* err);
  ~Fabric();

  // Virtual clock: runs from 0 to the spec's duration. Returns the number
  // of switch rounds run. Never inlined (LTO would, into pfcfabric's main):
  // bench/fabric/cost.sh profiles exactly this function by its name.
  [[gnu::noinline]] uint64_t RunVirtual();
  // The virtual clock's lookahead with --threads (kNever with one thread).
  uint64_t lookahead_ns() const { return lookahead_ns_; }
  // Real clock: runs hosts, events and the recorder on this thread until
  // `stop` or the duration (0 = until stop); the workers run the switches.
  void RunReal(const std::atomic<bool>& stop);
  std::vector<stages::Worker>& workers() { return workers_; }

  // results.json, flows.csv, ports.csv and, when some flow is sized,
  // fct.csv in the spec's out_dir.
  // timing.json: the run's wall time, the start-up before it (process
  // start to the run's first step) and the mbufs the pool grew to.
  // With the run's verdict (Verdict()) as results.json's "verdict".
  bool WriteResults(double wall_seconds, double startup_seconds, const nlohmann::json& verdict,
                    std::string* err) const;
  // The run's verdict (verdict.cc): {deadlocks: [{cycle, prios, since_ns,
  // stuck_links}], stuck_links, held_by_hosts, lost: {lossless_prios,
  // lossy_prios: {reason: frames}, link_down}, slow_flows: [{flow,
  // asked_bps, got_bps}], sized_flows, incomplete_flows, ok}.
  nlohmann::json Verdict() const;

  std::vector<sw::Switch*> switches() const;
  sw::Dataplane& dp() { return *dp_; }
  uint64_t now_ns() const { return now_; }
  // Called by the thread that runs the clock at each sample bin's boundary
  // (pfcfabric's progress line); must not touch the fabric.
  std::function<void(uint64_t now_ns)> on_bin;
  // Total lossless drops over every switch (a deadlock is a stall, not a loss).
  uint64_t LosslessDrops() const;
  // Drops of reason r over every switch, port and priority.
  uint64_t DropsOf(DropReason r) const;
  // f(lossless priority?, reason, drops) for every switch, worker, port,
  // priority and reason with drops: the one walk the drop totals and the
  // verdict share.
  template <typename F>
  void ForEachDrop(F&& f) const {
    for (const SwitchRun& s : switches_)
      for (const auto& w : s.sw->stats)
        for (size_t p = 0; p < s.sw->ports.size(); p++)
          for (int q = 0; q < kNumPrio; q++)
            for (int r = 0; r < kNumDropReasons; r++)
              if (const uint64_t n = w->prio[p][q].drops[r].Get())
                f(s.sw->cfg.tag_map.IsLossless(q), static_cast<DropReason>(r), n);
  }

 private:
  Fabric(const emulator::FabricSpec& spec, const emulator::FabricPlan& plan)
      : spec_(spec), plan_(plan) {}
  EmuPort* PortOf(uint32_t node, uint16_t port) const;
  // Flow i of the spec: what its receiver saw (nullptr: nothing), its
  // completion time (a sized flow), fct.csv.
  const emulator::FlowRx* RxFlow(size_t i) const;
  const emulator::FlowTx* TxFlow(size_t i) const;  // flow i's sender state, if it runs here
  emulator::Fct FlowFct(size_t i) const;
  bool WriteFctCsv(const std::string& path, std::string* err) const;
  struct SwitchRun;
  // results.json's entry for one switch: its counters (StatsJson) and
  // DCFIT detector's.
  nlohmann::json SwitchResults(const SwitchRun& s) const;
  // results.json: r (every key but "switches") and the switches, written
  // as r.dump(1) would with them in it, one switch's JSON at a time.
  void WriteResultsJson(const nlohmann::json& r, std::ostream& out) const;
  void ApplyEvent(const emulator::EventSpec& e, uint64_t now);
  void SetLink(uint32_t a, uint32_t b, bool up, uint64_t now);
  // Virtual clock: splits the fabric over spec_.threads partitions
  // (spec/partition.h): calendars, cut links' receive ends, lookahead.
  // pfcfabric checked that the fabric may be split (CheckThreads).
  void Partition();
  void NameDcfitPorts();
  // Virtual clock: between windows, on the main thread with every
  // partition stopped: samples and the end, frames that crossed, the next
  // window's start (events applied then) and end. Sets done_ at the end.
  void Boundary();
  // The virtual clock's step for a time (FabricSpec::quantum_ns).
  uint64_t Step(uint64_t t) const {
    const uint64_t q = spec_.quantum_ns;
    return q == 0 || t == kNever ? t : (t + q - 1) / q * q;
  }
  // Both clocks, once a loop: the recorder's samples due by now, and at a
  // sample bin's boundary the switches' new events printed.
  void Sample(uint64_t now);
  // The hosts' spare mbufs back to the pool (the end of a run).
  void ReleaseSpares();
  // Prints the switches' new DCFIT and watchdog events (switch/log.h: the
  // workers only log them).
  void PrintEvents();

  struct SwitchRun {
    std::unique_ptr<sw::Switch> sw;
    stages::WorkerCtx ctx;  // virtual clock: the one context (worker 0)
    // The virtual clock's policy for ctx's rounds, when it may have one
    // (ctx.active points here).
    stages::ActivePorts active;
  };
  // Calendar ids: switch i is i, host j is switches_.size() + j.
  uint32_t HostId(size_t j) const { return static_cast<uint32_t>(switches_.size() + j); }
  // The calendar of the partition that runs calendar id `id`.
  emulator::DueQueue& DueOf(uint32_t id) { return parts_[part_of_[id]]->due; }

  // A partition of the virtual clock: its calendar (ids fabric-wide, only
  // its own ever due) and the receive ends it owns whose sender runs in
  // another partition. On those EmuPort::wake and ::active are null, so the
  // sender's thread never touches this partition's state; Boundary makes
  // their owners due instead. Written by its thread during a window, by
  // the main thread at boundaries.
  struct Part {
    emulator::DueQueue due;
    std::vector<uint32_t> run;  // scratch: the ids due at a step
    struct Inbound {
      EmuPort* port;
      uint32_t id;       // its owner's calendar id
      PortMask* active;  // its owner's ActivePorts::rx, or null
      PortMask bit = 0;
    };
    std::vector<Inbound> inbound;
    uint64_t rounds = 0;
  };
  // Runs part's entities due in [now_, win_end_), in time order.
  void RunWindow(Part& part);

  const emulator::FabricSpec& spec_;
  const emulator::FabricPlan& plan_;
  std::unique_ptr<sw::Dataplane> dp_;
  // ports_[node][local port]: the EmuPort of that link end, or null when a
  // real device carries it.
  std::vector<std::vector<std::unique_ptr<EmuPort>>> ports_;
  std::vector<SwitchRun> switches_;
  std::vector<Host> hosts_;
  // Virtual clock: the partitions (one without --threads), each part
  // behind a pointer of its own (its thread writes it), and which runs
  // each calendar id.
  std::vector<std::unique_ptr<Part>> parts_;
  std::vector<uint16_t> part_of_;
  uint64_t lookahead_ns_ = kNever;
  uint64_t win_end_ = 0;  // the current window is [now_, win_end_)
  bool started_ = false, done_ = false;
  std::vector<stages::Worker> workers_;
  Recorder rec_;
  // Link captures: both directions of a link into one file, so the two
  // ends (two workers on the real clock) share a lock.
  struct Capture {
    std::unique_ptr<PcapngWriter> out;
    std::mutex mu;
  };
  std::vector<std::unique_ptr<Capture>> captures_;
  size_t next_event_ = 0;
  uint64_t now_ = 0;
  uint64_t rounds_ = 0;
  std::vector<std::string> event_log_;
  DcfitReport dcfit_;
  std::vector<const sw::Switch*> dcfit_sws_;  // switches_[i].sw, for dcfit_
  std::vector<sw::EventPrinter> printers_;    // one per switch (PrintEvents)
};

}  // namespace pfc::emulator
