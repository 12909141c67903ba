// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/spec/partition.h"

#include <algorithm>
#include <numeric>

namespace pfc::emulator {
namespace {

struct Groups {
  std::vector<uint32_t> up;
  explicit Groups(uint32_t n) : up(n) { std::iota(up.begin(), up.end(), 0u); }
  uint32_t Find(uint32_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  }
  void Join(uint32_t a, uint32_t b) { up[Find(a)] = Find(b); }
};

}  // namespace

std::vector<uint16_t> PartitionNodes(const tagger::Topology& t, unsigned parts,
                                     const std::vector<std::pair<uint32_t, uint32_t>>& glue) {
  const uint32_t n = t.num_nodes();
  std::vector<uint16_t> part(n, 0);
  if (parts <= 1 || n == 0) return part;
  Groups g(n);
  for (uint32_t v = 0; v < n; v++) {
    if (t.is_switch(v)) continue;
    for (uint32_t p = 0; p < t.node(v).num_ports; p++) g.Join(v, t.neighbor(t.gport(v, p)));
  }
  for (const auto& [a, b] : glue) g.Join(a, b);
  // Breadth first from node 0 (then from each node not yet reached): a
  // group is placed when its first node is reached.
  std::vector<uint32_t> order;  // group roots, in placement order
  std::vector<uint64_t> weight(n, 0);
  std::vector<bool> seen(n, false), placed(n, false);
  std::vector<uint32_t> queue;
  uint64_t total = 0;
  for (uint32_t v = 0; v < n; v++) {
    const uint64_t w = t.node(v).num_ports + 1;
    weight[g.Find(v)] += w;
    total += w;
  }
  for (uint32_t start = 0; start < n; start++) {
    if (seen[start]) continue;
    seen[start] = true;
    queue.assign(1, start);
    for (size_t i = 0; i < queue.size(); i++) {
      const uint32_t v = queue[i];
      if (!placed[g.Find(v)]) {
        placed[g.Find(v)] = true;
        order.push_back(g.Find(v));
      }
      for (uint32_t p = 0; p < t.node(v).num_ports; p++) {
        const uint32_t u = t.neighbor(t.gport(v, p));
        if (!seen[u]) {
          seen[u] = true;
          queue.push_back(u);
        }
      }
    }
  }
  // Runs of about total/parts each: a group goes to the part its middle
  // falls in, parts are never skipped, and the last groups are spread so
  // that no part is left empty.
  std::vector<uint16_t> of_root(n, 0);
  uint64_t before = 0;
  unsigned cur = 0;
  for (size_t i = 0; i < order.size(); i++) {
    const uint64_t mid = before + weight[order[i]] / 2;
    const unsigned want = static_cast<unsigned>(std::min<uint64_t>(mid * parts / total, parts - 1));
    if (i != 0) {
      cur = std::min(std::max(cur, want), cur + 1);
      const size_t left = order.size() - i;  // this group included
      if (left < parts - cur) cur = static_cast<unsigned>(parts - left);
    }
    of_root[order[i]] = static_cast<uint16_t>(cur);
    before += weight[order[i]];
  }
  for (uint32_t v = 0; v < n; v++) part[v] = of_root[g.Find(v)];
  return part;
}

bool PlaceRanks(unsigned ranks, unsigned rank, FabricSpec* spec, std::string* err) {
  const std::string what = spec->path + ": mpirun -np " + std::to_string(ranks) + ": ";
  if (spec->clock != ClockKind::kVirtual) {
    *err = what +
           "expected the virtual clock (fabric.clock is real: split a real-clock fabric "
           "over servers with --here and devices)";
    return false;
  }
  if (!spec->here.empty()) {
    *err = what + "expected no --here (the ranks place the switches themselves)";
    return false;
  }
  const tagger::Topology& t = spec->topo;
  for (uint32_t n = 0; n < t.num_nodes(); n++) {
    const HostSpec* h = spec->host(n);
    if (h != nullptr && !h->device.empty()) {
      *err = what + "host " + t.node(n).name + " is a real host (device " + h->device +
             "): expected emulated hosts only on the virtual clock";
      return false;
    }
  }
  const unsigned parts = ranks * spec->threads;
  std::vector<std::pair<uint32_t, uint32_t>> glue;
  for (const CaptureSpec& c : spec->captures) glue.emplace_back(c.a, c.b);
  spec->parts = PartitionNodes(t, parts, glue);
  std::vector<bool> used(parts, false);
  for (uint32_t n = 0; n < t.num_nodes(); n++) used[spec->parts[n]] = true;
  if (std::count(used.begin(), used.end(), true) != static_cast<long>(parts)) {
    *err = what + "expected at least " + std::to_string(parts) +
           " groups of nodes to split (ranks x --threads; a host stays with its switch, a "
           "captured link's ends together): run fewer";
    return false;
  }
  spec->ranks = ranks;
  spec->rank = rank;
  spec->here.assign(t.num_nodes(), false);
  for (uint32_t n = 0; n < t.num_nodes(); n++)
    spec->here[n] = t.is_switch(n) && spec->parts[n] / spec->threads == rank;
  return true;
}

bool CheckThreads(const FabricSpec& spec, const std::vector<std::string>& switch_names,
                  const std::vector<config::SwitchConfig>& configs, std::string* err) {
  if (spec.threads * spec.ranks <= 1) return true;
  const std::string what = spec.path +
                           (spec.ranks > 1 ? ": mpirun -np " + std::to_string(spec.ranks) : "") +
                           ": --threads " + std::to_string(spec.threads) + ": ";
  for (size_t i = 0; i < configs.size(); i++) {
    if (!configs[i].dcfit.enabled) continue;
    *err = what + "switch " + switch_names.at(i) +
           " runs DCFIT, whose report follows a loop through every switch's state at the moment "
           "it is found: run it on one thread of one rank";
    return false;
  }
  return true;
}

}  // namespace pfc::emulator
