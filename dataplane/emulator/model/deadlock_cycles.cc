// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/deadlock_cycles.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace pfc::emulator {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Tarjan's strongly connected components, iterative (a fabric's switches
// can be thousands deep). comp[v]: the component of v.
std::vector<uint32_t> Components(uint32_t n, const std::vector<std::vector<uint32_t>>& adj) {
  std::vector<uint32_t> index(n, kNone), low(n, 0), comp(n, kNone), stack;
  std::vector<bool> on(n, false);
  uint32_t next = 0, ncomp = 0;
  struct Frame {
    uint32_t v, edge;
  };
  std::vector<Frame> call;
  for (uint32_t s = 0; s < n; s++) {
    if (index[s] != kNone) continue;
    call.push_back({s, 0});
    index[s] = low[s] = next++;
    stack.push_back(s);
    on[s] = true;
    while (!call.empty()) {
      Frame& f = call.back();
      if (f.edge < adj[f.v].size()) {
        const uint32_t w = adj[f.v][f.edge++];
        if (index[w] == kNone) {
          index[w] = low[w] = next++;
          stack.push_back(w);
          on[w] = true;
          call.push_back({w, 0});
        } else if (on[w]) {
          low[f.v] = std::min(low[f.v], index[w]);
        }
        continue;
      }
      const uint32_t v = f.v;
      call.pop_back();
      if (!call.empty()) low[call.back().v] = std::min(low[call.back().v], low[v]);
      if (low[v] == index[v]) {
        for (uint32_t w = kNone; w != v;) {
          w = stack.back();
          stack.pop_back();
          on[w] = false;
          comp[w] = ncomp;
        }
        ncomp++;
      }
    }
  }
  return comp;
}

}  // namespace

std::vector<DeadlockCycle> FindDeadlocks(uint32_t n, const std::vector<StuckLink>& stuck) {
  std::vector<std::vector<uint32_t>> adj(n);
  for (const StuckLink& l : stuck)
    if (l.from < n && l.to < n) adj[l.from].push_back(l.to);
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  const std::vector<uint32_t> comp = Components(n, adj);
  std::vector<DeadlockCycle> out;
  std::vector<bool> done(n, false);
  for (uint32_t s = 0; s < n; s++) {
    if (done[comp[s]] || adj[s].empty()) continue;
    // A group is a deadlock when it has a link inside it: two or more
    // switches, or one switch stuck on itself.
    bool inside = false;
    for (uint32_t w : adj[s]) inside |= comp[w] == comp[s];
    if (!inside) continue;
    done[comp[s]] = true;
    // The shortest cycle through s inside its group (breadth first).
    std::vector<uint32_t> parent(n, kNone);
    std::deque<uint32_t> q;
    uint32_t last = kNone;
    for (uint32_t w : adj[s]) {
      if (comp[w] != comp[s] || parent[w] != kNone) continue;
      parent[w] = s;
      q.push_back(w);
    }
    while (!q.empty() && last == kNone) {
      const uint32_t v = q.front();
      q.pop_front();
      if (v == s) {
        last = v;
        break;
      }
      for (uint32_t w : adj[v]) {
        if (comp[w] != comp[s]) continue;
        if (w == s) {
          last = v;
          break;
        }
        if (parent[w] != kNone) continue;
        parent[w] = v;
        q.push_back(w);
      }
    }
    DeadlockCycle c;
    for (uint32_t v = last; v != s && v != kNone; v = parent[v]) c.switches.push_back(v);
    c.switches.push_back(s);
    std::reverse(c.switches.begin(), c.switches.end());
    // The cycle's links: when the last got stuck, on which priorities.
    const size_t k = c.switches.size();
    for (size_t i = 0; i < k; i++) {
      const uint32_t a = c.switches[i], b = c.switches[(i + 1) % k];
      uint64_t since = std::numeric_limits<uint64_t>::max();
      for (const StuckLink& l : stuck) {
        if (l.from != a || l.to != b) continue;
        c.prio_mask |= static_cast<uint8_t>(1u << l.prio);
        since = std::min(since, l.since_ns);
      }
      c.since_ns = std::max(c.since_ns, since);
    }
    for (const StuckLink& l : stuck)
      c.stuck_links += l.from < n && l.to < n && comp[l.from] == comp[s] && comp[l.to] == comp[s];
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace pfc::emulator
