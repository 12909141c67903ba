// SPDX-License-Identifier: BSD-3-Clause
// DCFIT causality structure: configuration, port state, memory. See causality.h.
#include "dataplane/dcfit/causality.h"

namespace pfc::dcfit {

bool Causality::Configure(int num_ports, uint8_t lossless_mask, std::string* err, unsigned shards) {
  if (num_ports < 1 || num_ports > kMaxPorts) {
    *err = "dcfit: num_ports = " + std::to_string(num_ports) + ", expected 1.." +
           std::to_string(kMaxPorts);
    return false;
  }
  if (lossless_mask == 0) {
    *err = "dcfit: no lossless priority (lossless_mask = 0): nothing to track";
    return false;
  }
  if (shards < 1 || shards > kMaxShards) {
    *err = "dcfit: shards = " + std::to_string(shards) + ", expected 1.." +
           std::to_string(kMaxShards) + " (one a worker)";
    return false;
  }
  n_ = num_ports;
  int l = 0;
  for (int p = 0; p < kNumPrio; ++p)
    lidx_[p] = (lossless_mask >> p & 1) ? static_cast<int8_t>(l++) : -1;
  const size_t rows = static_cast<size_t>(l) * n_;
  shards_ = shards;
  if (shards_ > 1) {
    // The shards' counts replace the single-writer counts and bitmaps.
    constexpr size_t kPad = kWorkerAlign / sizeof(uint32_t);
    shard_stride_ = (rows * n_ + kPad - 1) / kPad * kPad;
    // Shard 0 starts on a 128-byte boundary, so no two shards share a line.
    shard_counts_.assign(shard_stride_ * shards_ + kPad, 0);
    const auto addr = reinterpret_cast<uintptr_t>(shard_counts_.data());
    shard_base_ = (kWorkerAlign - addr % kWorkerAlign) % kWorkerAlign / sizeof(uint32_t);
    counts_.clear();
  } else {
    shard_stride_ = shard_base_ = 0;
    shard_counts_.clear();
    counts_.assign(rows * n_, 0);
  }
  xi_.assign(rows, 0);
  waits_.assign(rows, 0);
  pausing_up_.assign(l, 0);
  paused_.assign(l, 0);
  resumed_.assign(l, 0);
  stored_.assign(rows, MsgSlot{});
  sent_.assign(rows, MsgSlot{});
  underflows_ = 0;
  return true;
}

void Causality::OnPeerPaused(PortId p, int prio) {
  if (!Port(p, prio)) return;
  SetBit(&paused_[lidx_[prio]], p, true);
  SetBit(&resumed_[lidx_[prio]], p, false);
}

void Causality::OnPeerResumed(PortId p, int prio) {
  if (!Port(p, prio)) return;
  SetBit(&paused_[lidx_[prio]], p, false);
  SetBit(&resumed_[lidx_[prio]], p, true);
  stored_[Row(lidx_[prio], p)] = MsgSlot{};
}

uint32_t Causality::ShardSum(size_t i) const {
  uint32_t sum = 0;
  for (unsigned s = 0; s < shards_; s++)
    sum += std::atomic_ref<uint32_t>(shard_counts_[shard_base_ + s * shard_stride_ + i])
               .load(std::memory_order_relaxed);
  return static_cast<int32_t>(sum) > 0 ? sum : 0;
}

PortMask Causality::ShardXi(int l, PortId out) const {
  PortMask m = 0;
  for (PortId in = 0; in < n_; in++)
    if (ShardSum(Cnt(l, out, in)) != 0) m |= Bit(in);
  return m;
}

PortMask Causality::ShardWaitsOn(int l, PortId in) const {
  PortMask m = 0;
  for (PortId out = 0; out < n_; out++)
    if (ShardSum(Cnt(l, out, in)) != 0) m |= Bit(out);
  return m;
}

CausalityMemory Causality::Memory() const {
  CausalityMemory m;
  m.bitmaps = (xi_.size() + waits_.size()) * sizeof(PortMask);
  m.port_bits = (pausing_up_.size() + paused_.size() + resumed_.size()) * sizeof(PortMask);
  m.messages = (stored_.size() + sent_.size()) * sizeof(MsgSlot);
  m.counts = (counts_.size() + shard_counts_.size()) * sizeof(uint32_t);
  return m;
}

}  // namespace pfc::dcfit
