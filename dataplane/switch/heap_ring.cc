// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/heap_ring.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_ring_elem.h>
#include <sys/mman.h>

#include <cstdint>

namespace pfc::sw {
namespace {

// Own memory: a mapping of the ring's own, its length in a header line
// before the ring, on small pages. A ring is large and mostly unused (a
// short queue touches its first slots), so a 2 MB page for those slots
// would cost up to 2 MB a ring where 4 KB pages cost 4 KB: the emulator
// asks malloc for transparent huge pages (emulator/runtime/huge_pages.h),
// and rings made with malloc got them.
constexpr size_t kHeader = RTE_CACHE_LINE_SIZE;

void* MapRing(size_t len) {
  void* p = mmap(nullptr, kHeader + len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  madvise(p, kHeader + len, MADV_NOHUGEPAGE);
  *static_cast<size_t*>(p) = kHeader + len;
  return static_cast<char*>(p) + kHeader;
}

void UnmapRing(void* r) {
  char* p = static_cast<char*>(r) - kHeader;
  munmap(p, *reinterpret_cast<size_t*>(p));
}

}  // namespace

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
    r = static_cast<rte_ring*>(MapRing(static_cast<size_t>(bytes)));
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
  UnmapRing(r);
}

}  // namespace pfc::sw
