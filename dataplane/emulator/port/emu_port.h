// SPDX-License-Identifier: BSD-3-Clause
// One end of an emulated fabric link, as a switch port's provider
// (dataplane/switch/port_io.h) or an emulated host's NIC: what the
// port transmits goes through its LinkModel (serialisation, propagation,
// FIFO back-pressure, PFC ahead of data, up/down) and arrives, stamped with
// its arrival time, in the peer end's receive ring; the peer's owner takes a
// frame only once its clock has reached that time. A switch port and an
// emulated host's NIC are both EmuPorts.
//
// Threads: the owner of this end (the worker that polls the port, or the
// virtual-time driver) calls EmuTx/EmuPoll/SetUp; the owner of the peer end
// calls EmuRx on the peer. The receive ring is single-producer (our owner
// pumps into it) and single-consumer (the peer's owner).
//
// Virtual time: `wake` (if set) is the driver's calendar and `wake_id` the
// entity (switch or host) that runs this end; delivering a frame to this end
// lowers that entity's due time to the frame's arrival, so the driver runs
// it exactly when the frame lands. Unset on the real clock, and on an end
// whose peer runs in another partition of the virtual clock (the driver
// makes its owner due at the window's boundary instead).
#pragma once
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "dataplane/common/deadline.h"
#include "dataplane/common/types.h"
#include "dataplane/emulator/model/due_queue.h"
#include "dataplane/emulator/model/link_model.h"
#include "dataplane/emulator/model/spsc_ring.h"
#include "dataplane/switch/port_io.h"

namespace pfc::emulator {

// What a link end loses. Frames received are counted by the switch and the
// hosts, not here: a count here would cost every landing a write to a line
// it touches for nothing else.
struct EmuPortCounters {
  uint64_t rx_stale = 0;   // on the wire when the link went down: dropped
  uint64_t tx_down = 0;    // sent while the link was down: dropped
  uint64_t ring_full = 0;  // receive ring overflow (sized so it never is)
};

// The smallest Ethernet frame (without its FCS) the receive ring is sized
// for: the emulated hosts' frames and the switches' own (PFC, ARP) are at
// least this long; a real host's runt or an echo reply to one may not be.
inline constexpr uint32_t kMinFrameBytes = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;  // 60

// final: the emulator's own calls (hosts, the clocks) are direct. Aligned to
// a cache line, with what every visit reads in its first line (below).
class alignas(64) EmuPort final : public sw::PortProvider {
 public:
  using RxQueue = emulator::SpscRing<emulator::WireFrame>;
  // `name` names the port in messages.
  EmuPort(std::string name, const emulator::LinkParams& tx);
  ~EmuPort() override;
  bool Init(std::string* err);
  // Frames we send arrive at `peer`; call on both ends.
  void Connect(EmuPort* peer) { peer_ = peer; }

  // Inline for a round with nothing landed (most of a host's rounds).
  uint16_t Rx(rte_mbuf** pkts, uint16_t n, uint64_t now_ns) override {
    return NothingToReceive(now_ns) ? 0 : RxLanded(pkts, n, now_ns);
  }
  uint16_t Tx(rte_mbuf** pkts, uint16_t n, uint64_t now_ns, bool control) override;
  // What the link's transmit FIFO takes now (LinkModel::Room), after
  // starting the frames due: the switch dequeues no more than that, as it
  // would hand frames to a MAC. None: the next Poll reports when it does.
  uint16_t TxRoom(uint64_t now_ns, uint32_t frame_len, uint16_t n) override;
  // Starts frames due on our wire and returns the earliest time something
  // changes for this end (a frame to start, one to receive, the FIFO
  // accepting again after a refusal), or kNever for nothing. Inline for the
  // common case, a quiet transmit side (a frame sent this round is already
  // on the wire): then only the next arrival can change anything.
  Deadline Poll(uint64_t now_ns) override { return TxQuiet() ? NextArrivalNs() : PollBusy(now_ns); }
  // Link down: queued frames are freed (counted), frames on the wire are
  // dropped by the receiver. Applies to our direction; the fabric asks both
  // ends. Any thread may ask; the owner applies it at its next Tx or Poll
  // (the link model has one writer).
  void RequestUp(bool up) { want_up_.store(up ? 1 : 0, std::memory_order_release); }
  // The same, applied at once: the virtual clock's driver, between rounds
  // (no round runs, so it is every end's owner then). A receiver then sees
  // the new epoch from the event's time on, whichever thread runs it.
  void SetUpNow(bool up, uint64_t now_ns) {
    RequestUp(up);
    ApplyRequest(now_ns);
  }

  // Receive side: no frame has landed by now_ns, so Rx would return
  // nothing. Looks at the head of what is on its way (frames arrive in
  // order).
  bool NothingToReceive(uint64_t now_ns) override {
    const emulator::WireFrame* f = rx_->Front();
    return f == nullptr || f->arrive_ns > now_ns;
  }
  // When the next frame on its way to this end lands, or kNever for none.
  Deadline NextArrivalNs() override { return NextLanding().at; }
  // A hint for a driver that runs our owner through a window at once: the
  // first lines of up to `max` frames landing before before_ns.
  void PrefetchLandingBefore(uint64_t before_ns, size_t max) const {
    PrefetchLandingBefore(*rx_, before_ns, max);
  }
  // The same for the ring of frames on their way to an end (rx_queue()):
  // a driver that keeps the rings beside each other reaches them without
  // this end's line.
  static void PrefetchLandingBefore(const RxQueue& q, uint64_t before_ns, size_t max) {
    q.ForEachQueued(max, [before_ns](const emulator::WireFrame& f) {
      if (f.arrive_ns >= before_ns) return false;
      sw::PrefetchLanding({f.arrive_ns, reinterpret_cast<const rte_mbuf*>(f.handle)});
      return true;
    });
  }
  // The ring of frames on their way to this end; fixed once the end is made.
  const RxQueue* rx_queue() const { return rx_.get(); }
  sw::Landing NextLanding() override {
    const emulator::WireFrame* f = rx_->Front();
    if (f == nullptr) return {};
    return {f->arrive_ns, reinterpret_cast<const rte_mbuf*>(f->handle)};
  }
  // Transmit side: nothing queued on the link, no refused send, no up/down
  // request. Poll would then start nothing, change nothing and return just
  // NextArrivalNs(): the owner can skip it (the switch's worker.cc LookAtPort).
  bool TxQuiet() const override {
    return link_.idle() && !tx_blocked_ && !owner_more_ &&
           want_up_.load(std::memory_order_relaxed) < 0;
  }

  // MPI ranks (runtime/rank_frames.h), at a window's boundary: on an end
  // whose owner runs on another rank, every frame pushed towards it, handed
  // to f(const WireFrame&) in arrival order and taken off; on the owner's
  // rank, such a frame put on its way to this end (false: no room, the
  // caller frees it and counts it as ring_full).
  template <typename F>
  void TakeAllArriving(F&& f) {
    for (const emulator::WireFrame* w; (w = rx_->Front()) != nullptr; rx_->Pop()) f(*w);
  }
  bool Arriving(const emulator::WireFrame& w) {
    if (rx_->Push(w)) return true;
    c_.ring_full++;
    return false;
  }

  // A stepped virtual clock (fabric.quantum) runs a switch's round at the
  // end of the step a frame lands in (the peer's Pump wakes it then): the
  // frame is stamped as it lands (an mbuf field at landed_off) and, sent on
  // within the step, may start on the wire from its landing on
  // (LinkModel::Send's ready_ns), as it would on the exact clock, so a hop
  // does not gain up to a step. The switch ends of links only: a host runs
  // at its own times and its frames are its own.
  // (fabric.quantum is at most a millisecond.)
  void set_stepped(uint64_t quantum_ns, int landed_off) {
    step_ns_ = static_cast<uint32_t>(quantum_ns);
    landed_off_ = landed_off;
  }
  // The step its owner's rounds run on (0: exact): a frame landing at t
  // makes it due at StepUp(t, step_ns()).
  uint64_t step_ns() const { return step_ns_; }

  const std::string& name() const { return name_; }
  const emulator::LinkModel& link() const { return link_; }
  const EmuPortCounters& counters() const { return c_; }
  bool LinkUp() const override { return link_up_; }
  // Frames lost to a link going down (a failed cable loses what it
  // carries) and the wire's utilisation.
  void ForEachCounter(const std::function<void(const char*, uint64_t)>& f) const override;

 private:
  uint16_t RxLanded(rte_mbuf** pkts, uint16_t n, uint64_t now_ns);
  Deadline PollBusy(uint64_t now_ns);
  void Pump(uint64_t now_ns);
  void ApplyRequest(uint64_t now_ns);

  // The first line (with the vtable pointer): what a visit of the owner's
  // round reads and what the peer's Pump reads of this end.
  //
  // Frames on their way to this end, in arrival order: the peer's owner
  // pushes, our owner pops them as they land.
  std::unique_ptr<RxQueue> rx_;
  EmuPort* peer_ = nullptr;
  bool tx_blocked_ = false;  // the last data Tx was refused
  // A FIFO shorter than a frame's wire time (links.fifo): TxRoom's answer
  // (room_k_ frames), and whether the owner then gave that many, all of
  // them started at once and it may hold more (owner_more_): no frame waits
  // whose start would wake it, so PollBusy does.
  bool owner_more_ = false;
  uint16_t room_k_ = 0;
  std::atomic<int8_t> want_up_{-1};  // -1: no request pending
  bool link_up_ = true;              // link_.up(), here for every egress round's look

 public:
  // Virtual clock: the bit of `active` (below) that is this end's port.
  uint8_t active_port = 0;
  uint32_t wake_id = 0;  // what runs this end in `wake`

 private:
  // set_stepped: 0 on the exact clock. Here, not with the rest of
  // set_stepped's, since every frame sent (Tx), landed (RxLanded) or pushed
  // towards this end (the peer's Pump) reads it.
  uint32_t step_ns_ = 0;

 public:
  emulator::DueQueue* wake = nullptr;  // virtual clock: the driver's calendar
  // Virtual clock: the owning switch's ports with frames on their way in
  // (the ActivePorts the fabric installs on its worker, stages/worker_ctx.h),
  // where a frame pushed towards this end sets bit `active_port`.
  PortMask* active = nullptr;
  // And the owner's record of when this end's next frame lands and which
  // it is (a switch's ActivePorts::next_rx, a host's Host::landing), set by
  // each frame pushed that lands first. (The first line ends here: all the
  // peer's Pump reads of this end is on it.)
  sw::Landing* landing = nullptr;

 private:
  // Our transmit direction, on a line of its own start: what TxQuiet and
  // Pump's first look read shares one line.
  alignas(64) emulator::LinkModel link_;

 public:
  // Called for every frame as it starts on our wire (captures, recorders).
  std::function<void(const rte_mbuf*, uint64_t start_ns, bool control)> on_wire;

 private:
  std::string name_;
  EmuPortCounters c_;
  int landed_off_ = -1;
};

}  // namespace pfc::emulator
