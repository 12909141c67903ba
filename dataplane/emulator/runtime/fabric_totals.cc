// SPDX-License-Identifier: BSD-3-Clause
// Totals over the fabric's view (fabric_totals.h).
#include "dataplane/emulator/runtime/fabric_totals.h"

#include <algorithm>

namespace pfc::emulator {

FlowStates IndexFlows(const Fabric& fab) {
  const size_t n = fab.spec().flows.size();
  FlowStates st{std::vector<const FlowTx*>(n, nullptr), std::vector<const FlowRx*>(n, nullptr)};
  for (const Host& h : fab.hosts()) {
    // Ids are the file's index + 1; a host's own first entry of an id wins,
    // as its frames find them (HostModel's id index).
    for (const FlowTx& tx : h.model->tx_flows())
      if (tx.spec.id >= 1 && tx.spec.id <= n && st.tx[tx.spec.id - 1] == nullptr)
        st.tx[tx.spec.id - 1] = &tx;
    for (const FlowRx& rx : h.model->rx_flows())
      if (rx.id >= 1 && rx.id <= n && st.rx[rx.id - 1] == nullptr) st.rx[rx.id - 1] = &rx;
  }
  return st;
}

Fct FlowFct(const Fabric& fab, const FlowStates& st, size_t i) {
  const FabricSpec& spec = fab.spec();
  const FlowSpecFile& fl = spec.flows[i];
  const HostPlan* hp = fab.plan().host(fl.from);
  const uint64_t link = hp != nullptr ? hp->rate_bps : spec.link_rate_bps;
  const uint64_t send = fl.rate_bps != 0 ? std::min(fl.rate_bps, link) : link;
  const IdlePath& path = fab.plan().flow_paths[i];
  if (fl.rc) {
    const FlowTx* tx = st.tx[i];
    return tx != nullptr && tx->rc ? FctOfRc(*tx->rc, fl.start_ns, send, path) : Fct{};
  }
  return FctOf(fl.bytes, fl.frame_len, fl.start_ns, send, path, st.rx[i]);
}

}  // namespace pfc::emulator
