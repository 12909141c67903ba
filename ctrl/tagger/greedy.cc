// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/greedy.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>

namespace pfc::tagger {

// Everything a search touches about one (port, tag) node sits in one
// 32-byte record, so visiting a neighbour costs one cache line.
struct NodeState {
  uint64_t same;   // out ports whose rule keeps the tag (edges of G_tag)
  uint64_t in;     // upstream node's in ports with an edge into this node
  uint32_t ord;    // Pearce-Kelly topological order
  uint32_t mark;   // forward search epoch
  uint32_t markb;  // backward search epoch
  uint32_t pad;
};

struct GreedyTagger::Layer {
  std::vector<NodeState> ns;
  std::vector<uint64_t> bump;  // out ports whose rule raises the tag
  uint32_t epoch = 0;
  std::vector<uint32_t> dF, dB, pool, tmp;
};

namespace {
inline uint64_t Bit(uint32_t i) { return uint64_t{1} << i; }

// Per-tree loops in chunks of at least 64 trees: small networks then run on
// the calling thread and never wait for a worker that a busy machine has
// descheduled; big ones still use every core.
template <typename Fn>
void ForTrees(size_t n, Fn&& fn) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 64), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k != r.end(); ++k) fn(k);
  });
}
inline uint64_t LoadRelaxed(const uint64_t& x) {
  return std::atomic_ref<const uint64_t>(x).load(std::memory_order_relaxed);
}
}  // namespace

GreedyTagger::GreedyTagger(const Topology& t, uint64_t search_budget)
    : t_(t), budget_(search_budget ? search_budget : ~uint64_t{0}) {
  first_.resize(t.num_ports());
  sinks_.resize(t.num_ports());
  peer_.resize(t.num_ports());
  for (uint32_t g = 0; g < t.num_ports(); ++g) {
    const uint32_t a = t.port_node(g);
    first_[g] = t.node(a).first_port;
    sinks_[g] = t.host_mask(a);
    peer_[g] = t.peer(g);
  }
  // Host-facing ingress ports have no predecessors: give them the lowest
  // ranks so that edges out of them never trigger a reordering.
  init_ord_.resize(t.num_ports());
  uint32_t r = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (uint32_t g = 0; g < t.num_ports(); ++g) {
      const uint32_t nb = t.neighbor(g);
      const bool source = !t.forwards(nb);
      if (source == (pass == 0)) init_ord_[g] = r++;
    }
}

GreedyTagger::~GreedyTagger() = default;

GreedyTagger::Layer& GreedyTagger::layer(uint8_t tag) {
  if (layers_.size() <= tag) layers_.resize(tag + 1);
  if (!layers_[tag]) {
    auto L = std::make_unique<Layer>();
    const size_t n = t_.num_ports();
    L->ns.assign(n, NodeState{0, 0, 0, 0, 0, 0});
    for (size_t g = 0; g < n; ++g) L->ns[g].ord = init_ord_[g];
    L->bump.assign(n, 0);
    layers_[tag] = std::move(L);
  }
  return *layers_[tag];
}

bool GreedyTagger::InsertEdge(Layer& L, uint32_t u, uint32_t v) {
  NodeState* ns = L.ns.data();
  const uint32_t lb = ns[v].ord, ub = ns[u].ord;
  if (lb > ub) return true;  // already consistent with the order
  ++searches_;
  if (++L.epoch == 0) {
    for (auto& x : L.ns) x.mark = x.markb = 0;
    L.epoch = 1;
  }
  const uint32_t ep = L.epoch;
  // Pearce-Kelly discovery, run from both ends at once and breadth first:
  // forward from v over nodes ordered below u (dF), backward from u over
  // nodes ordered above v (dB). The two meeting means v reaches u, so u -> v
  // would close a cycle. Most searches end that way, usually on a short
  // cycle, which alternating breadth-first searches find after little work.
  L.dF.assign(1, v);
  L.dB.assign(1, u);
  ns[v].mark = ep;
  ns[u].markb = ep;
  size_t fi = 0, bi = 0;
  // Budget in edges examined (each is a likely cache miss).
  int64_t budget = budget_ > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(budget_);
  while (fi < L.dF.size() || bi < L.dB.size()) {
    if (budget <= 0) {
      ++budget_hits_;
      return false;  // undecided: treat as a cycle (raising the tag is always safe)
    }
    if (fi < L.dF.size()) {
      const uint32_t n = L.dF[fi++];
      const uint32_t first = first_[n];
      budget -= __builtin_popcountll(ns[n].same & ~sinks_[n]);
      for (uint64_t m = ns[n].same & ~sinks_[n]; m; m &= m - 1) {
        const uint32_t w = peer_[first + static_cast<uint32_t>(__builtin_ctzll(m))];
        NodeState& sw = ns[w];
        if (sw.markb == ep) return false;  // v ->* w ->* u
        if (sw.mark != ep && sw.ord < ub) {
          sw.mark = ep;
          L.dF.push_back(w);
        }
      }
    }
    if (bi < L.dB.size()) {
      const uint32_t n = L.dB[bi++];
      const uint32_t first = first_[peer_[n]];
      budget -= __builtin_popcountll(ns[n].in);
      for (uint64_t m = ns[n].in; m; m &= m - 1) {
        const uint32_t w = first + static_cast<uint32_t>(__builtin_ctzll(m));
        NodeState& sw = ns[w];
        if (sw.mark == ep) return false;  // v ->* w ->* u
        if (sw.markb != ep && sw.ord > lb) {
          sw.markb = ep;
          L.dB.push_back(w);
        }
      }
    }
  }
  // Reassign the pooled order slots: all of dB before all of dF.
  auto by_ord = [&](uint32_t x, uint32_t y) { return ns[x].ord < ns[y].ord; };
  std::sort(L.dB.begin(), L.dB.end(), by_ord);
  std::sort(L.dF.begin(), L.dF.end(), by_ord);
  L.pool.resize(L.dB.size() + L.dF.size());
  L.tmp.clear();
  for (uint32_t x : L.dB) L.tmp.push_back(ns[x].ord);
  const size_t nb = L.tmp.size();
  for (uint32_t x : L.dF) L.tmp.push_back(ns[x].ord);
  std::merge(L.tmp.begin(), L.tmp.begin() + static_cast<long>(nb),
             L.tmp.begin() + static_cast<long>(nb), L.tmp.end(), L.pool.begin());
  size_t k = 0;
  for (uint32_t x : L.dB) ns[x].ord = L.pool[k++];
  for (uint32_t x : L.dF) ns[x].ord = L.pool[k++];
  return true;
}

uint8_t GreedyTagger::Peek(uint32_t gin, uint8_t tag, uint32_t out) const {
  if (tag >= layers_.size() || !layers_[tag]) return 0xff;
  const Layer& L = *layers_[tag];
  if (LoadRelaxed(L.ns[gin].same) & Bit(out)) return tag;
  if (LoadRelaxed(L.bump[gin]) & Bit(out)) return static_cast<uint8_t>(tag + 1);
  return 0xff;
}

uint8_t GreedyTagger::Step(uint32_t gin, uint8_t tag, uint32_t out) {
  Layer& L = layer(tag);
  const uint64_t bit = Bit(out);
  if (L.ns[gin].same & bit) return tag;
  if (L.bump[gin] & bit) return static_cast<uint8_t>(tag + 1);
  const uint32_t a = t_.port_node(gin);
  const uint32_t v = t_.peer(t_.gport(a, out));
  if ((t_.host_mask(a) & bit) || InsertEdge(L, gin, v)) {
    L.ns[gin].same |= bit;
    if (!(t_.host_mask(a) & bit)) L.ns[v].in |= Bit(t_.local(gin));
    return tag;
  }
  if (tag + 1 > kMaxTag) {
    overflow_ = true;
    return kLossyTag;
  }
  L.bump[gin] |= bit;
  ++bumps_;
  layer(static_cast<uint8_t>(tag + 1));
  return static_cast<uint8_t>(tag + 1);
}

void GreedyTagger::FromHosts(uint32_t node, uint8_t tag, uint64_t outs) {
  layer(tag);
  host_out_[uint64_t{node} << 6 | tag] |= outs;
}

void GreedyTagger::ToHosts(uint32_t gin, uint8_t tag) {
  Layer& L = *layers_[tag];  // exists: a packet already carries this tag
  const uint32_t a = t_.port_node(gin);
  const uint64_t m = t_.host_mask(a) & ~Bit(t_.local(gin));
  std::atomic_ref<uint64_t>(L.ns[gin].same).fetch_or(m, std::memory_order_relaxed);
}

TagRules GreedyTagger::Export() const {
  TagRules r(t_.num_ports());
  for (size_t tag = 0; tag < layers_.size(); ++tag) {
    if (!layers_[tag]) continue;
    const Layer& L = *layers_[tag];
    for (uint32_t g = 0; g < t_.num_ports(); ++g) {
      if (L.ns[g].same)
        r.Add(g, static_cast<uint8_t>(tag), static_cast<uint8_t>(tag), L.ns[g].same);
      if (L.bump[g]) r.Add(g, static_cast<uint8_t>(tag), static_cast<uint8_t>(tag + 1), L.bump[g]);
    }
  }
  for (const auto& [key, outs] : host_out_) {
    const uint32_t node = static_cast<uint32_t>(key >> 6);
    const uint8_t tag = static_cast<uint8_t>(key & 63);
    for (uint64_t m = t_.host_mask(node); m; m &= m - 1) {
      const uint32_t h = static_cast<uint32_t>(__builtin_ctzll(m));
      r.Add(t_.gport(node, h), tag, tag, outs & ~Bit(h));
    }
  }
  return r;
}

GreedyResult RunGreedy(const Topology& t, const Elp& elp, const DestTrees* trees, Progress* prog,
                       uint64_t search_budget) {
  GreedyTagger gt(t, search_budget);
  GreedyResult res;
  std::vector<std::vector<Hop>> hops(elp.paths.size());
  std::vector<uint8_t> tag(elp.paths.size());
  int levels = 0;
  for (size_t p = 0; p < elp.paths.size(); ++p) {
    hops[p] = PathHops(t, elp.paths[p]);
    tag[p] = elp.paths[p].cls;
    levels = std::max<int>(levels, static_cast<int>(hops[p].size()));
  }
  const bool use_trees = trees != nullptr && elp.trees.enabled && trees->size() > 0;
  const uint8_t tcls = elp.trees.cls;
  const uint32_t S = use_trees ? trees->size() : 0;
  if (use_trees) levels = std::max(levels, trees->max_depth() + 1);
  res.levels = levels;
  // Per-tree frontier: (ingress global port << 6 | tag), sorted and unique.
  std::vector<std::vector<uint32_t>> cur(S), nxt(S), pending(S);
  const std::vector<uint32_t> no_ends;
  const auto& ends = use_trees ? trees->ends() : no_ends;
  Progress dummy;
  if (!prog) prog = &dummy;
  prog->Start("tagging (alg. 2)", uint64_t(levels) * (ends.size() + 1));
  uint64_t done = 0;
  if (use_trees) gt.Reserve(tcls);
  for (const Path& p : elp.paths) gt.Reserve(p.cls);

  // Resolves one tree state: either via an existing rule (pending = false)
  // or records it for the sequential phase.
  auto advance = [&](uint32_t d, uint32_t gin, uint8_t tg, bool decide, std::vector<uint32_t>& out,
                     std::vector<uint32_t>* pend) {
    const uint32_t a = t.port_node(gin);
    const uint32_t ai = trees->index_of(a);
    if (ai == d) {
      gt.ToHosts(gin, tg);
      return;
    }
    const uint8_t o = trees->next(d, ai);
    if (o == DestTrees::kNoParent) return;
    uint8_t r = decide ? gt.Step(gin, tg, o) : gt.Peek(gin, tg, o);
    if (r == 0xff) {
      pend->push_back(gin << 6 | tg);
      return;
    }
    if (r == kLossyTag) return;  // overflow, reported by the caller
    out.push_back(t.peer(t.gport(a, o)) << 6 | r);
  };

  for (int h = 0; h < levels; ++h) {
    if (use_trees && h == 0) {
      // First hop: host ingress at every source switch. Outs are the union
      // of the tree next hops (plus the local hosts at the root itself).
      std::vector<uint64_t> outs(ends.size(), 0);
      ForTrees(ends.size(), [&](size_t k) {
        const uint32_t s = ends[k];
        uint64_t m = t.host_mask(trees->node_of(s));
        for (uint32_t d : ends)
          if (d != s && trees->next(d, s) != DestTrees::kNoParent) m |= Bit(trees->next(d, s));
        outs[k] = m;
      });
      for (size_t k = 0; k < ends.size(); ++k) gt.FromHosts(trees->node_of(ends[k]), tcls, outs[k]);
    } else if (use_trees) {
      // Phase A (parallel): transitions whose rule exists.
      ForTrees(ends.size(), [&](size_t k) {
        const uint32_t d = ends[k];
        nxt[d].clear();
        pending[d].clear();
        if (h == 1) {
          for (uint32_t s : ends) {
            if (s == d || trees->next(d, s) == DestTrees::kNoParent) continue;
            const uint32_t gin = t.peer(t.gport(trees->node_of(s), trees->next(d, s)));
            advance(d, gin, tcls, false, nxt[d], &pending[d]);
          }
        } else {
          for (uint32_t st : cur[d]) advance(d, st >> 6, st & 63, false, nxt[d], &pending[d]);
        }
      });
      // Phase B (sequential, in tree order): make the missing rules.
      for (uint32_t d : ends) {
        for (uint32_t st : pending[d]) advance(d, st >> 6, st & 63, true, nxt[d], nullptr);
        prog->Update(++done);
      }
      ForTrees(ends.size(), [&](size_t k) {
        auto& v = nxt[ends[k]];
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        std::vector<uint32_t>().swap(cur[ends[k]]);
        cur[ends[k]].swap(v);
      });
    }
    for (size_t p = 0; p < hops.size(); ++p) {
      if (static_cast<int>(hops[p].size()) <= h || tag[p] == kLossyTag) continue;
      const Hop& hp = hops[p][h];
      if (hp.in < 0) {
        gt.FromHosts(hp.node, tag[p], hp.out < 0 ? t.host_mask(hp.node) : Bit(hp.out));
        continue;
      }
      const uint32_t gin = t.gport(hp.node, hp.in);
      if (hp.out < 0)
        gt.ToHosts(gin, tag[p]);
      else
        tag[p] = gt.Step(gin, tag[p], hp.out);
    }
    prog->Update(++done);
  }
  prog->Done();
  res.rules = gt.Export();
  res.bumps = gt.bumps();
  res.searches = gt.searches();
  res.budget_hits = gt.budget_hits();
  res.overflow = gt.overflow();
  return res;
}

}  // namespace pfc::tagger
