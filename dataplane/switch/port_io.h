// SPDX-License-Identifier: BSD-3-Clause
// The seam between the stages and whatever carries a port's frames: a DPDK
// ethdev (a NIC, a vdev on a veth, a ring) or one end of an emulated fabric
// link (dataplane/emulator/port/emu_port.h). Stages call PortRx/PortTx once per
// burst; the ethdev case is inline and costs what rte_eth_*_burst costs,
// the emulated case is one out-of-line call per burst.
//
// Threads: a port is polled and transmitted by the single worker that owns
// it (its switch's placement), so neither kind needs locking here.
#pragma once
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <cstdint>

namespace pfc::emulator {
class EmuPort;
// Emulated-link halves (dataplane/emulator/port/emu_port.cc).
uint16_t EmuRx(EmuPort* e, rte_mbuf** pkts, uint16_t n, uint64_t now_ns);
uint16_t EmuTx(EmuPort* e, rte_mbuf** pkts, uint16_t n, uint64_t now_ns, bool control);
}  // namespace pfc::emulator

namespace pfc::sw {

struct PortIo {
  enum class Kind : uint8_t { kEthdev, kEmu };
  Kind kind = Kind::kEthdev;
  uint16_t dpdk_port = 0;            // kEthdev
  bool rx_intr = false;              // kEthdev configured with receive interrupts
  emulator::EmuPort* emu = nullptr;  // kEmu (owned by the fabric)
};

inline uint16_t PortRx(const PortIo& io, rte_mbuf** pkts, uint16_t n, uint64_t now_ns) {
  if (io.kind == PortIo::Kind::kEthdev) return rte_eth_rx_burst(io.dpdk_port, 0, pkts, n);
  return emulator::EmuRx(io.emu, pkts, n, now_ns);
}

// Transmits up to n frames; returns how many the port took (the rest stay
// with the caller, as with a NIC whose ring is full). `control` frames (PFC,
// ARP) go ahead of queued data on an emulated link, as a MAC sends PFC.
inline uint16_t PortTx(const PortIo& io, rte_mbuf** pkts, uint16_t n, uint64_t now_ns,
                       bool control) {
  if (io.kind == PortIo::Kind::kEthdev) return rte_eth_tx_burst(io.dpdk_port, 0, pkts, n);
  return emulator::EmuTx(io.emu, pkts, n, now_ns, control);
}

}  // namespace pfc::sw
