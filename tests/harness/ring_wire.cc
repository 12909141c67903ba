// SPDX-License-Identifier: BSD-3-Clause
#include "tests/harness/ring_wire.h"

#include <rte_errno.h>
#include <rte_eth_ring.h>

namespace pfc::harness {

bool MakeRingWire(const std::string& name, unsigned slots, RingWire* out, std::string* err) {
  const unsigned fl = RING_F_SP_ENQ | RING_F_SC_DEQ;
  out->rx = rte_ring_create((name + "_rx").c_str(), slots, SOCKET_ID_ANY, fl);
  out->tx = rte_ring_create((name + "_tx").c_str(), slots, SOCKET_ID_ANY, fl);
  const int pid = out->rx != nullptr && out->tx != nullptr
                      ? rte_eth_from_rings(name.c_str(), &out->rx, 1, &out->tx, 1, SOCKET_ID_ANY)
                      : -1;
  if (pid < 0) {
    *err = "cannot create net_ring port " + name + ": " + rte_strerror(rte_errno);
    return false;
  }
  out->dpdk_port = static_cast<uint16_t>(pid);
  out->device = "net_ring_" + name;
  return true;
}

void DrainRing(rte_ring* r) {
  void* m;
  while (rte_ring_dequeue(r, &m) == 0) rte_pktmbuf_free(static_cast<rte_mbuf*>(m));
}

}  // namespace pfc::harness
