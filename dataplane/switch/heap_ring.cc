// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/heap_ring.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring_elem.h>

namespace pfc {

rte_ring* CreateHeapRing(const std::string& name, unsigned esize, unsigned count, unsigned flags,
                         std::string* err) {
  const ssize_t bytes = rte_ring_get_memsize_elem(esize, count);
  if (bytes < 0) {
    *err = "cannot create ring " + name + ": " + std::to_string(count) + " elements of " +
           std::to_string(esize) + " bytes: " + rte_strerror(static_cast<int>(-bytes));
    return nullptr;
  }
  auto* r = static_cast<rte_ring*>(rte_zmalloc_socket(name.c_str(), static_cast<size_t>(bytes),
                                                      RTE_CACHE_LINE_SIZE, rte_socket_id()));
  if (r == nullptr) {
    *err = "cannot create ring " + name + ": out of DPDK heap memory (" + std::to_string(bytes) +
           " bytes)";
    return nullptr;
  }
  const int rc = rte_ring_init(r, name.c_str(), count, flags);
  if (rc != 0) {
    rte_free(r);
    *err = "cannot create ring " + name + ": " + rte_strerror(-rc);
    return nullptr;
  }
  return r;
}

void FreeHeapRing(rte_ring* r) { rte_free(r); }

}  // namespace pfc
