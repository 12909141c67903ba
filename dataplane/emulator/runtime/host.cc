// SPDX-License-Identifier: BSD-3-Clause
// An emulated host's round (host.h).
#include "dataplane/emulator/runtime/host.h"

#include <rte_mbuf.h>

#include <algorithm>

namespace pfc::emulator {

Deadline Host::Round(sw::Dataplane& dp, uint64_t now_ns) {
  rte_mbuf* pkts[kMaxBurst];
  for (;;) {
    const uint16_t n = nic->Rx(pkts, kMaxBurst, now_ns);
    for (uint16_t i = 0; i < n; i++) {
      model->Receive(rte_pktmbuf_mtod(pkts[i], const uint8_t*), rte_pktmbuf_data_len(pkts[i]),
                     now_ns);
    }
    // Frame by frame: a host mostly takes one a round, and FreeFrame reads
    // only the line the receive already read.
    for (uint16_t i = 0; i < n; i++) sw::Dataplane::FreeFrame(pkts[i]);
    if (n < kMaxBurst) break;
  }
  if (track_landing) landing = nic->NextLanding();
  for (int k = 0; k < kHostTxPerRound; k++) {
    const bool data_ok = nic->link().up() && nic->link().CanSend(1514, now_ns);
    if (spare == nullptr) spare = dp.Alloc();
    rte_mbuf* m = spare;
    if (m == nullptr) break;  // retried next round: the model has not advanced
    bool control = false;
    const uint32_t len = model->NextFrame(now_ns, rte_pktmbuf_mtod(m, uint8_t*),
                                          rte_pktmbuf_tailroom(m), &control, data_ok);
    if (len == 0) break;  // m stays the spare: only its data may have been begun
    spare = nullptr;
    m->data_len = static_cast<uint16_t>(len);
    m->pkt_len = len;
    nic->Tx(&m, 1, now_ns, control);
  }
  Deadline t = model->NextEventNs(now_ns);
  // The model wants to send now but the link's FIFO is full: come back when
  // it accepts again.
  if (t <= now_ns) t = nic->link().AcceptNs(now_ns + 1);
  if (t != kNever) t = std::max(t, now_ns + 1);
  return Earliest(t, nic->Poll(now_ns));
}

}  // namespace pfc::emulator
