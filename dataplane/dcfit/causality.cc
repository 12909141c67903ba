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
  if (shards > kMaxShards) {
    *err = "dcfit: shards = " + std::to_string(shards) + ", expected 0 (FIFO positions) or 1.." +
           std::to_string(kMaxShards) + " (one a worker)";
    return false;
  }
  n_ = num_ports;
  int l = 0;
  for (int p = 0; p < kNumPrio; ++p)
    lidx_[p] = (lossless_mask >> p & 1) ? static_cast<int8_t>(l++) : -1;
  const size_t rows = static_cast<size_t>(l) * n_;
  shards_ = shards;
  enq_.clear();
  deq_.clear();
  last_.clear();
  shard_counts_.clear();
  shard_stride_ = shard_base_ = 0;
  if (fifo()) {
    enq_.assign(rows, 0);
    deq_.assign(rows, 0);
    last_.assign(rows * n_, 0);
  } else {
    constexpr size_t kPad = kWorkerAlign / sizeof(uint32_t);
    shard_stride_ = (rows * n_ + kPad - 1) / kPad * kPad;
    // Shard 0 starts on a 128-byte boundary, so no two shards share a line.
    shard_counts_.assign(shard_stride_ * shards_ + kPad, 0);
    const auto addr = reinterpret_cast<uintptr_t>(shard_counts_.data());
    shard_base_ = (kWorkerAlign - addr % kWorkerAlign) % kWorkerAlign / sizeof(uint32_t);
  }
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

CausalityMemory Causality::Memory() const {
  CausalityMemory m;
  m.port_bits = (pausing_up_.size() + paused_.size() + resumed_.size()) * sizeof(PortMask);
  m.messages = (stored_.size() + sent_.size()) * sizeof(MsgSlot);
  m.counts = (enq_.size() + deq_.size() + last_.size()) * sizeof(uint64_t) +
             shard_counts_.size() * sizeof(uint32_t);
  return m;
}

}  // namespace pfc::dcfit
