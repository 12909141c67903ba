// SPDX-License-Identifier: BSD-3-Clause
// Fabric: how the emulator advances time on the virtual clock. Every switch
// and host is an entity in a calendar (model/due_queue.h) with the time it
// is next due; the loop runs what is due now, lets each report its next
// deadline (common/deadline.h), then jumps to the earliest of those, the
// next timeline event and the recorder's next sample. A host's round is here
// too: the real clock runs the same one.
#include <algorithm>

#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/stages/worker.h"

namespace pfc::emu {

Deadline Host::Round(Dataplane& dp, uint64_t now_ns) {
  rte_mbuf* pkts[kMaxBurst];
  for (;;) {
    const uint16_t n = nic->Rx(pkts, kMaxBurst, now_ns);
    for (uint16_t i = 0; i < n; i++) {
      model->Receive(rte_pktmbuf_mtod(pkts[i], const uint8_t*), rte_pktmbuf_data_len(pkts[i]),
                     now_ns);
    }
    // A host mostly takes one frame a round: the inline single free is
    // half the bulk call's instructions there.
    if (n == 1)
      rte_pktmbuf_free(pkts[0]);
    else if (n != 0)
      rte_pktmbuf_free_bulk(pkts, n);
    if (n < kMaxBurst) break;
  }
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

uint64_t Fabric::RunVirtual() {
  const std::vector<EventSpec>& ev = spec_.events;
  now_ = 0;
  for (uint32_t id = 0; id < HostId(hosts_.size()); id++) due_.Set(id, 0);
  dcfit_sws_.clear();
  for (const SwitchRun& s : switches_) dcfit_sws_.push_back(s.sw.get());
  std::vector<uint32_t> run;
  for (;;) {
    while (next_event_ < ev.size() && ev[next_event_].at_ns <= now_)
      ApplyEvent(ev[next_event_++], now_);
    // Run what is due now, switches by index then hosts, in passes until
    // nothing is (a round with work runs again at the same time when it may
    // have left something due now: RoundLeftWork). Nothing run in a pass
    // makes another entity due at this very time (a frame lands after its
    // wire time, which is > 0; events come before the passes), so taking a
    // pass's set up front runs the same rounds in the same order as scanning
    // every entity in turn.
    for (due_.TakeDue(now_, &run); !run.empty(); due_.TakeDue(now_, &run)) {
      for (const uint32_t id : run) {
        due_.Set(id, kNever);  // a frame delivered to it meanwhile is in its round's answer
        if (id < switches_.size()) {
          Deadline ready = kNever;
          const unsigned work = WorkerRound(switches_[id].ctx, now_, &ready);
          rounds_++;
          if (switches_[id].sw->dcfit) dcfit_.Take(dcfit_sws_, plan_, id, true);
          // A deadline already reached (none is, as the stages report them)
          // would also be due now.
          if (work != 0 && (RoundLeftWork(switches_[id].ctx) || ready <= now_))
            due_.Lower(id, now_);
          else if (ready != kNever)
            due_.Lower(id, std::max(ready, now_ + 1));
        } else {
          due_.Lower(id, hosts_[id - switches_.size()].Round(*dp_, now_));
        }
      }
    }
    Sample(now_);
    if (now_ >= spec_.duration_ns) break;
    uint64_t next = std::min(spec_.duration_ns, due_.Next());
    if (next_event_ < ev.size()) next = std::min(next, ev[next_event_].at_ns);
    next = std::min(next, rec_.next_ns());
    if (spec_.quantum_ns != 0)  // the next step boundary (see FabricSpec::quantum_ns)
      next = (next + spec_.quantum_ns - 1) / spec_.quantum_ns * spec_.quantum_ns;
    now_ = std::max(next, now_ + 1);
  }
  PrintEvents();
  ReleaseSpares();
  return rounds_;
}

}  // namespace pfc::emu
