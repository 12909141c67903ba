// SPDX-License-Identifier: BSD-3-Clause
// The fabric container (fabric.h): its teardown and its lists.
#include "dataplane/emulator/runtime/fabric.h"

#include <rte_ethdev.h>

namespace pfc::emulator {

Fabric::~Fabric() {
  // Switches first (their rings and stashes hold mbufs), then the links'
  // queues and rings, then the pool.
  switches_.clear();
  ReleaseSpares();
  hosts_.clear();
  ports_.clear();
  uint16_t pid;
  RTE_ETH_FOREACH_DEV(pid) rte_eth_dev_close(pid);
  dp_.reset();
}

std::vector<sw::Switch*> Fabric::SwitchList() {
  std::vector<sw::Switch*> v;
  for (const SwitchRun& s : switches_) v.push_back(s.sw.get());
  return v;
}

void Fabric::CloseCaptures() {
  for (auto& c : captures_) {
    if (c == nullptr) continue;
    std::lock_guard<std::mutex> g(c->mu);
    c->out.reset();  // flushed and closed; the link ends write no more
  }
}

void Fabric::ReleaseSpares() {
  for (Host& h : hosts_) {
    rte_pktmbuf_free(h.spare);  // null-safe
    h.spare = nullptr;
  }
}

}  // namespace pfc::emulator
