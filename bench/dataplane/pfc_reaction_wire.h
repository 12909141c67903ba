// SPDX-License-Identifier: BSD-3-Clause
// The test bench of the PFC reaction-time benchmark (pfc_reaction_bench.cc):
// a real pfcswitch switch (LoadConfig + CreateStandalone, as pfcswitch builds
// it) on two net_ring ports whose rx/tx rings the bench owns, driven by the
// real WorkerRound, and the far ends of both links emulated with ethdev
// rx/tx callbacks, which run inside the switch's own rte_eth_rx_burst /
// rte_eth_tx_burst calls:
//  * p0's rx callback is a host that sends: at each poll it hands the switch
//    every frame whose emulated arrival time has passed (a frame arriving in
//    the middle of a poll round waits for the next poll, as in a NIC's rx
//    ring), or tops up p1's egress queues so that they never run dry;
//  * p1's rx callback is the peer switch: it delivers one MAC control frame
//    at a chosen instant, or keeps a priority paused with refreshes;
//  * the tx callbacks timestamp what the switch hands to each device.
// Topology: host 10.0.0.2 on p0, host 10.0.1.2 on p1, both 10 Gb/s; p1 is
// shaped to 10 Gb/s (its shaper is the emulated link). DSCP 24 -> priority 3
// (lossless), DSCP 10 -> priority 1 (lossy), strict priority, no rewrite.
// Single-threaded: the main lcore plays worker 0; the callbacks run on it.
#pragma once
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/stages/worker_ctx.h"
#include "dataplane/switch/switch.h"

namespace pfc::reaction {

inline constexpr uint64_t kLinkBps = 10'000'000'000ull;
inline constexpr int kLossless = 3, kLossy = 1;  // priorities
inline constexpr uint8_t kBit = 1u << kLossless;
inline constexpr uint16_t kMtuFrame = 1514, kMinFrame = 60;  // without FCS
inline constexpr uint32_t kWireOverhead = 24;                // FCS + preamble/SFD + IFG
inline constexpr uint32_t kCell = 256;                       // buffer.cell_bytes

// p0's far end: a sequence of lossless frames with emulated arrival times
// t0 + i * gap (the UDP source port carries i), or a top-up that keeps
// `depth` MTU frames queued at p1 in each of priorities 3 and 1.
struct Sender {
  enum class Mode { kOff, kSequence, kTopUp } mode = Mode::kOff;
  uint16_t frame_len = kMtuFrame;
  uint32_t count = 0, next = 0;
  uint64_t t0 = 0, gap = 0;      // tsc ticks
  uint16_t first_burst = 0;      // cap on what the first poll gets (0: none)
  std::vector<uint64_t> rx_tsc;  // the poll that delivered frame i
  unsigned depth = 16;
};

// p1's far end: `frame` arrives at `at` (seen: the poll that took it); with
// keep_paused, a peer that pauses priority 3 and refreshes the pause every
// millisecond (a third of its length), as a PFC sender does.
struct Injector {
  rte_mbuf* frame = nullptr;
  uint64_t at = 0, seen = 0;
  bool keep_paused = false;
  uint64_t next_refresh = 0;
};

struct TxRecord {
  uint64_t tsc;
  uint32_t bytes;
  int prio;  // egress priority of a data frame, -1 for anything else
};

struct Bench {
  std::unique_ptr<sw::Dataplane> dp;
  std::unique_ptr<sw::Switch> rt;  // the switch
  stages::WorkerCtx w;
  rte_ring* rx[2] = {};  // what the switch receives on p0, p1
  rte_ring* tx[2] = {};  // what it transmits (drained after every round)
  double ns_per_tick = 1;
  Sender sender;
  Injector inj;
  // p0's tx: the first XOFF for priority 3 since reset, and the XONs.
  uint64_t xoff_tsc = 0, occ_at_xoff = 0;
  unsigned xon_seen = 0;
  // p1's tx log (capacity reserved up front: the callback never allocates).
  bool logging = false, log_overflow = false;
  std::vector<TxRecord> log;
  uint64_t p1_lossless_tx = 0;  // priority-3 frames p1 handed over, ever
  uint64_t drops_before = 0;    // drop counters at the start of a trial
  uint64_t round_tsc = 0;       // start of the last poll round
};
extern Bench g;

inline uint64_t Ticks(double ns) { return static_cast<uint64_t>(ns / g.ns_per_tick); }
inline double Us(uint64_t ticks) { return ticks * g.ns_per_tick / 1000.0; }
// Wire time of `bytes` at the link rate (0.8 ns per byte at 10 Gb/s).
inline uint64_t WireTicks(uint32_t bytes) { return Ticks(bytes * 8e9 / kLinkBps); }
// What a frame of frame_len bytes is charged in the ingress buffer.
inline uint32_t Charge(uint32_t frame_len) { return (frame_len + kCell - 1) / kCell * kCell; }

// Creates the ports and the runtime (shaper_burst: p1's ports[].shaper_burst,
// empty for the config default) and installs the callbacks. Prints why not.
bool Setup(const std::string& shaper_burst);
// Frees the runtime and its mbuf pool.
void Teardown();

// A PFC frame from p1's peer: quanta for every priority in class_enable.
rte_mbuf* PfcMbuf(uint8_t class_enable, uint16_t quanta);
// Puts a frame on a port's rx ring (arrives at the next poll).
bool Put(int port, rte_mbuf* m);

// One WorkerRound, then the tx rings are emptied (the wire takes everything).
void Round();
template <typename Done>
bool RunUntil(Done done, double timeout_us) {
  const uint64_t end = rte_rdtsc() + Ticks(timeout_us * 1000);
  while (!done()) {
    if (rte_rdtsc() > end) return false;
    Round();
  }
  return true;
}
void RunFor(double us);

bool P1Paused();  // p1's priority 3, at the switch's clock
// Drops of every port, priority and reason since g.drops_before was taken;
// `which` (optional) names the counters that are not zero in total.
uint64_t Drops(std::string* which);
// Back to idle after a failed trial: nothing arriving, p1 resumed, every
// queue drained, no buffer charged.
bool Recover();

}  // namespace pfc::reaction
