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
  bool empty() const { return out_.empty(); }
  // Collective: every stand-in's frames to their ranks, and the frames
  // other ranks sent put on their way to this rank's ends. Frames that find
  // no mbuf or no room are counted (the end's ring_full, dropped_nombuf).
  void Exchange(Fabric& fab, const Ranks& ranks);
  uint64_t frames_sent() const { return sent_; }
  uint64_t dropped_nombuf() const { return nombuf_; }

 private:
  struct StandIn {
    EmuPort* end;
    uint32_t gport;
    unsigned rank;
  };
  std::vector<StandIn> out_;
  std::vector<std::vector<uint8_t>> buf_;  // per rank, reused
  uint64_t sent_ = 0, nombuf_ = 0;
};

}  // namespace pfc::emulator
