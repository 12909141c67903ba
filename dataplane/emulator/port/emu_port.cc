// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/port/emu_port.h"

#include <algorithm>

namespace pfc::emulator {

EmuPort::EmuPort(std::string name, const emulator::LinkParams& tx)
    : link_(tx), name_(std::move(name)) {}

EmuPort::~EmuPort() {
  if (rx_ != nullptr) {
    for (const emulator::WireFrame* f; (f = rx_->Front()) != nullptr; rx_->Pop())
      rte_pktmbuf_free(reinterpret_cast<rte_mbuf*>(f->handle));
  }
  link_.SetUp(false, 0, [](uintptr_t h) { rte_pktmbuf_free(reinterpret_cast<rte_mbuf*>(h)); });
}

bool EmuPort::Init(std::string* err) {
  (void)err;  // heap memory: nothing to fail but the process
  // Sized for minimum-size frames: a shorter one (a runt from a real host)
  // could fill it, counted as ring_full and reported in results.json.
  const uint64_t frames = RxRingFrames(link_.params(), kMinFrameBytes, 2 * kMaxBurst);
  rx_ = std::make_unique<emulator::SpscRing<emulator::WireFrame>>(
      rte_align64pow2(std::max<uint64_t>(frames, 1024)));
  return true;
}

uint16_t EmuPort::RxLanded(rte_mbuf** pkts, uint16_t n, uint64_t now_ns) {
  uint16_t k = 0;
  while (k < n) {
    const emulator::WireFrame* head = rx_->Front();
    if (head == nullptr || head->arrive_ns > now_ns) break;
    const emulator::WireFrame f = *head;  // the slot is the producer's after Pop
    rx_->Pop();
    rte_mbuf* m = reinterpret_cast<rte_mbuf*>(f.handle);
    // The sender's link decides: a frame that left before it went down is lost.
    if (peer_ != nullptr && peer_->link_.Stale(f)) {
      c_.rx_stale++;
      rte_pktmbuf_free(m);
      continue;
    }
    if (step_ns_ != 0) *RTE_MBUF_DYNFIELD(m, landed_off_, uint64_t*) = f.arrive_ns;
    pkts[k++] = m;
  }
  return k;
}

void EmuPort::Pump(uint64_t now_ns) {
  if (link_.idle()) return;  // after most Tx calls: the frame already started
  link_.Pump(now_ns, [&](const emulator::WireFrame& f) {
    rte_mbuf* m = reinterpret_cast<rte_mbuf*>(f.handle);
    if (on_wire) on_wire(m, f.arrive_ns - link_.params().delay_ns - link_.WireNs(f.len), f.control);
    if (peer_ == nullptr || !peer_->rx_->Push(f)) {
      c_.ring_full++;
      rte_pktmbuf_free(m);
      return;
    }
    if (peer_->wake != nullptr)
      peer_->wake->Lower(peer_->wake_id, StepUp(f.arrive_ns, peer_->step_ns_));
    if (peer_->active != nullptr) *peer_->active |= PortMask{1} << peer_->active_port;
    if (peer_->landing != nullptr && f.arrive_ns < peer_->landing->at)
      *peer_->landing = {f.arrive_ns, m};
  });
}

uint16_t EmuPort::Tx(rte_mbuf** pkts, uint16_t n, uint64_t now_ns, bool control) {
  ApplyRequest(now_ns);
  uint16_t k = 0;
  tx_blocked_ = false;
  for (; k < n; k++) {
    rte_mbuf* m = pkts[k];
    const uintptr_t h = reinterpret_cast<uintptr_t>(m);
    const uint32_t len = rte_pktmbuf_pkt_len(m);
    if (control) {
      if (!link_.SendControl(h, len, now_ns)) {
        c_.tx_down++;
        rte_pktmbuf_free(m);
      }
      continue;
    }
    // Landed within the step: it may start from its landing on (set_stepped).
    uint64_t ready = kNever;
    uint64_t* landed = nullptr;
    if (step_ns_ != 0) {
      landed = RTE_MBUF_DYNFIELD(m, landed_off_, uint64_t*);
      if (*landed <= now_ns && now_ns - *landed < step_ns_) ready = *landed;
    }
    bool dropped = false;
    if (link_.Send(h, len, now_ns, &dropped, ready)) {
      if (landed != nullptr) *landed = kNever;  // spent: the mbuf's next life has none
      continue;
    }
    if (dropped) {
      c_.tx_down++;
      rte_pktmbuf_free(m);
      continue;
    }
    tx_blocked_ = true;  // the FIFO is full: the rest stay with the caller
    break;
  }
  Pump(now_ns);
  // The owner gave what TxRoom allowed and the link started it all: with a
  // FIFO of at least a frame's wire time one of them would wait (its start
  // wakes the owner); a shorter one leaves none, so the owner is woken when
  // the link takes a frame again. (Not with the default FIFO and frames
  // of up to 1,514 bytes: outputs as before.)
  if (!control && k == n && n == room_k_ && link_.idle()) owner_more_ = true;
  room_k_ = 0;
  return k;
}

uint16_t EmuPort::TxRoom(uint64_t now_ns, uint32_t frame_len, uint16_t n) {
  ApplyRequest(now_ns);
  Pump(now_ns);
  const auto k = static_cast<uint16_t>(link_.Room(frame_len, now_ns, n));
  if (k == 0) tx_blocked_ = true;  // PollBusy: wake the owner when it accepts
  room_k_ = k < n ? k : 0;         // fewer than asked: the owner may hold more
  return k;
}

Deadline EmuPort::PollBusy(uint64_t now_ns) {
  ApplyRequest(now_ns);
  Pump(now_ns);
  Deadline t = Earliest(link_.NextStartNs(), NextArrivalNs());
  // Refused earlier: wake the owner when the FIFO accepts again, once (what
  // it holds may be paused by then; a pause expiry has its own deadline).
  if (tx_blocked_) {
    if (link_.CanSend(1514, now_ns))
      tx_blocked_ = false;
    else
      LowerTo(&t, link_.AcceptNs(now_ns));
  }
  // Everything the owner gave started and it may hold more (Tx): wake it
  // when the link takes a frame again, at once if it does now.
  if (owner_more_) {
    owner_more_ = false;
    LowerTo(&t, link_.CanSend(1514, now_ns) ? now_ns : link_.AcceptNs(now_ns));
  }
  return t;
}

void EmuPort::ApplyRequest(uint64_t now_ns) {
  // A plain load first: the exchange is a locked instruction, and this runs
  // on every Tx and Poll.
  if (want_up_.load(std::memory_order_relaxed) < 0) return;
  const int8_t want = want_up_.exchange(-1, std::memory_order_acq_rel);
  if (want < 0) return;
  link_.SetUp(want == 1, now_ns, [&](uintptr_t h) {
    c_.tx_down++;
    rte_pktmbuf_free(reinterpret_cast<rte_mbuf*>(h));
  });
  link_up_ = link_.up();
}

void EmuPort::ForEachCounter(const std::function<void(const char*, uint64_t)>& f) const {
  f("link_tx_frames", link_.counters().frames);
  f("link_busy_ns", link_.counters().busy_ns);
  f("link_tx_down_drops", c_.tx_down);
  f("link_rx_stale_drops", c_.rx_stale);
  // Only when it happened (EmuPort::Init sizes the ring so it does not).
  if (c_.ring_full != 0) f("link_ring_full_drops", c_.ring_full);
}

}  // namespace pfc::emulator
