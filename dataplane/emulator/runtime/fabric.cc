// SPDX-License-Identifier: BSD-3-Clause
// The fabric container (fabric.h): its teardown and its lists.
#include "dataplane/emulator/runtime/fabric.h"

#include <rte_ethdev.h>

#include <algorithm>

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

void Fabric::FlushCaptures(uint64_t before_ns) {
  for (auto& c : captures_) {
    if (c == nullptr || c->frames.empty()) continue;
    std::lock_guard<std::mutex> g(c->mu);
    std::vector<Capture::Held>& v = c->frames;
    // Each direction's frames start one after the other on its wire, so
    // (start, direction) orders every frame, whatever order they came in.
    std::stable_sort(v.begin(), v.end(), [](const Capture::Held& a, const Capture::Held& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.dir > b.dir;
    });
    size_t k = 0;
    for (; k < v.size() && v[k].start_ns < before_ns; k++)
      if (c->out) c->out->Write(c->bytes.data() + v[k].off, v[k].len, v[k].start_ns, v[k].dir);
    if (k == v.size()) {
      v.clear();
      c->bytes.clear();
      continue;
    }
    std::vector<uint8_t> rest;
    for (size_t i = k; i < v.size(); i++) {
      const auto off = static_cast<uint32_t>(rest.size());
      rest.insert(rest.end(), c->bytes.begin() + v[i].off, c->bytes.begin() + v[i].off + v[i].len);
      v[i].off = off;
    }
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k));
    c->bytes.swap(rest);
  }
}

void Fabric::CloseCaptures() {
  FlushCaptures(kNever);
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
