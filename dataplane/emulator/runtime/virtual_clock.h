// SPDX-License-Identifier: BSD-3-Clause
// The virtual clock (clock.h): one thread runs everything. It advances the
// clock to the next thing due (a frame landing, a link slot, a pause
// expiry, a host's next frame, an event, a sample) and runs exactly the
// switches and hosts due then, in a fixed order (switches by index, then
// hosts, repeated while one is due again at the same time); nothing reads
// the wall clock, so a run is deterministic: same file and seed, same
// results, byte for byte. A calendar (model/due_queue.h) holds every
// switch's and host's due time: a step costs O(log n) in the entities, not
// a scan of all of them.
//
// With --threads N the fabric is split into N partitions
// (spec/partition.h), each with its own calendar and thread, in windows: a
// window is at most the lookahead long (the shortest delay of a link
// between partitions, plus the shortest wire time), so a frame one
// partition sends lands in another only after the window; at the boundary
// the main thread alone applies events, samples and makes the receivers of
// frames that crossed due. Entities that run at the same instant never
// interact (a frame takes wire time), so every entity runs the same rounds
// at the same times as on one thread: results are byte-identical for any
// thread count.
//
// The same argument lets a window run one entity at a time: with windows
// no longer than the shortest link's delay (plus a nanosecond, less a step
// of a stepped clock), nothing an entity sends lands within the window, so
// each switch or host runs every round it has in the window back to back
// while its state is in the caches, then the next (RunWindowByEntity), and
// runs the rounds of time order. Where that would not hold (DCFIT, a
// capture, or PFCFABRIC_TIME_ORDER=1), or would not pay (windows under
// 100 ns), windows run in time order.
//
// The clock installs its policies on the fabric when made (virtual_setup.cc):
// each link end's calendar and id (EmuPort::wake), and, where the switch
// allows it, the set of ports a switch round visits (stages::ActivePorts).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "dataplane/emulator/model/due_queue.h"
#include "dataplane/emulator/runtime/clock.h"
#include "dataplane/emulator/runtime/rank_frames.h"

namespace pfc::emulator {

class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(Fabric& fab);
  // Runs from 0 to the file's duration (`stop` is the real clock's). Never
  // inlined: bench/fabric/cost.sh profiles exactly this function by its
  // name (VirtualClock::Run).
  [[gnu::noinline]] uint64_t Run(const std::atomic<int>& stop) override;
  uint64_t lookahead_ns() const override { return lookahead_ns_; }
  uint64_t entity_window_ns() const override { return by_entity_ ? entity_window_ns_ : kNever; }
  uint64_t rank_frames_dropped() const override { return rank_frames_.dropped_nombuf(); }
  const WindowTimes& window_times() const override { return window_times_; }

 private:
  // A partition: its calendar (ids fabric-wide, only its own ever due)
  // and the receive ends it owns whose sender runs in another partition.
  // On those EmuPort::wake, ::active and ::landing are null, so the sender's thread
  // never touches this partition's state; Boundary makes their owners due
  // instead. Written by its thread during a window, by the main thread at
  // boundaries.
  struct Part {
    DueQueue due;
    std::vector<uint32_t> run;  // scratch: the ids due at a step
    struct Inbound {
      EmuPort* port;
      uint32_t id;       // its owner's calendar id
      PortMask* active;  // its owner's ActivePorts::rx, or null
      PortMask bit = 0;
      // Its owner's record of the next landing (a switch's
      // ActivePorts::next_rx[port], a host's Host::landing), or null.
      sw::Landing* landing = nullptr;
    };
    std::vector<Inbound> inbound;
    uint64_t rounds = 0;
  };

  // virtual_setup.cc: one calendar for every switch and host, the ports'
  // wake ids and active sets; then the split over spec.threads partitions
  // (pfcfabric checked that the fabric may be split: CheckThreads).
  void InstallCalendar();
  void Partition();
  void ChooseWindows();
  // How long after a window starts a frame sent on e's link in it may land:
  // at least its wire time (>= 1 ns) after the delay; on a stepped clock a
  // switch's round at the end of a step sends a frame on from its landing
  // in the step, up to a step earlier (FabricSpec checked that a step is at
  // most the shortest delay). Bounds windows across partitions (Partition)
  // and those run one entity at a time (ChooseWindows).
  uint64_t WindowBoundNs(const EmuPort& e) const {
    return e.link().params().delay_ns + 1 - quantum_ns_;
  }

  // Runs part's entities due in [now_, win_end_), in time order.
  void RunWindow(Part& part);
  // The same window, one entity at a time: each runs every round it has
  // before win_end_ while its lines are in the caches, then the next
  // (entity_window_ns_ says when that gives the same rounds).
  void RunWindowByEntity(Part& part);
  // Entity id's round at `now`: when it is next due (kNever: when a frame
  // comes).
  uint64_t Round(Part& part, uint32_t id, uint64_t now);
  // Hints (stages/worker.h PrefetchRound*): the state of calendar id `id`,
  // to run next, fetched while the current entity runs; its ports as of
  // time `at` once that is in. Any id (none due: ~0) is fine.
  void PrefetchStart(uint32_t id) const;
  void PrefetchPorts(uint32_t id, uint64_t at) const;
  // RunWindowByEntity's: the frames landing on id in the window, and a
  // round before, the rings they are in (PrefetchRings: each receive
  // ring's two index lines, from rx_queues_, where reaching them through
  // the fabric's port table and the link end cost the walk three waits).
  void PrefetchWindow(uint32_t id) const;
  void PrefetchRings(uint32_t id) const;
  // What PrefetchRings reads a round later: the rest of id's active set
  // (each port's next landing) and its line of rx_queues_ (a host's entry
  // in host_rx_queues_). RunWindowByEntity's only: time order reads
  // neither.
  void PrefetchRingTable(uint32_t id) const;
  // Switch id's receive rings by port (rx_queues_) and, in *a, its active
  // set; null for a switch without one.
  const EmuPort::RxQueue* const* RingsOf(uint32_t id, const stages::ActivePorts** a) const {
    *a = sws_[id].ctx.active;
    return *a == nullptr ? nullptr : rx_queues_.data() + size_t{id} * rx_stride_;
  }
  // Receivers of frames that crossed from another partition made due at
  // the first's arrival.
  void InboundDue();
  // Between windows, on the main thread with every partition stopped:
  // samples and the end, frames that crossed, the next window's start
  // (events applied then) and end. Sets done_ at the end, or at the
  // first boundary after *stop_ was seen (over MPI ranks: agreed by all).
  void Boundary();
  // A switch's round time for a time (FabricSpec::quantum_ns): switches run
  // on steps, hosts, events and samples at their own times.
  uint64_t Step(uint64_t t) const { return StepUp(t, quantum_ns_); }
  // The calendar of the partition that runs calendar id `id`.
  DueQueue& DueOf(uint32_t id) { return parts_[part_of_[id]]->due; }

  // Each switch with an active set: the receive rings of its ports, at
  // [id * rx_stride_ + port] (null for none), so that a switch's are
  // a line or two found without a load (InstallCalendar).
  std::vector<const EmuPort::RxQueue*> rx_queues_;
  uint32_t rx_stride_ = 0;
  // Each host's NIC's receive ring, by host index: the same for hosts,
  // reached without the NIC's line.
  std::vector<const EmuPort::RxQueue*> host_rx_queues_;
  // The fabric's parts the windows run, fixed once it is built.
  SwitchRun* const sws_;
  const uint32_t n_sws_;
  const uint32_t n_hosts_;
  Host* const hosts_;
  sw::Dataplane& dp_;
  const FabricPlan& plan_;
  const uint64_t quantum_ns_;
  const uint64_t duration_ns_;
  // The partitions (one without --threads), each behind a pointer of its
  // own (its thread writes it), and which runs each calendar id.
  std::vector<std::unique_ptr<Part>> parts_;
  std::vector<uint16_t> part_of_;
  // Over MPI ranks: this rank's stand-ins for the ends others run.
  RankFrames rank_frames_;
  uint64_t lookahead_ns_ = kNever;
  // Windows run one entity at a time (RunWindowByEntity) are at most this
  // long: the shortest link's delay plus a wire time, less a step (a
  // stepped switch sends a frame on from its landing, up to a step before
  // its round), so that nothing an entity sends lands within the window
  // and entities of one window never interact. kNever: windows run in time
  // order (DCFIT follows every switch's state at one instant, and
  // PFCFABRIC_TIME_ORDER=1 asks for it).
  uint64_t entity_window_ns_ = kNever;
  static constexpr uint64_t kMinEntityWindowNs = 100;  // shorter: time order
  // A link capture's frames wait for the next boundary to be written in
  // the order they started (Fabric::FlushCaptures): windows are at most
  // this long then, so that one partition's window, which otherwise runs to
  // the next sample or event, holds a bounded number of them.
  static constexpr uint64_t kCaptureWindowNs = 100'000;
  WindowTimes window_times_;  // Run's, with partitions
  bool by_entity_ = false;    // this rank's windows run by entity
  uint64_t win_end_ = 0;      // the current window is [now_, win_end_)
  bool started_ = false, done_ = false;
  const std::atomic<int>* stop_ = nullptr;  // Run's: a signal asks the run to end early
  int stopping_ = 0;  // the signal seen (agreed over ranks): the next boundary ends the run
};

}  // namespace pfc::emulator
