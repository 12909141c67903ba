// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/link_model.h"

#include <algorithm>
#include <cmath>

namespace pfc::emulator {

LinkModel::LinkModel(const LinkParams& p) : fifo_ns_(p.fifo_ns), delay_ns_(p.delay_ns), p_(p) {
  memo_[0] = memo_[1] = room_memo_ = Memo(0);
  static_assert(offsetof(LinkModel, epoch_) + sizeof(epoch_) + sizeof(up_) <= 64 &&
                    offsetof(LinkModel, fifo_ns_) == 64 &&
                    offsetof(LinkModel, c_) + offsetof(LinkCounters, busy_ns) + 8 <= 128,
                "a data frame's fields on the first two lines");
}

uint64_t WireTimeNs(uint32_t len, uint64_t bps, int32_t overhead, bool ns3) {
  // A negative overhead (the HPCC simulator's packets are shorter than the
  // RoCEv2 frames for the same payload) never takes a frame below a byte.
  const int64_t on_wire = std::max<int64_t>(int64_t{len} + overhead, 1);
  const unsigned __int128 bits = static_cast<unsigned __int128>(on_wire) * 8u;
  if (ns3) {
    // ns-3: double seconds, int64x64_t(double) keeps floor(s * 2^64), the
    // multiply by 10^9 is exact, Time keeps the integer part.
    const double s = static_cast<double>(on_wire) * 8 / static_cast<double>(bps);
    if (s < 1.0) {
      const auto frac = static_cast<uint64_t>(std::ldexp(s, 64));
      return static_cast<uint64_t>(static_cast<unsigned __int128>(frac) * 1'000'000'000u >> 64);
    }
    return static_cast<uint64_t>(bits * 1'000'000'000u / bps);  // a second or more: no link
  }
  return static_cast<uint64_t>((bits * 1'000'000'000u + bps - 1) / bps);
}

bool LinkModel::CanSend(uint32_t len, uint64_t now_ns) const {
  (void)len;
  if (!up_) return false;
  // When the new frame would start, relative to now: the FIFO holds at most
  // fifo_ns of wire time ahead of it (0: only an idle wire accepts).
  const uint64_t free = wire_free_ns_ > now_ns ? wire_free_ns_ : now_ns;
  return free + backlog_ns_ - now_ns <= fifo_ns_;
}

uint32_t LinkModel::Room(uint32_t len, uint64_t now_ns, uint32_t n) const {
  if (!up_) return n;
  // As CanSend: a frame is taken while what waits ahead of it keeps the
  // wire busy for at most fifo_ns; each one taken adds its wire time.
  const uint64_t free = wire_free_ns_ > now_ns ? wire_free_ns_ : now_ns;
  const uint64_t pending = free + backlog_ns_ - now_ns;
  if (pending > fifo_ns_) return 0;
  const uint64_t wire = RoomWireOf(len);
  // Most visits find room for one frame at most: no division then.
  const uint64_t left = fifo_ns_ - pending;
  const uint64_t k = wire == 0 ? n : left < wire ? 1 : left / wire + 1;
  return k < n ? static_cast<uint32_t>(k) : n;
}

uint64_t LinkModel::AcceptNs(uint64_t now_ns) const {
  const uint64_t free = wire_free_ns_ > now_ns ? wire_free_ns_ : now_ns;
  const uint64_t drained = free + backlog_ns_;
  return drained > now_ns + fifo_ns_ ? drained - fifo_ns_ : now_ns;
}

bool LinkModel::Send(uintptr_t handle, uint32_t len, uint64_t now_ns, bool* dropped,
                     uint64_t ready_ns) {
  *dropped = false;
  if (!up_) {
    ++c_.dropped_down;
    *dropped = true;
    return false;
  }
  if (!CanSend(len, now_ns)) {
    ++c_.refused;
    return false;
  }
  const uint64_t wire = WireOf(len);
  const uint64_t queued_ns = std::min(ready_ns, now_ns);
  if (data_.empty()) data_head_ns_ = queued_ns;
  data_.push_back({handle, queued_ns, wire, len});
  backlog_ns_ += wire;
  return true;
}

bool LinkModel::SendControl(uintptr_t handle, uint32_t len, uint64_t now_ns) {
  if (!up_) {
    ++c_.dropped_down;
    return false;
  }
  if (control_.empty()) ctl_head_ns_ = now_ns;
  control_.push_back({handle, now_ns, WireOf(len), len});
  return true;
}

WireFrame LinkModel::Start(const Queued& q, uint64_t start_ns, bool control) {
  const uint64_t wire = q.wire_ns;
  wire_free_ns_ = start_ns + wire;
  ++c_.frames;
  c_.bytes += q.len;
  c_.busy_ns += wire;
  if (control) ++c_.control_frames;
  return WireFrame{q.handle, wire_free_ns_ + delay_ns_, q.len, epoch(), control};
}

Deadline LinkModel::NextStartNs() const {
  return std::min(StartAt(ctl_head_ns_), StartAt(data_head_ns_));
}

}  // namespace pfc::emulator
