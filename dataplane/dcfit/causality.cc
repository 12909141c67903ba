// SPDX-License-Identifier: BSD-3-Clause
// DCFIT causality structure: configuration, port state, memory. See causality.h.
#include "dataplane/dcfit/causality.h"

namespace pfc::dcfit {

bool Causality::Configure(int num_ports, uint8_t lossless_mask, std::string* err) {
  if (num_ports < 1 || num_ports > kMaxPorts) {
    *err = "dcfit: num_ports = " + std::to_string(num_ports) + ", expected 1.." +
           std::to_string(kMaxPorts);
    return false;
  }
  if (lossless_mask == 0) {
    *err = "dcfit: no lossless priority (lossless_mask = 0): nothing to track";
    return false;
  }
  n_ = num_ports;
  int l = 0;
  for (int p = 0; p < kNumPrio; ++p)
    lidx_[p] = (lossless_mask >> p & 1) ? static_cast<int8_t>(l++) : -1;
  const size_t rows = static_cast<size_t>(l) * n_;
  counts_.assign(rows * n_, 0);
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

CausalityMemory Causality::Memory() const {
  CausalityMemory m;
  m.bitmaps = (xi_.size() + waits_.size()) * sizeof(PortMask);
  m.port_bits = (pausing_up_.size() + paused_.size() + resumed_.size()) * sizeof(PortMask);
  m.messages = (stored_.size() + sent_.size()) * sizeof(MsgSlot);
  m.counts = counts_.size() * sizeof(uint32_t);
  return m;
}

}  // namespace pfc::dcfit
