// SPDX-License-Identifier: BSD-3-Clause
// The frames that crossed between MPI ranks in a virtual-clock window
// (ranks.h, virtual_clock.h). A link between a switch of this rank and one
// of another has both ends built on both ranks: the sender's end is
// real on its rank, and the receiver's end there is a stand-in whose ring
// collects what the sender puts on the wire during the window (nobody
// runs it). At the boundary each rank takes its stand-ins' frames,
// sends them (arrival time, epoch, bytes) to the rank that runs the
// receiver, and puts what it gets on its way to its own ends, where the
// clock makes their owners due as for frames from another thread. Frames
// on a link keep their order; a frame lands after the window it was sent
// in (the lookahead), so never in a receiver's past.
//
// Owned by the virtual clock; used on its main thread only.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/runtime/ranks.h"

namespace pfc::emulator {

class RankFrames {
 public:
  // `end` (link end `gport` of the topology) is run by rank `rank`, not
  // this one: its frames go there.
  void AddStandIn(EmuPort* end, uint32_t gport, unsigned rank) {
    out_.push_back({end, gport, rank});
  }
  // At a boundary, every rank in turn (Agree and Deliver are collective):
  // Take: every stand-in's frames packed for their ranks; returns the
  // earliest arrival among them (kNever: none).
  uint64_t Take();
  // The least of every rank's `t` (one MPI_Alltoall, which also tells
  // each rank what it gets); *stop, a signal's number or 0, becomes the
  // largest of every rank's (a signal reaches the ranks at different
  // windows: all stop at the same one, knowing which signal it was).
  uint64_t Agree(const Ranks& ranks, uint64_t t, int* stop);
  // The frames sent, and those got put on their way to this rank's ends
  // (true: some were); one that finds no mbuf, no end or no room is
  // counted (dropped_nombuf, the end's ring_full).
  bool Deliver(Fabric& fab, const Ranks& ranks);
  uint64_t dropped_nombuf() const { return nombuf_; }

 private:
  struct StandIn {
    EmuPort* end;
    uint32_t gport;
    unsigned rank;
  };
  std::vector<StandIn> out_;
  std::vector<std::vector<uint8_t>> buf_;  // per rank, reused
  std::vector<uint64_t> from_;             // bytes each rank sends this one (Agree)
  bool moving_ = false;                    // some rank sends something (Agree)
  uint64_t nombuf_ = 0;
};

}  // namespace pfc::emulator
