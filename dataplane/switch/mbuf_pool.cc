// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/mbuf_pool.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <sys/mman.h>

#include <algorithm>

namespace pfc::sw {
namespace {

void UnmapChunk(rte_mempool_memhdr* memhdr, void*) { munmap(memhdr->addr, memhdr->len); }

// The pool's driver ("pfc_grow"): the objects in a multi-producer,
// multi-consumer rte_ring, as DPDK's ring_mp_mc driver keeps them, with
// one difference: populate initialises each mbuf before it enqueues it.
// The default driver enqueues objects as it slices them, so an mbuf of a
// chunk being added could be taken by another thread before
// rte_pktmbuf_init had run on it; this way a chunk can be added while
// other threads allocate (the virtual clock's partitions, Fabric).
int GrowAlloc(rte_mempool* mp) {
  char name[RTE_RING_NAMESIZE];
  if (snprintf(name, sizeof name, "pg_%s", mp->name) >= static_cast<int>(sizeof name))
    return -ENAMETOOLONG;
  rte_ring* r = rte_ring_create(name, rte_align32pow2(mp->size + 1), mp->socket_id, 0);
  if (r == nullptr) return -rte_errno;
  mp->pool_data = r;
  return 0;
}
void GrowFree(rte_mempool* mp) { rte_ring_free(static_cast<rte_ring*>(mp->pool_data)); }
int GrowEnqueue(rte_mempool* mp, void* const* objs, unsigned n) {
  return rte_ring_mp_enqueue_bulk(static_cast<rte_ring*>(mp->pool_data), objs, n, nullptr) == 0
             ? -ENOBUFS
             : 0;
}
int GrowDequeue(rte_mempool* mp, void** objs, unsigned n) {
  return rte_ring_mc_dequeue_bulk(static_cast<rte_ring*>(mp->pool_data), objs, n, nullptr) == 0
             ? -ENOBUFS
             : 0;
}
unsigned GrowCount(const rte_mempool* mp) {
  return rte_ring_count(static_cast<const rte_ring*>(mp->pool_data));
}

// What populate hands each object to (mempool_add_elem: the header, the
// object list) and then rte_pktmbuf_init, all before the enqueue.
struct InitArg {
  rte_mempool_populate_obj_cb_t* add;
  void* add_arg;
  unsigned index;  // the mbuf's index in the pool, as rte_pktmbuf_init takes it
};
void AddAndInit(rte_mempool* mp, void* opaque, void* obj, rte_iova_t iova) {
  InitArg* a = static_cast<InitArg*>(opaque);
  a->add(mp, a->add_arg, obj, iova);
  rte_pktmbuf_init(mp, nullptr, obj, a->index++);
}
int GrowPopulate(rte_mempool* mp, unsigned max_objs, void* vaddr, rte_iova_t iova, size_t len,
                 rte_mempool_populate_obj_cb_t* obj_cb, void* obj_cb_arg) {
  InitArg a{obj_cb, obj_cb_arg, mp->populated_size};
  return rte_mempool_op_populate_helper(mp, 0, max_objs, vaddr, iova, len, AddAndInit, &a);
}

rte_mempool_ops g_grow_ops = {
    .name = "pfc_grow",
    .alloc = GrowAlloc,
    .free = GrowFree,
    .enqueue = GrowEnqueue,
    .dequeue = GrowDequeue,
    .get_count = GrowCount,
    .calc_mem_size = nullptr,  // the default
    .populate = GrowPopulate,
    .get_info = nullptr,
    .dequeue_contig_blocks = nullptr,
};

// Registered on first use, after EAL has loaded its mempool drivers, not
// by a constructor at load time: a driver's index in the ops table is
// what a pool records, and a secondary process (dpdk-dumpcap attached to
// pfcswitch) has no pfc_grow in its table. Registered first, it shifted
// every driver's index in pfcswitch, and dumpcap's capture pool (created
// by the secondary with ring_mp_mc's index) ran the wrong driver in the
// primary (tests/system/test_dumpcap.py). Appended last, the indices
// both processes share agree.
bool RegisterGrowOps(std::string* err) {
  static const int index = rte_mempool_register_ops(&g_grow_ops);
  if (index >= 0) return true;
  *err = std::string("cannot register the mbuf pool's driver: ") + rte_strerror(-index);
  return false;
}

}  // namespace

rte_mempool* CreateGrowablePool(const char* name, uint64_t max_mbufs, uint64_t initial,
                                uint16_t room, std::string* err) {
  if (max_mbufs > UINT32_MAX) {
    *err = "cannot create the mbuf pool: " + std::to_string(max_mbufs) +
           " mbufs is more than one pool holds (2^32 - 1)";
    return nullptr;
  }
  if (!RegisterGrowOps(err)) return nullptr;
  rte_mempool* mp =
      rte_mempool_create_empty(name, static_cast<unsigned>(max_mbufs), sizeof(rte_mbuf) + room, 256,
                               sizeof(rte_pktmbuf_pool_private), static_cast<int>(rte_socket_id()),
                               RTE_MEMPOOL_F_NO_IOVA_CONTIG);
  if (mp == nullptr || rte_mempool_set_ops_byname(mp, g_grow_ops.name, nullptr) != 0) {
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
  const int added = rte_mempool_populate_iova(mp, static_cast<char*>(addr), RTE_BAD_IOVA, len,
                                              UnmapChunk, nullptr);
  if (added <= 0) {
    munmap(addr, len);
    return 0;
  }
  return static_cast<uint64_t>(added);
}

}  // namespace pfc::sw
