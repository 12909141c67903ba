// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/worker.h"

#include <rte_ethdev.h>

#include <algorithm>
#include <sys/prctl.h>

#include <ctime>

#include "dataplane/stages/egress.h"
#include "dataplane/stages/ingress.h"
#include "dataplane/stages/pfc_stage.h"

namespace pfc {
namespace {
// Empty rounds before sleeping: a few microseconds of spinning keeps latency
// low for back-to-back traffic without burning a core when idle.
constexpr unsigned kIdleRoundsBeforeSleep = 16;
}  // namespace

namespace {

unsigned Round(WorkerCtx& w, uint64_t now_ns, uint64_t* ready_ns, bool refresh_clock) {
  Runtime& rt = *w.rt;
  w.now_ns = now_ns;
  const Tables* t = rt.CurrentTables();
  unsigned work = 0;
  for (PortId p : w.ports) {
    rte_mbuf* pkts[kMaxBurst];
    const uint16_t n = rte_eth_rx_burst(rt.ports[p].dpdk_port, 0, pkts, rt.cfg.burst);
    if (n == 0) continue;
    IngressBurst(w, *t, p, pkts, n);
    work += n;
    // A long burst (or a stalled round) must not date later events, such
    // as a pause frame on the next port, from the start of the round. A
    // virtual clock (tests) stays where the caller put it.
    if (refresh_clock) w.now_ns = rt.NowNs();
  }
  for (PortId p : w.ports) {
    PfcGenerate(w, p);
    const uint8_t paused = rt.ports[p].owner_state->pause.PausedMask(w.now_ns);
    work += EgressPort(w, p, paused, ready_ns);
    PfcPublish(w, p);
    const uint64_t d = PfcNextDeadline(w, p);
    if (d && (*ready_ns == 0 || d < *ready_ns)) *ready_ns = d;
  }
  return work;
}

}  // namespace

unsigned WorkerRound(WorkerCtx& w, uint64_t now_ns, uint64_t* ready_ns) {
  return Round(w, now_ns, ready_ns, false);
}

unsigned WorkerRound(WorkerCtx& w, uint64_t* ready_ns) {
  return Round(w, w.rt->NowNs(), ready_ns, true);
}

int WorkerMain(void* arg) {
  WorkerCtx& w = *static_cast<WorkerCtx*>(arg);
  Runtime& rt = *w.rt;
  // The default 50 us timer slack would double a 50 us idle sleep.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  rte_rcu_qsbr_thread_register(rt.qsbr, w.id);
  rte_rcu_qsbr_thread_online(rt.qsbr, w.id);
  unsigned idle = 0;
  while (!rt.stop.load(std::memory_order_relaxed)) {
    uint64_t ready_ns = 0;
    const unsigned work = WorkerRound(w, &ready_ns);
    rte_rcu_qsbr_quiescent(rt.qsbr, w.id);
    w.st->loops.Add(1);
    if (work) {
      idle = 0;
      continue;
    }
    if (rt.cfg.idle_sleep_us == 0 || ++idle < kIdleRoundsBeforeSleep) continue;
    uint64_t sleep_ns = uint64_t{rt.cfg.idle_sleep_us} * 1000;
    if (ready_ns > w.now_ns) sleep_ns = std::min(sleep_ns, ready_ns - w.now_ns);
    // Offline while asleep so a table swap does not wait for us.
    rte_rcu_qsbr_thread_offline(rt.qsbr, w.id);
    timespec ts{0, static_cast<long>(sleep_ns)};
    nanosleep(&ts, nullptr);
    rte_rcu_qsbr_thread_online(rt.qsbr, w.id);
    w.st->idle_sleeps.Add(1);
  }
  rte_rcu_qsbr_thread_offline(rt.qsbr, w.id);
  rte_rcu_qsbr_thread_unregister(rt.qsbr, w.id);
  return 0;
}

}  // namespace pfc
