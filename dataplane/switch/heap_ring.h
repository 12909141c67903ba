// SPDX-License-Identifier: BSD-3-Clause
// Rings carved from DPDK's malloc heap instead of one memzone each.
// rte_ring_create reserves a memzone per ring and DPDK 22.11 allows 2560
// memzones in a process (RTE_MAX_MEMZONE); a switch has 9 rings a port and an
// emulated link end one more, so a fabric of 64 switches ran out. The same
// bytes come from the same heap either way (a memzone is a heap allocation
// with a name in a fixed-size table), so memory plans do not change. The
// ring is not in DPDK's ring list (rte_ring_lookup does not find it): nothing
// here looks rings up by name.
//
// Threads: create and free on the control thread, before workers use the ring
// and after they stopped.
#pragma once
#include <rte_ring.h>

#include <string>

namespace pfc {

// A ring of `count` (a power of two) elements of esize bytes (8 for the
// pointer API), initialised with `flags` (RING_F_SP_ENQ, RING_F_SC_DEQ).
// nullptr with *err naming the ring and DPDK's reason.
rte_ring* CreateHeapRing(const std::string& name, unsigned esize, unsigned count, unsigned flags,
                         std::string* err);
// Frees a ring made by CreateHeapRing (nullptr is fine). Its elements are the
// caller's to drain first.
void FreeHeapRing(rte_ring* r);

}  // namespace pfc
