// SPDX-License-Identifier: BSD-3-Clause
// One direction of an emulated wire between two fabric ports: serialisation
// at the link rate, propagation delay, and administrative up/down. Pure code:
// frames are opaque handles (the glue stores an rte_mbuf*), time is always an
// argument, so the model runs on the real clock or on the emulator's virtual
// one and unit-tests without EAL.
//
// The model is a MAC with a short transmit FIFO in front of the wire:
//  * Send() queues a data frame; it is refused (back-pressure, the frame stays
//    in the switch's egress queue where pause and scheduling still apply) while
//    the frames already waiting would keep the wire busy for more than
//    `fifo_ns`. A device that refuses frames is what the egress stage already
//    handles for real NICs.
//  * SendControl() queues a MAC control frame (PFC): it goes out at the next
//    frame boundary, ahead of every data frame not yet started, as an
//    802.1Qbb MAC does; it is never refused and never held by pause.
//  * Pump(now) starts every frame whose start time is <= now. Start times are
//    computed from the wire's own timeline (max(wire free, frame queued)),
//    not from when Pump is called, so a late Pump (a busy worker in real
//    time) does not open gaps on the wire: only the delivery is late.
//    Each started frame gets its arrival time at the far end
//    (end of serialisation + propagation) and goes to the caller's sink,
//    in arrival order; the glue carries it to the receiving worker, which
//    releases it when its clock reaches the arrival time.
//  * SetUp(false) drops what is queued and bumps the epoch; frames already on
//    the wire carry the epoch they left with, and the receiver drops those of
//    an older epoch (Stale). Everything dropped is counted.
//
// Wire time of a frame = (len + 24) x 8 / rate: FCS 4, preamble/SFD 8 and
// inter-frame gap 12 bytes, as the egress shaper and PFC quanta count them.
//
// Thread-safety: a LinkModel is owned by the worker that transmits on the
// link's source port (Send/SendControl/Pump/SetUp); the receiving side only
// reads the epoch published with each frame.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "dataplane/common/deadline.h"
#include "dataplane/emulator/model/fifo.h"

namespace pfc::emulator {

// What a frame takes on the wire beyond its bytes without FCS: preamble
// and start delimiter (8), FCS (4), inter-frame gap (12). A fabric may set
// another (links.wire_overhead: the HPCC simulator's links carry a packet's
// bytes alone, and its packet is 10 bytes shorter than the RoCEv2 frame of
// the same payload, -10).
inline constexpr int32_t kWireOverheadBytes = 24;

// Wire time of a frame of len bytes (without FCS) at bps, rounded up: an
// emulated link, or a rate limiter, is never faster than its rate. With
// `ns3` (links.wire_time: ns3) as the ns-3 simulators' links and NICs
// have it (the HPCC simulator's Seconds(DataRate::CalculateTxTime(bytes))):
// the seconds as a double, made 64.64 fixed point and scaled to ns, each
// step truncating: 21 ns for a 1,090-byte packet at 400G (21.8), and 79 for
// 1,000 bytes at 100G, whose 80 ns the double holds a hair under.
uint64_t WireTimeNs(uint32_t len, uint64_t bps, int32_t overhead = kWireOverheadBytes,
                    bool ns3 = false);

struct LinkParams {
  uint64_t rate_bps = 0;                       // > 0
  uint64_t delay_ns = 0;                       // propagation delay
  uint64_t fifo_ns = 0;                        // transmit FIFO depth in wire time; 0 = one frame
  int32_t wire_overhead = kWireOverheadBytes;  // bytes a frame adds on the wire (< 0: takes off)
  bool wire_ns3 = false;                       // WireTimeNs as ns-3 has it
};

// The frames a link end's receive ring holds so that it is never the
// bottleneck: all the peer can have on its wire and in its FIFO (and two
// full-size frames) in frames of min_len bytes on the wire (with the
// link's wire_overhead, which the HPCC simulator's files make negative),
// plus `slack`. A shorter frame could overflow it. The wire counts twice:
// the virtual clock's windows are a delay long (plus a nanosecond), and
// the sender may run the whole of one before the receiver takes what
// landed in it (rounds one entity at a time, partitions on threads).
inline uint64_t RxRingFrames(const LinkParams& p, uint32_t min_len, uint64_t slack) {
  const uint64_t wire_ns = 2 * p.delay_ns + 1 + p.fifo_ns +
                           2 * WireTimeNs(1518, p.rate_bps, p.wire_overhead, p.wire_ns3);
  const int64_t min_bytes = std::max<int64_t>(1, int64_t{min_len} + p.wire_overhead);
  return wire_ns * (p.rate_bps / 1'000'000) / 1000 / (8 * static_cast<uint64_t>(min_bytes)) + slack;
}

// A frame on the wire, as the receiver sees it.
struct WireFrame {
  uintptr_t handle = 0;
  uint64_t arrive_ns = 0;  // last bit at the far end
  uint32_t len = 0;
  uint32_t epoch = 0;
  bool control = false;
};

// What every frame started adds to first (the LinkModel keeps those three
// on the line it reads for the frame).
struct LinkCounters {
  uint64_t frames = 0, bytes = 0;  // started on the wire
  uint64_t busy_ns = 0;            // wire time used (utilisation)
  uint64_t control_frames = 0;
  uint64_t refused = 0;       // Send() back-pressure (not a drop)
  uint64_t dropped_down = 0;  // queued or sent while down
};

class LinkModel {
 public:
  explicit LinkModel(const LinkParams& p);

  uint64_t WireNs(uint32_t len) const {
    return WireTimeNs(len, p_.rate_bps, p_.wire_overhead, p_.wire_ns3);
  }

  // Data frame queued at now_ns. False when the FIFO is full (nothing
  // changes, the caller keeps the frame) or the link is down (the frame is
  // counted dropped and the caller must free it: *dropped = true). With
  // ready_ns < now_ns (a stepped clock's switch, EmuPort::set_stepped) the
  // FIFO takes it as now_ns finds it, but it may start from ready_ns on.
  bool Send(uintptr_t handle, uint32_t len, uint64_t now_ns, bool* dropped,
            uint64_t ready_ns = kNever);
  // Control frame: always accepted while up; dropped (false) while down.
  bool SendControl(uintptr_t handle, uint32_t len, uint64_t now_ns);
  // True when Send() at now_ns would accept a frame of len bytes.
  bool CanSend(uint32_t len, uint64_t now_ns) const;
  // How many data frames of len bytes Send() would accept in a row at
  // now_ns, at most n (n while down: Send drops and counts them).
  uint32_t Room(uint32_t len, uint64_t now_ns, uint32_t n) const;
  // Earliest time >= now_ns at which Send() will accept a frame (the FIFO
  // drains at the wire's pace; later Sends move it further).
  uint64_t AcceptNs(uint64_t now_ns) const;

  // Starts every queued frame whose wire start is <= now_ns and hands it to
  // sink(const WireFrame&). Returns the number started.
  template <typename Sink>
  size_t Pump(uint64_t now_ns, Sink&& sink);

  // Down: queued frames are handed to drop(handle) and counted; frames on the
  // wire are dropped by the receiver (epoch). Up: the wire is idle from now.
  template <typename Drop>
  void SetUp(bool up, uint64_t now_ns, Drop&& drop);
  bool up() const { return up_; }
  uint32_t epoch() const { return epoch_.load(std::memory_order_relaxed); }
  // Receiver side (any thread): whether a frame must be discarded because the
  // link went down after it left. The receiver counts what it discards.
  bool Stale(const WireFrame& f) const { return f.epoch != epoch_.load(std::memory_order_acquire); }

  // Earliest time Pump() has work (a queued frame's start), or kNever.
  Deadline NextStartNs() const;
  uint64_t wire_free_ns() const { return wire_free_ns_; }
  // Nothing queued, data or control (read from the first line alone).
  bool idle() const { return (data_head_ns_ & ctl_head_ns_) == kNever; }
  const LinkParams& params() const { return p_; }
  const LinkCounters& counters() const { return c_; }

 private:
  struct Queued {
    uintptr_t handle;
    uint64_t queued_ns;
    uint64_t wire_ns;  // WireNs(len), worked out once at Send
    uint32_t len;
  };
  // Start time of a queue's head queued at `head_ns` (kNever: an empty
  // queue, which never starts) if it were next on the wire.
  uint64_t StartAt(uint64_t head_ns) const {
    return head_ns > wire_free_ns_ ? head_ns : wire_free_ns_;
  }
  WireFrame Start(const Queued& q, uint64_t start_ns, bool control);
  // WireNs(len) through a memo: the exact rounding needs a 128-bit
  // division (ns-3's, a double's). Room asks for the port's largest frame
  // every visit (its own entry); a link's frames are mostly two sizes (data
  // one way, the reverse flows' ACKs), kept most recent first.
  uint64_t WireOf(uint32_t len) const {
    if (len == memo_[0].len) return memo_[0].ns;
    if (len != memo_[1].len) {
      memo_[1] = Memo(len);
      if (memo_[1].len != len) return WireNs(len);
    }
    std::swap(memo_[0], memo_[1]);
    return memo_[0].ns;
  }
  uint64_t RoomWireOf(uint32_t len) const {
    if (len != room_memo_.len) {
      room_memo_ = Memo(len);
      if (room_memo_.len != len) return WireNs(len);
    }
    return room_memo_.ns;
  }
  // A length and its wire time in 8 bytes, so that three fit on the line
  // a frame sent reads anyway. A wire time of 2^32 ns or more (a link
  // slower than about 3 kb/s) is not kept: its memo names no length.
  struct WireMemo {
    uint32_t len;
    uint32_t ns;
  };
  static constexpr uint32_t kNoLen = UINT32_MAX;  // frames are below 64 KB
  WireMemo Memo(uint32_t len) const {
    const uint64_t ns = WireNs(len);
    return ns > UINT32_MAX ? WireMemo{kNoLen, 0} : WireMemo{len, static_cast<uint32_t>(ns)};
  }

  // A line-aligned LinkModel (EmuPort's) keeps all that a data frame's
  // Room, Send and Start read or write on two lines (the constructor
  // checks): at scale every line of it a frame touches is a cache miss.
  //
  // The first: what decides whether a frame starts, and when (idle(), what
  // a quiet port's every visit reads, too). The queues' heads' queued times
  // are kept here, not only in their slots: a busy port is polled again and
  // again while its head waits for the wire, and the slot's line has gone
  // cold by then (a third of Pump's time went to that one load).
  uint64_t data_head_ns_ = kNever;  // data_.front().queued_ns; kNever: empty
  uint64_t ctl_head_ns_ = kNever;   // control_.front().queued_ns; kNever: empty
  uint64_t wire_free_ns_ = 0;       // end of the last started frame
  uint64_t backlog_ns_ = 0;         // wire time of queued data frames
  Fifo<Queued> data_;
  std::atomic<uint32_t> epoch_{0};  // bumped by the owner on link down
  bool up_ = true;
  // The second: the two parameters a frame reads (copies of p_'s), the
  // wire-time memos, the counters every started frame adds to.
  uint64_t fifo_ns_;
  uint64_t delay_ns_;
  mutable WireMemo memo_[2] = {};  // WireOf's lengths and their wire times
  mutable WireMemo room_memo_ = {};
  LinkCounters c_;
  // Then what a data frame does not read.
  Fifo<Queued> control_;
  LinkParams p_;
};

template <typename Sink>
size_t LinkModel::Pump(uint64_t now_ns, Sink&& sink) {
  size_t n = 0;
  for (;;) {
    // At each frame boundary a control frame queued by then goes first.
    const uint64_t cs = StartAt(ctl_head_ns_), ds = StartAt(data_head_ns_);
    WireFrame f;
    if (cs <= now_ns && cs <= ds) {
      f = Start(control_.front(), cs, true);
      control_.pop_front();
      ctl_head_ns_ = control_.empty() ? kNever : control_.front().queued_ns;
    } else if (ds <= now_ns) {
      f = Start(data_.front(), ds, false);
      backlog_ns_ -= data_.front().wire_ns;
      data_.pop_front();
      data_head_ns_ = data_.empty() ? kNever : data_.front().queued_ns;
    } else {
      break;
    }
    sink(f);
    ++n;
  }
  return n;
}

template <typename Drop>
void LinkModel::SetUp(bool up, uint64_t now_ns, Drop&& drop) {
  if (up == up_) return;
  up_ = up;
  if (!up) {
    for (size_t i = 0; i < control_.size(); i++) drop(control_.at(i).handle);
    for (size_t i = 0; i < data_.size(); i++) drop(data_.at(i).handle);
    c_.dropped_down += control_.size() + data_.size();
    control_.clear();
    data_.clear();
    data_head_ns_ = ctl_head_ns_ = kNever;
    backlog_ns_ = 0;
    epoch_.fetch_add(1, std::memory_order_release);
  } else if (wire_free_ns_ < now_ns) {
    wire_free_ns_ = now_ns;
  }
}

}  // namespace pfc::emulator
