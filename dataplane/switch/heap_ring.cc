// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/heap_ring.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_ring_elem.h>

#include <cstdlib>

namespace pfc::sw {

rte_ring* CreateHeapRing(const std::string& name, unsigned esize, unsigned count, unsigned flags,
                         bool own_memory, std::string* err) {
  const ssize_t bytes = rte_ring_get_memsize_elem(esize, count);
  if (bytes < 0) {
    *err = "cannot create ring " + name + ": " + std::to_string(count) + " elements of " +
           std::to_string(esize) + " bytes: " + rte_strerror(static_cast<int>(-bytes));
    return nullptr;
  }
  rte_ring* r = nullptr;
  if (own_memory) {
    // malloc maps a large ring on its own and unmaps it when freed.
    const size_t len =
        (static_cast<size_t>(bytes) + RTE_CACHE_LINE_SIZE - 1) & ~size_t{RTE_CACHE_LINE_SIZE - 1};
    r = static_cast<rte_ring*>(std::aligned_alloc(RTE_CACHE_LINE_SIZE, len));
  } else {
    // Not zeroed: rte_ring_init writes the header and a slot is read only
    // after it was written.
    r = static_cast<rte_ring*>(rte_malloc_socket(name.c_str(), static_cast<size_t>(bytes),
                                                 RTE_CACHE_LINE_SIZE, rte_socket_id()));
  }
  if (r == nullptr) {
    *err = "cannot create ring " + name + ": out of " +
           (own_memory ? "memory" : "DPDK heap memory") + " (" + std::to_string(bytes) + " bytes)";
    return nullptr;
  }
  const int rc = rte_ring_init(r, name.c_str(), count, flags);
  if (rc != 0) {
    FreeHeapRing(r);
    *err = "cannot create ring " + name + ": " + rte_strerror(-rc);
    return nullptr;
  }
  return r;
}

void FreeHeapRing(rte_ring* r) {
  if (r == nullptr) return;
  if (rte_mem_virt2memseg_list(r) != nullptr) {
    rte_free(r);
    return;
  }
  std::free(r);
}

}  // namespace pfc::sw
