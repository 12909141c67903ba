// SPDX-License-Identifier: BSD-3-Clause
// The harness end of a net_ring port, shared by the stage tests and the
// pipeline and PFC-reaction benchmarks: a DPDK port made with
// rte_eth_from_rings whose rx and tx rings are separate and owned by the
// harness, so the harness plays the wire (puts what the switch receives on
// `rx`, takes what it transmitted from `tx`). Device name "net_ring_<name>".
// After rte_eal_init; single-threaded use (SP/SC rings).
#pragma once
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <cstdint>
#include <string>

namespace pfc::harness {

struct RingWire {
  rte_ring* rx = nullptr;  // what the switch receives
  rte_ring* tx = nullptr;  // what it transmitted
  uint16_t dpdk_port = 0;
  std::string device;  // "net_ring_<name>"
};

// Creates the rings ("<name>_rx", "<name>_tx", `slots` each) and the port.
// False with *err naming what failed.
bool MakeRingWire(const std::string& name, unsigned slots, RingWire* out, std::string* err);

// Frees every mbuf left on a ring.
void DrainRing(rte_ring* r);

}  // namespace pfc::harness
