// SPDX-License-Identifier: BSD-3-Clause
// Pause-storm watchdog glue. See pfcwd_stage.h.
#include "dataplane/stages/pfcwd_stage.h"

#include <rte_ring.h>

#include <array>
#include <memory>
#include <vector>

#include "dataplane/stages/egress.h"
#include "dataplane/switch/log.h"

namespace pfc::stages {
namespace {

PfcwdState& StateOf(const WorkerCtx& w) {
  return MechanismStateOf<PfcwdState>(*w.sw, kPfcwdMechanism);
}
PortWatch& WatchOf(const WorkerCtx& w, PortId port) { return StateOf(w).port[port]; }

// Cold: two events a storm. Returns the packets discarded.
[[gnu::noinline]] uint32_t OnEvent(WorkerCtx& w, PortId port, int q, pause::Pfcwd::Event ev) {
  PortWatch& os = WatchOf(w, port);
  const pause::Pfcwd& wd = os.wd[q];
  sw::PrioCounters& c = w.st->prio[port][q];
  PfcwdEvent e;
  e.port = port;
  e.prio = static_cast<uint8_t>(q);
  e.t_ns = w.now_ns;
  const uint8_t bit = static_cast<uint8_t>(1u << q);
  if (ev == pause::Pfcwd::Event::kDetected) {
    os.storm |= bit;
    c.pfcwd_storms.Add(1);
    e.since_ns = wd.stall_since();
    if (os.cfg.action == pause::PfcwdAction::kDrop)
      e.drops = DiscardQueue(w, port, q, DropReason::kPfcwdStorm);
  } else {
    os.storm &= static_cast<uint8_t>(~bit);
    c.pfcwd_restores.Add(1);
    e.restored = true;
    e.since_ns = wd.storm_since();
  }
  StateOf(w).log.Add(e);  // the control thread prints it (switch/log.h)
  return e.drops;
}

}  // namespace

uint8_t PfcwdRound(WorkerCtx& w, PortId port, Deadline* ready_ns) {
  sw::Switch& sw = *w.sw;
  sw::PortRuntime& pr = sw.ports[port];
  sw::PortOwnerState& ps = *pr.owner_state;
  PortWatch& os = WatchOf(w, port);
  if (!os.cfg.enabled) return 0;
  const uint8_t ll = w.t->tag_map.lossless_mask;
  const uint8_t paused = ps.pause.PausedMask(w.now_ns) & ll;
  // Unpaused priorities with no watch running stay idle: Poll would only
  // reset a stall that is not there.
  const uint8_t look = paused | os.active;
  if (!look) return 0;
  uint32_t dropped = 0;
  for (uint32_t m = look; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    pause::Pfcwd& wd = os.wd[q];
    sw::PrioCounters& c = w.st->prio[port][q];
    pause::PfcwdObservation o;
    o.paused = (paused >> q) & 1;
    o.paused_until = ps.pause.PausedUntil(q);
    o.queued = ps.data_stash[q].n != 0 || !rte_ring_empty(pr.egress[q]);
    o.tx_packets = c.tx_packets.Get();  // we are its only writer
    const pause::Pfcwd::Event ev = wd.Poll(w.now_ns, o, os.cfg);
    if (ev != pause::Pfcwd::Event::kNone) dropped += OnEvent(w, port, q, ev);
    const uint8_t bit = static_cast<uint8_t>(1u << q);
    if (wd.in_storm() || wd.stall_since() != kNever)
      os.active |= bit;
    else
      os.active &= static_cast<uint8_t>(~bit);
    if (wd.in_storm() || ev == pause::Pfcwd::Event::kRestored) {
      c.pfcwd_storm_ns.Set(wd.StormNs(w.now_ns));
      c.pfcwd_in_storm.Set(wd.in_storm());
    }
  }
  if (!os.storm) return 0;
  if (os.cfg.action == pause::PfcwdAction::kDrop) {
    // New arrivals of a storming priority go the way of the queue.
    for (uint32_t m = os.storm; m; m &= m - 1)
      dropped += DiscardQueue(w, port, __builtin_ctz(m), DropReason::kPfcwdStorm);
    if (dropped) LowerTo(ready_ns, w.now_ns + 1);
  }
  return os.cfg.action == pause::PfcwdAction::kForward ? os.storm : 0;
}

Deadline PfcwdNextDeadline(const WorkerCtx& w, PortId port) {
  const PortWatch& os = WatchOf(w, port);
  Deadline d = kNever;
  for (uint32_t m = os.active; m; m &= m - 1)
    LowerTo(&d, os.wd[__builtin_ctz(m)].NextDeadline(os.cfg));
  return d;
}

bool PfcwdPortBusy(const WorkerCtx& w, PortId port) { return WatchOf(w, port).active != 0; }

namespace {
bool PfcwdWanted(const sw::Switch& sw) {
  for (size_t p = 0; p < sw.cfg.ports.size(); p++)
    if (config::PfcWatchdogFor(sw.cfg, static_cast<PortId>(p)).enabled) return true;
  return false;
}
std::unique_ptr<sw::MechanismState> PfcwdMakeState(const sw::Switch& sw) {
  auto s = std::make_unique<PfcwdState>();
  s->port.resize(sw.ports.size());
  for (size_t p = 0; p < sw.ports.size() && p < sw.cfg.ports.size(); p++)
    s->port[p].cfg = config::PfcWatchdogFor(sw.cfg, static_cast<PortId>(p));
  return s;
}
void PfcwdWire(const sw::Switch&, Hooks* h) {
  h->egress.Add(PfcwdRound);
  h->deadline.Add(PfcwdNextDeadline);
  h->port_busy.Add(PfcwdPortBusy);
}
}  // namespace

void PfcwdState::PrintEvents(const sw::Switch& sw, uint64_t* seen, const sw::PortNamer&) const {
  log.ForEachSince(seen, [&](const PfcwdEvent& e) {
    sw::EventLine(sw::pfc_logtype_pfcwd, sw, "pfcwd", PfcwdEventText(e, sw.ports[e.port].name));
  });
}

PfcwdEventLog* PfcwdLogOf(const sw::Switch& sw) {
  PfcwdState* s = FindMechanismState<PfcwdState>(sw, kPfcwdMechanism);
  return s ? &s->log : nullptr;
}

const Mechanism kPfcwdMechanism = {
    .name = "pfcwd",
    .runs_after = {},
    // At egress, its drop empties a storming queue, and its forward
    // unmasks the storming priority's pause, before the others look.
    .runs_before = {"dcfit"},
    .wanted = PfcwdWanted,
    .wire = PfcwdWire,
    .make_state = PfcwdMakeState,
};

}  // namespace pfc::stages
