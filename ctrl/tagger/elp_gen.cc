// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/elp_gen.h"

#include <algorithm>
#include <functional>
#include <random>
#include <unordered_map>

#include "ctrl/tagger/clos_walks.h"

namespace pfc::tagger {
namespace {

// Nodes a path may pass through, and its end points.
struct Graph {
  std::vector<uint32_t> ends;
  bool relay_mode;
};

Graph EndsOf(const Topology& t) {
  Graph g;
  g.relay_mode = t.has_relays();
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    if (g.relay_mode ? !t.is_switch(n) : (t.is_switch(n) && t.has_hosts(n))) g.ends.push_back(n);
  }
  return g;
}

// BFS distances from d over nodes that may carry transit traffic.
void Bfs(const Topology& t, uint32_t d, std::vector<int>* dist) {
  dist->assign(t.num_nodes(), -1);
  std::vector<uint32_t> q{d};
  (*dist)[d] = 0;
  for (size_t h = 0; h < q.size(); ++h) {
    const uint32_t a = q[h];
    if (a != d && !t.forwards(a)) continue;
    const Node& na = t.node(a);
    for (uint32_t i = 0; i < na.num_ports; ++i) {
      const uint32_t b = t.neighbor(na.first_port + i);
      if ((*dist)[b] >= 0) continue;
      if (!t.forwards(b)) continue;  // non-relay hosts are never transit or end here
      (*dist)[b] = (*dist)[a] + 1;
      q.push_back(b);
    }
  }
}

bool TooMany(size_t n, size_t max_paths, std::string* err) {
  if (n <= max_paths) return false;
  *err = "more than " + std::to_string(max_paths) +
         " paths; use a smaller topology, --per-pair, or raise --max-paths";
  return true;
}

}  // namespace

bool GenShortestPaths(const Topology& t, int per_pair, uint64_t seed, uint8_t cls, size_t max_paths,
                      Elp* elp, std::string* err) {
  const Graph g = EndsOf(t);
  std::mt19937_64 rng(seed);
  std::vector<int> dist;
  std::vector<uint32_t> stack;
  for (uint32_t d : g.ends) {
    Bfs(t, d, &dist);
    if (!g.relay_mode && __builtin_popcountll(t.host_mask(d)) >= 2)
      elp->paths.push_back({cls, {d}});
    for (uint32_t s : g.ends) {
      if (s == d || dist[s] < 0) continue;
      size_t found = 0;
      // DFS along decreasing distance, children in seeded random order.
      std::function<bool(uint32_t)> dfs = [&](uint32_t a) -> bool {
        stack.push_back(a);
        if (a == d) {
          elp->paths.push_back({cls, stack});
          ++found;
          stack.pop_back();
          return per_pair > 0 && found >= static_cast<size_t>(per_pair);
        }
        const Node& na = t.node(a);
        std::vector<uint32_t> next;
        for (uint32_t i = 0; i < na.num_ports; ++i) {
          const uint32_t b = t.neighbor(na.first_port + i);
          if (dist[b] == dist[a] - 1 && (b == d || t.forwards(b))) next.push_back(b);
        }
        if (per_pair > 0) std::shuffle(next.begin(), next.end(), rng);
        for (uint32_t b : next)
          if (dfs(b)) {
            stack.pop_back();
            return true;
          }
        stack.pop_back();
        return false;
      };
      dfs(s);
      if (TooMany(elp->paths.size(), max_paths, err)) return false;
    }
  }
  return true;
}

bool GenClosPaths(const Topology& t, int bounces, uint8_t cls, size_t max_paths, Elp* elp,
                  std::string* err) {
  if (bounces < 0) {
    *err = "bounces: expected >= 0";
    return false;
  }
  if (!CheckClosLayers(t, "clos paths", err)) return false;
  int lo = 1 << 30, hi = -1;
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    if (!t.is_switch(n)) continue;
    if (t.has_hosts(n)) lo = std::min(lo, t.node(n).layer);
    hi = std::max(hi, t.node(n).layer);
  }
  const Graph g = EndsOf(t);
  const int slack = 2 * bounces * std::max(0, hi - lo);
  std::vector<int> dist;
  std::vector<uint32_t> stack;
  std::vector<uint8_t> on(t.num_nodes(), 0);
  for (uint32_t d : g.ends) {
    Bfs(t, d, &dist);
    if (__builtin_popcountll(t.host_mask(d)) >= 2) elp->paths.push_back({cls, {d}});
    for (uint32_t s : g.ends) {
      if (s == d || dist[s] < 0) continue;
      const int limit = dist[s] + slack;
      // went_down: the last move was downward (a later upward move bounces).
      std::function<void(uint32_t, bool, int)> dfs = [&](uint32_t a, bool went_down, int used) {
        stack.push_back(a);
        on[a] = 1;
        if (a == d) {
          elp->paths.push_back({cls, stack});
        } else {
          const int hops = static_cast<int>(stack.size()) - 1;
          const Node& na = t.node(a);
          for (uint32_t i = 0; i < na.num_ports; ++i) {
            const uint32_t b = t.neighbor(na.first_port + i);
            if (!t.is_switch(b) || on[b] || dist[b] < 0) continue;
            if (hops + 1 + dist[b] > limit) continue;  // cannot reach d in budget
            const bool up = t.node(b).layer > na.layer;
            const int u = used + (up && went_down ? 1 : 0);
            if (u > bounces) continue;
            dfs(b, !up, u);
          }
        }
        on[a] = 0;
        stack.pop_back();
      };
      dfs(s, false, 0);
      if (TooMany(elp->paths.size(), max_paths, err)) {
        *err += " (tag --algo clos and verify take the Clos ELP without enumerating it)";
        return false;
      }
    }
  }
  return true;
}

bool SetClosSpec(const Topology& t, int bounces, uint8_t cls, Elp* elp, std::string* err) {
  ClosWalks w;
  if (!w.Init(t, bounces, err)) return false;
  if (elp->clos.enabled && elp->clos.bounces != bounces) {
    *err = "clos ELP: all classes take the same number of bounces";
    return false;
  }
  elp->clos.enabled = true;
  elp->clos.bounces = bounces;
  elp->clos.classes |= uint64_t{1} << cls;
  return true;
}

bool ExpandClosSpec(const Topology& t, size_t max_paths, Elp* elp, std::string* err) {
  if (!elp->clos.enabled) return true;
  for (uint64_t m = elp->clos.classes; m; m &= m - 1)
    if (!GenClosPaths(t, elp->clos.bounces, static_cast<uint8_t>(__builtin_ctzll(m)), max_paths,
                      elp, err))
      return false;
  elp->clos = ClosSpec();
  return true;
}

bool GenRandomPaths(const Topology& t, size_t n, int max_hops, uint64_t seed, uint8_t cls, Elp* elp,
                    std::string* err) {
  const Graph g = EndsOf(t);
  if (g.relay_mode || g.ends.size() < 2) {
    *err = "random paths: need at least two switches with hosts (and no relay hosts)";
    return false;
  }
  std::mt19937_64 rng(seed);
  std::unordered_map<uint32_t, std::vector<int>> dist_cache;
  auto dist_to = [&](uint32_t d) -> const std::vector<int>& {
    auto it = dist_cache.find(d);
    if (it != dist_cache.end()) return it->second;
    std::vector<int> dd;
    Bfs(t, d, &dd);
    return dist_cache.emplace(d, std::move(dd)).first->second;
  };
  if (max_hops <= 0) {
    // Diameter over the end switches, from a sample of BFS roots.
    for (size_t k = 0; k < std::min<size_t>(g.ends.size(), 64); ++k)
      for (int x : dist_to(g.ends[k * g.ends.size() / std::min<size_t>(g.ends.size(), 64)]))
        max_hops = std::max(max_hops, x);
  }
  std::uniform_int_distribution<size_t> pick(0, g.ends.size() - 1);
  std::vector<uint8_t> on(t.num_nodes(), 0);
  size_t made = 0, attempts = 0;
  while (made < n) {
    if (++attempts > 100 * n + 1000) {
      *err = "random paths: could not find enough loop-free paths within " +
             std::to_string(max_hops) + " hops";
      return false;
    }
    const uint32_t s = g.ends[pick(rng)], d = g.ends[pick(rng)];
    if (s == d) continue;
    const auto& dist = dist_to(d);
    if (dist[s] < 0 || dist[s] > max_hops) continue;
    // Random walk that never revisits and always keeps d within budget.
    Path p{cls, {s}};
    on[s] = 1;
    uint32_t a = s;
    bool ok = true;
    while (a != d) {
      const int left = max_hops - static_cast<int>(p.nodes.size() - 1);
      std::vector<uint32_t> cand;
      const Node& na = t.node(a);
      for (uint32_t i = 0; i < na.num_ports; ++i) {
        const uint32_t b = t.neighbor(na.first_port + i);
        if (t.is_switch(b) && !on[b] && dist[b] >= 0 && dist[b] <= left - 1) cand.push_back(b);
      }
      if (cand.empty()) {
        ok = false;
        break;
      }
      a = cand[std::uniform_int_distribution<size_t>(0, cand.size() - 1)(rng)];
      on[a] = 1;
      p.nodes.push_back(a);
    }
    for (uint32_t v : p.nodes) on[v] = 0;
    if (!ok) continue;
    elp->paths.push_back(std::move(p));
    ++made;
  }
  return true;
}

}  // namespace pfc::tagger
