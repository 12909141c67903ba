// SPDX-License-Identifier: BSD-3-Clause
// Rings carved from DPDK's malloc heap, or from the process's own memory,
// instead of one memzone each. rte_ring_create reserves a memzone per ring
// and DPDK 22.11 allows 2560 memzones in a process (RTE_MAX_MEMZONE); a
// switch has 9 rings a port and an emulated link end one more, so a fabric
// of 64 switches ran out. A ring is not in DPDK's ring list
// (rte_ring_lookup does not find it): nothing here looks rings up by name.
//
// Neither kind is zeroed (rte_ring_init writes the header; a slot is read
// only after it was written), so a ring's pages are touched as it is used.
// DPDK's heap zeroes what is freed, though: a fabric's thousands of large,
// mostly short rings would all be touched at teardown. The fabric emulator
// keeps its rings in its own memory (Dataplane::own_memory): a mapping each,
// on small pages, which freeing does not touch; pfcswitch keeps them in EAL
// memory (hugepages when it has them).
//
// Threads: create and free on the control thread, before workers use the ring
// and after they stopped.
#pragma once
#include <rte_ring.h>

#include <string>

namespace pfc::sw {

// A ring of `count` (a power of two) elements of esize bytes (8 for the
// pointer API), initialised with `flags` (RING_F_SP_ENQ, RING_F_SC_DEQ), in
// EAL's heap or (own_memory) the C heap. nullptr with *err naming
// the ring and the reason.
rte_ring* CreateHeapRing(const std::string& name, unsigned esize, unsigned count, unsigned flags,
                         bool own_memory, std::string* err);
// Frees a ring made by CreateHeapRing, of either kind (nullptr is fine).
// Its elements are the caller's to drain first.
void FreeHeapRing(rte_ring* r);

}  // namespace pfc::sw
