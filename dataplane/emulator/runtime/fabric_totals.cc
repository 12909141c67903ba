// SPDX-License-Identifier: BSD-3-Clause
// Totals over the fabric's view (fabric_totals.h).
#include "dataplane/emulator/runtime/fabric_totals.h"

#include <algorithm>

namespace pfc::emulator {

const FlowRx* RxFlow(const Fabric& fab, size_t i) {
  for (const Host& h : fab.hosts())
    if (const FlowRx* x = h.model->rx_flow(static_cast<uint32_t>(i + 1))) return x;
  return nullptr;
}

const FlowTx* TxFlow(const Fabric& fab, size_t i) {
  for (const Host& h : fab.hosts())
    for (const FlowTx& tx : h.model->tx_flows())
      if (tx.spec.id == i + 1) return &tx;
  return nullptr;
}

Fct FlowFct(const Fabric& fab, size_t i) {
  const FabricSpec& spec = fab.spec();
  const FlowSpecFile& fl = spec.flows[i];
  const HostPlan* hp = fab.plan().host(fl.from);
  const uint64_t link = hp != nullptr ? hp->rate_bps : spec.link_rate_bps;
  const uint64_t send = fl.rate_bps != 0 ? std::min(fl.rate_bps, link) : link;
  const IdlePath& path = fab.plan().flow_paths[i];
  if (fl.rc) {
    const FlowTx* tx = TxFlow(fab, i);
    return tx != nullptr && tx->rc ? FctOfRc(*tx->rc, fl.start_ns, send, path) : Fct{};
  }
  return FctOf(fl.bytes, fl.frame_len, fl.start_ns, send, path, RxFlow(fab, i));
}

}  // namespace pfc::emulator
