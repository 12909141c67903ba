// SPDX-License-Identifier: BSD-3-Clause
// The seam between the stages and whatever carries a port's frames. A DPDK
// ethdev (a NIC, a vdev on a veth, a ring) is the inlined fast path: PortRx
// and PortTx cost what rte_eth_*_burst costs. Anything else is a
// PortProvider the switch's creator installs (CreateSwitch's lookup), as
// Open vSwitch's netdev classes let netdev-dummy stand in for a device:
// one virtual call per burst, and the switch knows nothing of what is
// behind it (the fabric emulator's link ends are one provider).
//
// Threads: a port is polled and transmitted by the single worker that owns
// it (its switch's placement), so neither kind needs locking here.
#pragma once
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <cstdint>
#include <functional>

#include "dataplane/common/deadline.h"

namespace pfc::sw {

// The next frame on its way to a port: when it lands (kNever: none) and,
// where its provider knows, the frame itself, as a hint only (a driver
// that runs rounds in virtual time prefetches it, stages/worker.h; it may
// be stale, and nothing reads through it).
struct Landing {
  Deadline at = kNever;
  const rte_mbuf* frame = nullptr;
};

// Fetches a landing frame's first lines, a hint: its mbuf's first line
// (lengths) and its headers, where a pool without a private area puts them
// (ingress parses them first). Nothing for no frame.
inline void PrefetchLanding(const Landing& l) {
  const auto* f = reinterpret_cast<const char*>(l.frame);
  if (f == nullptr) return;
  __builtin_prefetch(f);
  __builtin_prefetch(f + sizeof(rte_mbuf) + RTE_PKTMBUF_HEADROOM);
}

// A port's frames, other than an ethdev's. Unlike a device, a provider
// knows when its next frame arrives and when its transmit side next needs
// a look, so a round may skip it until then (worker.cc): every call below
// is made by the port's owner.
class PortProvider {
 public:
  virtual ~PortProvider() = default;
  // Up to n frames that have arrived by now_ns.
  virtual uint16_t Rx(rte_mbuf** pkts, uint16_t n, uint64_t now_ns) = 0;
  // Takes up to n frames; the rest stay with the caller (a full queue).
  // `control` frames (PFC, ARP) go ahead of queued data, as a MAC sends PFC.
  virtual uint16_t Tx(rte_mbuf** pkts, uint16_t n, uint64_t now_ns, bool control) = 0;
  // How many data frames of up to frame_len bytes Tx would take at now_ns
  // (at most n). The egress stage takes no more than that from its queues,
  // so that a frame leaves its queue (is scheduled, gets its INT record
  // and ECN mark) when the port can start it, as a switch's egress
  // dequeues at the transmitter's pace, not a burst of frames early to
  // wait in the stash. A provider without a transmit FIFO of its own to
  // model takes whatever comes (n). 0 obliges the provider's Poll to
  // report when it takes frames again.
  virtual uint16_t TxRoom(uint64_t now_ns, uint32_t frame_len, uint16_t n) {
    (void)now_ns;
    (void)frame_len;
    return n;
  }
  // Rx would return nothing by now_ns.
  virtual bool NothingToReceive(uint64_t now_ns) = 0;
  // When the next frame on its way in arrives, or kNever for none.
  virtual Deadline NextArrivalNs() = 0;
  // The same with the frame, where the provider knows it.
  virtual Landing NextLanding() { return {NextArrivalNs(), nullptr}; }
  // Moves the transmit side on to now_ns and returns the earliest time
  // something changes for the port (a frame to send or to receive, a full
  // queue taking frames again), or kNever.
  virtual Deadline Poll(uint64_t now_ns) = 0;
  // Poll would change nothing and return just NextArrivalNs().
  virtual bool TxQuiet() const = 0;
  virtual bool LinkUp() const = 0;
  // The provider's own counters, by name, for the port's statistics.
  virtual void ForEachCounter(const std::function<void(const char*, uint64_t)>& f) const = 0;
};

struct PortIo {
  uint16_t dpdk_port = 0;            // an ethdev port
  bool rx_intr = false;              // an ethdev configured with receive interrupts
  PortProvider* provider = nullptr;  // else this (owned by the switch's creator)
  bool ethdev() const { return provider == nullptr; }
};

inline uint16_t PortRx(const PortIo& io, rte_mbuf** pkts, uint16_t n, uint64_t now_ns) {
  if (io.ethdev()) [[likely]]
    return rte_eth_rx_burst(io.dpdk_port, 0, pkts, n);
  return io.provider->Rx(pkts, n, now_ns);
}

// Transmits up to n frames; returns how many the port took (the rest stay
// with the caller, as with a NIC whose ring is full).
inline uint16_t PortTx(const PortIo& io, rte_mbuf** pkts, uint16_t n, uint64_t now_ns,
                       bool control) {
  if (io.ethdev()) [[likely]]
    return rte_eth_tx_burst(io.dpdk_port, 0, pkts, n);
  return io.provider->Tx(pkts, n, now_ns, control);
}

// Data frames of up to frame_len bytes the port takes now, at most n: n
// for an ethdev (its ring takes a burst; what it refuses is stashed).
inline uint16_t PortTxRoom(const PortIo& io, uint64_t now_ns, uint32_t frame_len, uint16_t n) {
  if (io.ethdev()) [[likely]]
    return n;
  return io.provider->TxRoom(now_ns, frame_len, n);
}

}  // namespace pfc::sw
