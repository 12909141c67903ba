// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/mbuf_pool.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf_pool_ops.h>
#include <sys/mman.h>

#include <algorithm>

namespace pfc {
namespace {

void UnmapChunk(rte_mempool_memhdr* memhdr, void*) { munmap(memhdr->addr, memhdr->len); }

}  // namespace

rte_mempool* CreateGrowablePool(const char* name, uint64_t max_mbufs, uint64_t initial,
                                uint16_t room, std::string* err) {
  if (max_mbufs > UINT32_MAX) {
    *err = "cannot create the mbuf pool: " + std::to_string(max_mbufs) +
           " mbufs is more than one pool holds (2^32 - 1)";
    return nullptr;
  }
  rte_mempool* mp =
      rte_mempool_create_empty(name, static_cast<unsigned>(max_mbufs), sizeof(rte_mbuf) + room, 256,
                               sizeof(rte_pktmbuf_pool_private), static_cast<int>(rte_socket_id()),
                               RTE_MEMPOOL_F_NO_IOVA_CONTIG);
  if (mp == nullptr || rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), nullptr) != 0) {
    *err = "cannot create the mbuf pool for " + std::to_string(max_mbufs) +
           " mbufs: " + rte_strerror(rte_errno);
    rte_mempool_free(mp);
    return nullptr;
  }
  rte_pktmbuf_pool_private priv = {};
  priv.mbuf_data_room_size = room;
  rte_pktmbuf_pool_init(mp, &priv);
  if (GrowPool(mp, std::max<uint64_t>(initial, 1)) == 0) {
    *err = "cannot populate the mbuf pool (" + std::to_string(initial) +
           " mbufs): out of memory, or the pool's ring does not fit in EAL's memory (-m)";
    rte_mempool_free(mp);
    return nullptr;
  }
  return mp;
}

uint64_t GrowPool(rte_mempool* mp, uint64_t n) {
  n = std::min<uint64_t>(n, mp->size - mp->populated_size);
  if (n == 0) return 0;
  const size_t obj = mp->header_size + mp->elt_size + mp->trailer_size;
  // Exactly n objects (the mapping is page-rounded; munmap rounds the same).
  const size_t len = n * obj + RTE_MEMPOOL_ALIGN;
  void* addr = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (addr == MAP_FAILED) return 0;
  madvise(addr, len, MADV_HUGEPAGE);  // a hint: fewer TLB misses where THP is on
  // Where the next object header will be linked: afterwards it holds the
  // first of this chunk's (the mempool appends to elt_list in order).
  rte_mempool_objhdr** first_new = mp->elt_list.stqh_last;
  const int added = rte_mempool_populate_iova(mp, static_cast<char*>(addr), RTE_BAD_IOVA, len,
                                              UnmapChunk, nullptr);
  if (added <= 0) {
    munmap(addr, len);
    return 0;
  }
  // rte_pktmbuf_pool_create does this for a whole pool (rte_mempool_obj_iter);
  // here only for the chunk's objects, before anything can take one.
  unsigned i = mp->populated_size - static_cast<unsigned>(added);
  for (rte_mempool_objhdr* h = *first_new; h != nullptr; h = h->next.stqe_next)
    rte_pktmbuf_init(mp, nullptr, reinterpret_cast<char*>(h) + sizeof(*h), i++);
  return static_cast<uint64_t>(added);
}

}  // namespace pfc
