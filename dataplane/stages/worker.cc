// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/worker.h"

#include <rte_epoll.h>
#include <rte_log.h>
#include <sys/prctl.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include "dataplane/sched/idle_policy.h"
#include "dataplane/stages/egress.h"
#include "dataplane/stages/ingress.h"
#include "dataplane/stages/mechanism.h"
#include "dataplane/stages/pfc_stage.h"
#include "dataplane/switch/log.h"

namespace pfc::stages {
namespace {
// Empty rounds before sleeping: a few microseconds of spinning keeps latency
// low for back-to-back traffic without burning a core when idle.
constexpr unsigned kIdleRoundsBeforeSleep = 16;
}  // namespace

namespace {

// A provided port with nothing arrived by now (port_io.h): skip the rx
// call (an ethdev port is always polled).
bool NothingToReceive(const sw::PortIo& io, uint64_t now_ns) {
  return !io.ethdev() && io.provider->NothingToReceive(now_ns);
}

// A port whose whole egress round would change nothing and report no
// deadline but its link's: its PFC generator quiet with every lossless
// priority group empty (PfcGenerate observes nothing, has nothing to send),
// no PFC frame and no running pause since the last publish (PfcPublish skips
// it, no pause expiry ahead), no watch running (PfcwdRound looks at
// nothing) and nothing queued (EgressPort returns 0). What is left of its
// egress round is a provided port's Poll (frames to start, the next
// arrival, a full queue taking frames again), which the caller runs alone.
// Checked with a few loads, so a round of a 64-port switch with one busy
// port costs about one port's work.
//
// kHolding: the same but for groups that hold bytes which, under pfc.decide
// on_change, decide nothing this round: each holds exactly what the
// generator saw at its last look (PfcGenerator::Unchanged), so Observe
// would change nothing, with the link as its last round saw it
// (LinkChanged). Only with an active set, which no feature's hooks share
// (ActivePortsAllowed): a hook may act on a port that holds bytes. Such a
// port stays in the set (its bytes leave with another port's dequeue,
// which does not add it back): a loaded Clos switch holds bytes from most
// ports while its frames are queued elsewhere, and its rounds visited all
// of them in full.
enum class PortLook : uint8_t { kBusy, kQuiet, kHolding };

PortLook LookAtPort(const WorkerCtx& w, PortId p) {
  const sw::Switch& sw = *w.sw;
  const sw::PortRuntime& pr = sw.ports[p];
  const sw::PortOwnerState& os = *pr.owner_state;
  if (!os.pfc_gen.quiet() || os.pfc_changed || os.pfc_live != 0) return PortLook::kBusy;
  if (w.hooks.PortBusy(w, p)) return PortLook::kBusy;  // e.g. a storm or a stall under watch
  bool holding = false;
  for (uint32_t m = w.t->tag_map.lossless_mask; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    const uint64_t occ = sw.buffer.occupancy(p, q);
    if (occ == 0) continue;
    if (w.active == nullptr || !os.pfc_gen.Unchanged(q, occ)) return PortLook::kBusy;
    holding = true;
  }
  if (!NothingQueued(w, pr)) return PortLook::kBusy;
  if (!holding) return PortLook::kQuiet;
  // Every port is provided with an active set.
  if (pr.io.provider->LinkUp() != os.link_up) return PortLook::kBusy;
  return PortLook::kHolding;
}

// The ports of `*mask` in order, the mask re-read after each so that a
// port added during the loop (something queued to it) is visited when the
// full loop would visit it.
template <typename F>
void ForEachIn(const PortMask* mask, F&& f) {
  for (PortMask m = *mask; m != 0;) {
    const auto p = static_cast<PortId>(__builtin_ctzll(m));
    f(p);
    m = p == kMaxPorts - 1 ? 0 : *mask & (~PortMask{0} << (p + 1));
  }
}

// Receives a burst on port p; returns the packets.
unsigned RxPort(WorkerCtx& w, PortId p, bool refresh_clock) {
  sw::Switch& sw = *w.sw;
  rte_mbuf* pkts[kMaxBurst];
  const uint16_t n = sw::PortRx(sw.ports[p].io, pkts, w.t->burst, w.now_ns);
  if (n == 0) return 0;
  if (n == w.t->burst) w.burst_full = true;
  IngressBurst(w, p, pkts, n);
  // A long burst (or a stalled round) must not date later events, such
  // as a pause frame on the next port, from the start of the round. A
  // virtual clock (tests) stays where the caller put it.
  if (refresh_clock) w.now_ns = sw.dp.NowNs();
  return n;
}

// A round. Its two halves visit every owned port or, with an active set
// (worker_ctx.h), the ports with frames on their way in (receive) and the
// ports that may have something to send (egress): one loop each either way, so that the
// stages it calls have one call site and stay inlined (the standalone
// switch's light-load cost, bench/fabric/cost.sh).
unsigned Round(WorkerCtx& w, uint64_t now_ns, Deadline* ready_ns, bool refresh_clock) {
  sw::Switch& sw = *w.sw;
  w.now_ns = now_ns;
  w.t = sw.CurrentTables();
  w.burst_full = false;
  ActivePorts* const active = w.active;
  unsigned work = 0;
  // With an active set: which of its ports have frames landed by now, in
  // one pass over their next landings (a loaded fabric switch has a frame
  // on its way on most ports, and one or two landed); the others report
  // their next landing here (a full round has each port's Poll report it),
  // and a port with nothing on its way leaves the set. Nothing this round
  // does lands by now on one of its own ports (a frame takes wire time),
  // so the set taken up front is the one a port-by-port visit would see.
  // The earliest landing is kept in a register and stored once: lowered
  // through ready_ns, which may alias what the loop reads, each port waited
  // on the last one's store (Round had 24.7% of a fabric run's samples with
  // it, 21.8% without).
  PortMask landed = 0;
  if (active) {
    PortMask gone = 0;
    const Deadline now = w.now_ns;
    Deadline soonest = kNever;
    for (PortMask m = active->rx; m != 0; m &= m - 1) {
      const PortMask bit = m & -m;
      const Deadline next = active->next_rx[__builtin_ctzll(m)].at;
      if (next <= now) {
        landed |= bit;
      } else {
        soonest = Earliest(soonest, next);
        if (next == kNever) gone |= bit;
      }
    }
    LowerTo(ready_ns, soonest);
    active->rx &= ~gone;
  }
  ForEachIn(active ? &landed : &w.owned, [&](PortId p) {
    if (!active && NothingToReceive(sw.ports[p].io, w.now_ns)) return;
    work += RxPort(w, p, refresh_clock);
    if (active) {
      active->tx |= PortMask{1} << p;  // its buffer, a pause received
      const sw::Landing next = sw.ports[p].io.provider->NextLanding();
      active->next_rx[p] = next;
      LowerTo(ready_ns, next.at);
    }
  });
  w.hooks.Round(w);
  ForEachIn(active ? &active->tx : &w.owned, [&](PortId p) {
    const PortLook look = LookAtPort(w, p);
    if (look == PortLook::kBusy) {
      work += EgressRound(w, p, ready_ns);
      return;
    }
    sw::PortProvider* const prov = sw.ports[p].io.provider;
    if (prov == nullptr) return;  // an ethdev
    // The provider's part of EgressRound (with nothing to send on it, Poll
    // returns just the next frame on its way to us, which an active set
    // knows); a quiet port with its transmit side idle leaves the set.
    const bool may_leave = active && look == PortLook::kQuiet;
    if (active && prov->TxQuiet()) {
      LowerTo(ready_ns, active->next_rx[p].at);
      if (may_leave) active->tx &= ~(PortMask{1} << p);
      return;
    }
    LowerTo(ready_ns, prov->Poll(w.now_ns));
    if (may_leave && prov->TxQuiet()) active->tx &= ~(PortMask{1} << p);
  });
  // Full lossless rings that drained take what waited for them, before the
  // next round's ingress queues behind it.
  if (w.held->packets != 0) [[unlikely]]
    work += MoveHeld(w);
  // Nothing moved this round: what the batches held back of the pool is
  // published, so an idle switch shows its exact occupancy.
  if (work == 0 && w.pool_slack.pending() != 0) w.pool_slack.Publish(sw.buffer);
  return work;
}

}  // namespace

namespace {

// A link that went down or came back since the port's last round: as a
// real port's link-down does, the pauses it received end (counted) and the
// peer is taken to have forgotten ours (pfc_generator.h OnLinkChange), so
// a link that flapped does not keep a received pause for up to 3.4 ms (at
// 10 Gb/s) after it is back. A provided port's link state is its
// provider's; a device port's is what the control thread's watch published
// (switch/link_watch.h).
void LinkChanged(WorkerCtx& w, PortId p) {
  const sw::PortRuntime& pr = w.sw->ports[p];
  sw::PortOwnerState& os = *pr.owner_state;
  const bool up =
      pr.io.ethdev() ? os.dev_link_up.load(std::memory_order_relaxed) : pr.io.provider->LinkUp();
  if (up == os.link_up) [[likely]]
    return;
  os.link_up = up;
  if (!up) {
    w.st->port[p].link_down_events.Add(1);
    if (os.pause.EndAll(w.now_ns) != 0) w.st->port[p].pause_cleared_link_down.Add(1);
    os.pause_open = os.pause.open_mask();
  }
  os.pfc_gen.OnLinkChange(up, w.now_ns);
  os.pfc_changed = true;
}

}  // namespace

uint16_t EgressRound(WorkerCtx& w, PortId p, Deadline* ready_ns) {
  sw::Switch& sw = *w.sw;
  LinkChanged(w, p);
  PfcGenerate(w, p);
  // The features first (hooks.h, egress): the watchdog's drop empties a
  // storming queue before egress looks, its forward unmasks the storming
  // priority's pause; DCFIT's trigger handling unmasks a trigger host's
  // pause the same way.
  const uint8_t ignore = w.hooks.EgressIgnore(w, p, ready_ns);
  const sw::PortOwnerState& os = *sw.ports[p].owner_state;
  const uint8_t paused = (os.pause_open ? os.pause.PausedMask(w.now_ns) : 0) & ~ignore;
  // Most visits of a loaded fabric's ports find nothing queued (the port is
  // visited for its PFC generator, its ingress holding bytes): no call then.
  const uint16_t sent =
      NothingQueued(w, sw.ports[p]) ? 0 : EgressPort(w, p, static_cast<uint8_t>(paused), ready_ns);
  PfcPublish(w, p);
  LowerTo(ready_ns, Earliest(PfcNextDeadline(w, p), w.hooks.NextDeadline(w, p)));
  // A provided port: frames to start, the next arrival, a full queue
  // taking frames again.
  if (sw::PortProvider* prov = sw.ports[p].io.provider; prov != nullptr)
    LowerTo(ready_ns, prov->Poll(w.now_ns));
  return sent;
}

bool RoundLeftWork(const WorkerCtx& w) {
  const sw::Switch& sw = *w.sw;
  if (w.burst_full || w.hooks.RoundAgain(w)) return true;
  // An inactive port is quiet (worker_ctx.h): its generator too.
  if (w.active != nullptr) {
    for (PortMask m = w.active->tx; m != 0; m &= m - 1) {
      if (!sw.ports[__builtin_ctzll(m)].owner_state->pfc_gen.quiet()) return true;
    }
    return false;
  }
  for (PortId p : w.ports) {
    if (!sw.ports[p].owner_state->pfc_gen.quiet() || w.hooks.PortBusy(w, p)) return true;
  }
  return false;
}

unsigned WorkerRound(WorkerCtx& w, uint64_t now_ns, Deadline* ready_ns) {
  return Round(w, now_ns, ready_ns, false);
}

void PrefetchRoundStart(const WorkerCtx* w, const ActivePorts* active) {
  // Written every round (clock, burst flag): fetched for writing.
  __builtin_prefetch(w, 1);
  __builtin_prefetch(reinterpret_cast<const char*>(w) + 64);
  if (active != nullptr) __builtin_prefetch(active, 1);
}

void PrefetchRoundPorts(const WorkerCtx& w, uint64_t now_ns) {
  const ActivePorts* const a = w.active;
  if (a == nullptr) return;  // every port visited: too many lines to fetch
  const sw::Switch& sw = *w.sw;
  for (PortMask m = a->rx; m != 0; m &= m - 1) {
    const auto p = static_cast<PortId>(__builtin_ctzll(m));
    const sw::Landing& l = a->next_rx[p];
    if (l.at > now_ns) continue;
    const sw::PortRuntime& pr = sw.ports[p];
    __builtin_prefetch(&pr);
    __builtin_prefetch(pr.owner_state.get());
    __builtin_prefetch(pr.io.provider);
    __builtin_prefetch(&w.st->port[p], 1);  // its rx counters
    sw::PrefetchLanding(l);
  }
  for (PortMask m = a->tx; m != 0; m &= m - 1) {
    const auto p = static_cast<PortId>(__builtin_ctzll(m));
    __builtin_prefetch(sw.ports[p].owner_state.get());
    __builtin_prefetch(&w.st->port[p], 1);  // its tx counters
  }
}

unsigned WorkerRound(WorkerCtx& w, Deadline* ready_ns) {
  return Round(w, w.sw->dp.NowNs(), ready_ns, true);
}

bool ActivePortsAllowed(const WorkerCtx& w) {
  if (!w.solo || w.sw->ports.size() > kMaxPorts) return false;
  for (const sw::PortRuntime& pr : w.sw->ports) {
    if (pr.io.ethdev()) return false;
  }
  const Hooks& h = w.hooks;
  return h.round.n == 0 && h.egress.n == 0 && h.deadline.n == 0 && h.port_busy.n == 0 &&
         h.held_lossy.n == 0 && h.round_again.n == 0;
}

WorkerCtx MakeWorkerCtx(sw::Switch& sw, unsigned id) {
  WorkerCtx w;
  w.sw = &sw;
  w.id = id;
  w.st = sw.stats[id].get();
  w.held = sw.held[id].get();
  bool shared = false;  // does another worker serve ports of sw?
  for (PortId p = 0; p < sw.ports.size(); p++) {
    if (sw.ports[p].owner == id) w.ports.push_back(p);
    if (sw.ports[p].owner == id && p < kMaxPorts) w.owned |= PortMask{1} << p;
    if (sw.ports[p].owner != id) shared = true;
  }
  w.pool_slack.set_enabled(shared);
  sw.buffer.set_single_writer(!shared);
  w.solo = !shared;
  w.private_rings = !shared && sw.dp.own_memory;
  MakeMechanismState(sw);
  MakeMechanismWorkerState(w);
  w.hooks = BuildHooks(sw);
  return w;
}

namespace {

// One round of every switch the worker serves; *ready_ns is lowered to the
// earliest deadline they report. Returns packets moved.
unsigned RoundAll(Worker& wk, Deadline* ready_ns) {
  unsigned work = 0;
  for (WorkerCtx& w : wk.slots) {
    work += WorkerRound(w, ready_ns);
    w.st->loops.Add(1);
  }
  return work;
}

// Receive interrupts for the idle back-off. A worker whose every port has
// them (net_vhost: the guest kicks a queue that asked for it) and whose
// switches no other worker serves has nothing to wake for but a packet or
// one of its own deadlines: it can sleep until then instead of waking every
// idle_sleep_us to look. A worker sharing a switch is not used so: another
// worker's ingress fills its egress rings without a kick.
struct RxIntrWait {
  std::vector<uint16_t> ports;  // DPDK ports registered in this thread's epoll set
  bool usable = false;

  // In the worker's own thread: the epoll set is per thread.
  void Setup(const Worker& wk) {
    bool all = true;
    for (const WorkerCtx& w : wk.slots) {
      all = all && w.solo;
      for (PortId p : w.ports) {
        const sw::PortIo& io = w.sw->ports[p].io;
        if (!io.ethdev() || !io.rx_intr ||
            rte_eth_dev_rx_intr_ctl_q(io.dpdk_port, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD,
                                      nullptr) != 0) {
          all = false;
          continue;
        }
        ports.push_back(io.dpdk_port);
      }
    }
    usable = all && !ports.empty();
    if (usable)
      PFC_LOG(INFO, worker,
              "pfcswitch: worker %u sleeps until a packet on its %zu ports or a deadline\n", wk.id,
              ports.size());
  }

  // Sleeps until a packet arrives, the next deadline or interrupt_sleep_ms.
  // Returns the packets a last look found (then it did not sleep).
  unsigned Sleep(Worker& wk) {
    sw::Dataplane& dp = *wk.dp;
    Deadline ready_ns = kNever;
    for (uint16_t pid : ports) rte_eth_dev_rx_intr_enable(pid, 0);
    // A packet queued before its port asked for kicks sent none: look once
    // more with the kicks on.
    const unsigned work = RoundAll(wk, &ready_ns);
    const uint64_t now = dp.NowNs();
    // 0: a deadline within 1 ms (epoll's unit), left to the timed sleep.
    const uint64_t ms =
        ready_ns > now ? std::min<uint64_t>(dp.interrupt_sleep_ms, (ready_ns - now) / 1'000'000)
                       : 0;
    if (work == 0 && ms > 0) {
      rte_rcu_qsbr_thread_offline(dp.qsbr, wk.id);
      rte_epoll_event ev[8];
      rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 8, static_cast<int>(ms));
      rte_rcu_qsbr_thread_online(dp.qsbr, wk.id);
      for (WorkerCtx& w : wk.slots) w.st->intr_sleeps.Add(1);
    }
    for (uint16_t pid : ports) rte_eth_dev_rx_intr_disable(pid, 0);
    return work;
  }
};

}  // namespace

int WorkerMain(void* arg) {
  Worker& wk = *static_cast<Worker*>(arg);
  sw::Dataplane& dp = *wk.dp;
  // The default 50 us timer slack would double a 50 us idle sleep.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  rte_rcu_qsbr_thread_register(dp.qsbr, wk.id);
  rte_rcu_qsbr_thread_online(dp.qsbr, wk.id);
  RxIntrWait intr;
  if (dp.idle_sleep_us != 0) intr.Setup(wk);
  unsigned idle = 0;
  sched::IdlePolicy policy;  // when intr.usable
  bool after_sleep = false;
  while (!dp.stop.load(std::memory_order_relaxed)) {
    Deadline ready_ns = kNever;
    const unsigned work = RoundAll(wk, &ready_ns);
    rte_rcu_qsbr_quiescent(dp.qsbr, wk.id);
    if (after_sleep) {
      policy.AfterSleep(work);
      after_sleep = false;
    }
    if (work) {
      idle = 0;
      continue;
    }
    if (dp.idle_sleep_us == 0 || ++idle < kIdleRoundsBeforeSleep) continue;
    const uint64_t now = dp.NowNs();
    // Interrupts when nothing is due within a millisecond (epoll's unit;
    // kNever is beyond it); else the timed sleep below keeps the deadline.
    if (intr.usable && !policy.timed() && ready_ns > now && ready_ns - now >= 1'000'000) {
      const unsigned found = intr.Sleep(wk);
      if (found) {
        idle = 0;
        policy.AfterSleep(found);
      } else {
        after_sleep = true;
      }
      continue;
    }
    uint64_t sleep_ns = uint64_t{dp.idle_sleep_us} * 1000;
    if (ready_ns > now) sleep_ns = std::min(sleep_ns, ready_ns - now);
    // Offline while asleep so a table swap does not wait for us.
    rte_rcu_qsbr_thread_offline(dp.qsbr, wk.id);
    timespec ts{0, static_cast<long>(sleep_ns)};
    nanosleep(&ts, nullptr);
    rte_rcu_qsbr_thread_online(dp.qsbr, wk.id);
    for (WorkerCtx& w : wk.slots) w.st->idle_sleeps.Add(1);
    after_sleep = true;
  }
  for (WorkerCtx& w : wk.slots) w.pool_slack.Publish(w.sw->buffer);
  rte_rcu_qsbr_thread_offline(dp.qsbr, wk.id);
  rte_rcu_qsbr_thread_unregister(dp.qsbr, wk.id);
  return 0;
}

}  // namespace pfc::stages
