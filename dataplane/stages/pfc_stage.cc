// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/pfc_stage.h"

#include <rte_ethdev.h>

#include "dataplane/pause/pfc_frame.h"

namespace pfc::stages {

void PfcReceive(WorkerCtx& w, PortId in, rte_mbuf* m) {
  sw::Switch& sw = *w.sw;
  sw::PortRuntime& pr = sw.ports[in];
  sw::PortOwnerState& os = *pr.owner_state;
  sw::PortCounters& pc = w.st->port[in];
  pause::PauseRequest req;
  const uint8_t* frame = rte_pktmbuf_mtod(m, const uint8_t*);
  const pause::MacCtlKind kind =
      pause::ParseMacControl(frame, rte_pktmbuf_data_len(m), &req, &pr.mac);
  if (kind == pause::MacCtlKind::kPfc) w.hooks.PfcRx(w, in, frame, rte_pktmbuf_data_len(m), req);
  rte_pktmbuf_free(m);
  if (kind == pause::MacCtlKind::kMalformed ||
      (kind == pause::MacCtlKind::kPause && !w.t->honor_pause_8023x)) {
    w.st->prio[in][w.t->tag_map.lossy_prio].drops[static_cast<int>(DropReason::kPfcMalformed)].Add(
        1);
    return;
  }
  if (kind == pause::MacCtlKind::kPause) {
    pc.pause_8023x_rx.Add(1);
  } else {
    pc.pfc_frames_rx.Add(1);
    // Honoured all the same (see pfc_frame.h); counted so that a peer
    // sending reserved bits is visible.
    if (req.reserved_octet) pc.pfc_reserved_bits_rx.Add(1);
  }
  // A lossless priority the port does not enable (ports[].pfc_enable) is
  // lossy here: requests for it are ignored, as SONiC's ASICs do on a
  // priority without PFC, and counted so a peer that still pauses it shows.
  if (const uint8_t ignored = req.class_enable & os.pfc_ignore_rx) [[unlikely]] {
    req.class_enable &= static_cast<uint8_t>(~ignored);
    for (uint32_t b = ignored; b; b &= b - 1)
      w.st->prio[in][__builtin_ctz(b)].pfc_ignored_rx.Add(1);
  }
  os.pause.OnFrame(req, w.now_ns, os.pause_bps);
  os.pause_open = os.pause.open_mask();
  os.pfc_changed = true;
  os.pfc_named |= req.class_enable;
  for (int q = 0; q < kNumPrio; q++) {
    if (!((req.class_enable >> q) & 1)) continue;
    if (req.quanta[q])
      w.st->prio[in][q].pfc_xoff_rx.Add(1);
    else
      w.st->prio[in][q].pfc_xon_rx.Add(1);
  }
}

void PfcGenerate(WorkerCtx& w, PortId port) {
  sw::Switch& sw = *w.sw;
  sw::PortRuntime& pr = sw.ports[port];
  sw::PortOwnerState& os = *pr.owner_state;
  // The port's own lossless set: qos.lossless, or its pfc_enable subset.
  const uint8_t ll = os.pfc_gen.config().lossless_mask;
  if (!ll) return;
  // Only priority groups whose state can change: an empty group in ON stays
  // ON whatever its (dynamic) thresholds, since it pauses only above XOFF. An
  // idle port so skips the threshold arithmetic, and, when no priority is OFF
  // or announced, the rest (the generator has nothing to send).
  const uint8_t off = os.pfc_gen.off_mask();
  // A port whose priorities a feature holds lossy (held_lossy, hooks.h:
  // DCFIT's trigger host) does not pause its peer on them: seen as empty,
  // so an XOFF in force becomes XON.
  const uint8_t held = w.hooks.HeldLossy(w, port);
  for (uint32_t m = ll; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    const bool is_held = (held >> q) & 1;
    const uint64_t occ = is_held ? 0 : sw.buffer.occupancy(port, q);
    if (occ == 0 && !((off >> q) & 1)) {
      os.pfc_gen.ObserveEmpty(q);
      continue;
    }
    uint64_t level, xoff, resume;
    sw.buffer.PfcLevels(port, q, &level, &xoff, &resume);
    os.pfc_gen.Observe(q, is_held ? 0 : level, xoff, is_held ? xoff : resume);
  }
  if (os.pfc_gen.quiet()) return;
  pause::PauseRequest req;
  if (!os.pfc_gen.Collect(w.now_ns, &req)) return;
  rte_mbuf* m = sw.dp.Alloc();
  if (!m) return;  // retried next round: the generator still wants it
  uint8_t* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, pause::kPfcFrameLen));
  if (!f) {
    rte_pktmbuf_free(m);
    return;
  }
  pause::BuildPfcFrame(pr.mac, req, f, pause::kPfcFrameLen);
  // A feature may carry its message in the padding (DCFIT's, the only one).
  const bool with_msg = w.hooks.PfcTx(w, port, req, f);
  // Straight to the device: a pause frame must not wait behind data. If the
  // device refuses it, the generator reports the same frame next round.
  if (sw::PortTx(pr.io, &m, 1, w.now_ns, true) != 1) {
    rte_pktmbuf_free(m);
    return;
  }
  std::array<uint64_t, kNumPrio> xoff{}, xon{}, refresh{};
  for (int q = 0; q < kNumPrio; q++) {
    xoff[q] = os.pfc_gen.xoff_sent(q);
    xon[q] = os.pfc_gen.xon_sent(q);
    refresh[q] = os.pfc_gen.refresh_sent(q);
  }
  os.pfc_gen.MarkSent(req, w.now_ns);
  os.pfc_changed = true;
  os.pfc_named |= req.class_enable;
  sw::PortCounters& pc = w.st->port[port];
  pc.pfc_frames_tx.Add(1);
  if (with_msg) pc.dcfit_msg_tx.Add(1);
  pc.tx_packets.Add(1);
  pc.tx_bytes.Add(pause::kPfcFrameLen);
  for (int q = 0; q < kNumPrio; q++) {
    sw::PrioCounters& c = w.st->prio[port][q];
    c.pfc_xoff_tx.Add(os.pfc_gen.xoff_sent(q) - xoff[q]);
    c.pfc_xon_tx.Add(os.pfc_gen.xon_sent(q) - xon[q]);
    c.pfc_refresh_tx.Add(os.pfc_gen.refresh_sent(q) - refresh[q]);
  }
}

void PfcPublish(WorkerCtx& w, PortId port) {
  sw::PortOwnerState& os = *w.sw->ports[port].owner_state;
  // The gauges are functions of the pause timers and the time. With no PFC
  // frame since the last publish and nothing paused either way then, every
  // pause interval ended by then: the values are what was published.
  if (!os.pfc_changed && os.pfc_live == 0) return;
  const uint8_t paused = os.pause_open ? os.pause.PausedMask(w.now_ns) : 0;
  const uint8_t pausing = os.pfc_gen.peer_paused_mask(w.now_ns);
  os.pfc_changed = false;
  os.pfc_live = paused | pausing;
  for (uint32_t m = os.pfc_named; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    sw::PrioCounters& c = w.st->prio[port][q];
    c.paused_ns.Set(os.pause.PausedNs(q, w.now_ns));
    c.pausing_ns.Set(os.pfc_gen.pausing_ns(q, w.now_ns));
    c.paused_now.Set((paused >> q) & 1);
    c.pausing_now.Set((pausing >> q) & 1);
  }
}

Deadline PfcNextDeadline(const WorkerCtx& w, PortId port) {
  const sw::PortOwnerState& os = *w.sw->ports[port].owner_state;
  return Earliest(os.pause_open ? os.pause.NextExpiry(w.now_ns) : kNever,
                  os.pfc_gen.NextDeadline(w.now_ns));
}

}  // namespace pfc::stages
