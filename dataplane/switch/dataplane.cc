// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/dataplane.h"

#include <rte_errno.h>
#include <rte_malloc.h>

#include <algorithm>
#include <cstdio>

#include "dataplane/switch/mbuf_pool.h"

namespace pfc::sw {

Dataplane::~Dataplane() {
  if (qsbr) rte_free(qsbr);
  if (pool && !process_ending) rte_mempool_free(pool);
}

std::unique_ptr<Dataplane> CreateDataplane(unsigned workers, uint64_t nmbufs, uint16_t room,
                                           std::string* err, uint64_t populate) {
  auto dp = std::make_unique<Dataplane>();
  dp->workers = workers;
  dp->tsc_hz = rte_get_tsc_hz();
  dp->ns_mult =
      static_cast<uint64_t>((static_cast<unsigned __int128>(1000000000u) << 32) / dp->tsc_hz);
  if (populate != 0) {
    dp->pool = CreateGrowablePool("pfc_pool", nmbufs, populate, room, err);
    if (!dp->pool) return nullptr;
  } else {
    dp->pool = rte_pktmbuf_pool_create("pfc_pool", static_cast<unsigned>(nmbufs), 256, 0, room,
                                       rte_socket_id());
  }
  if (!dp->pool) {
    *err =
        "cannot allocate " + std::to_string(nmbufs) + " mbufs of " + std::to_string(room) +
        " bytes: give EAL more memory (-m) or lower buffer.total_bytes: " + rte_strerror(rte_errno);
    return nullptr;
  }
  const size_t qsz = rte_rcu_qsbr_get_memsize(workers);
  dp->qsbr = static_cast<rte_rcu_qsbr*>(rte_zmalloc("pfc_qsbr", qsz, RTE_CACHE_LINE_SIZE));
  if (!dp->qsbr || rte_rcu_qsbr_init(dp->qsbr, workers) != 0) {
    *err = "cannot initialise RCU";
    return nullptr;
  }
  return dp;
}

rte_mbuf* Dataplane::GrowAndAlloc() {
  std::lock_guard<std::mutex> g(grow_mu_);
  // Another thread may have grown it while this one waited.
  if (rte_mbuf* m = rte_pktmbuf_alloc(pool)) return m;
  const uint64_t room = grow_limit > pool->populated_size ? grow_limit - pool->populated_size : 0;
  if (GrowPool(pool, std::min(NextPoolChunk(pool->populated_size), room)) == 0) {
    // Its callers retry (a host's frame, a pause frame next round): say
    // once why the fabric stalls rather than letting it look deadlocked.
    if (pool->populated_size < pool->size && !grow_failed_) {
      grow_failed_ = true;
      std::fprintf(stderr,
                   "pfcfabric: warning: cannot grow the mbuf pool past %u mbufs (%s): senders "
                   "wait for buffers, and a switch that cannot get one for a pause frame may "
                   "overrun its headroom\n",
                   pool->populated_size,
                   room == 0 ? "the memory available when the run started" : "out of memory");
    }
    return nullptr;
  }
  return rte_pktmbuf_alloc(pool);
}

}  // namespace pfc::sw
