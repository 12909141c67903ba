// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/verify.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <sstream>

#include "ctrl/tagger/verify_walk.h"

namespace pfc::tagger {
using namespace verify_detail;

std::vector<uint32_t> FindCycle(const Topology& t, const std::vector<uint64_t>& out_mask) {
  const uint32_t n = t.num_ports();
  std::vector<uint32_t> indeg(n, 0);
  auto succ = [&](uint32_t g, auto&& fn) {
    const uint32_t a = t.port_node(g);
    for (uint64_t m = out_mask[g]; m; m &= m - 1) {
      const uint32_t w = t.peer(t.gport(a, static_cast<uint32_t>(__builtin_ctzll(m))));
      if (t.forwards(t.port_node(w))) fn(w);
    }
  };
  for (uint32_t g = 0; g < n; ++g) succ(g, [&](uint32_t w) { ++indeg[w]; });
  std::vector<uint32_t> q;
  std::vector<uint8_t> gone(n, 0);
  for (uint32_t g = 0; g < n; ++g)
    if (!indeg[g]) q.push_back(g);
  while (!q.empty()) {
    const uint32_t g = q.back();
    q.pop_back();
    gone[g] = 1;
    succ(g, [&](uint32_t w) {
      if (--indeg[w] == 0) q.push_back(w);
    });
  }
  uint32_t start = n;
  for (uint32_t g = 0; g < n && start == n; ++g)
    if (!gone[g]) start = g;
  if (start == n) return {};
  // Every node left has a predecessor that is left too: walk backwards
  // until a node repeats; the repeated stretch is a cycle.
  std::vector<uint32_t> walk;
  std::map<uint32_t, size_t> seen;
  uint32_t x = start;
  while (!seen.count(x)) {
    seen[x] = walk.size();
    walk.push_back(x);
    const uint32_t up = t.peer(x);
    const uint32_t b = t.port_node(up);
    const uint32_t bit_local = t.local(up);
    uint32_t pred = n;
    for (uint32_t i = 0; i < t.node(b).num_ports && pred == n; ++i) {
      const uint32_t p = t.gport(b, i);
      if (!gone[p] && ((out_mask[p] >> bit_local) & 1)) pred = p;
    }
    if (pred == n) return {};  // cannot happen for a consistent Kahn residue
    x = pred;
  }
  std::vector<uint32_t> cyc(walk.begin() + static_cast<long>(seen[x]), walk.end());
  std::reverse(cyc.begin(), cyc.end());  // forward order
  return cyc;
}

std::string DescribeCycle(const Topology& t, const std::vector<uint32_t>& cycle) {
  std::string s;
  for (uint32_t g : cycle) s += PortDesc(t, g) + " -> ";
  if (!cycle.empty()) s += PortDesc(t, cycle.front());
  return s;
}

VerifyReport Verify(const Topology& t, const Elp& elp, const DestTrees* trees,
                    const std::vector<NodeRules>& by_node, const VerifyOptions& opt,
                    Progress* prog) {
  VerifyReport rep;
  Examples ex;
  Transitions tr(t, ex);
  Progress dummy;
  if (!prog) prog = &dummy;
  auto error = [&](const std::string& s) {
    rep.ok = false;
    rep.errors.push_back(s);
  };
  // 5. Consistent qos with distinct priorities per lossless tag.
  const NodeRules* ref = nullptr;
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    const NodeRules& nr = by_node[n];
    if (!nr.present) continue;
    if (!ref) {
      ref = &nr;
      uint8_t seen = 0;
      for (int tg = 0; tg < 64; ++tg)
        if (nr.lossless(static_cast<uint8_t>(tg))) {
          const int p = nr.prio_of_tag[tg];
          if ((seen >> p) & 1)
            error("qos of '" + t.node(n).name + "': lossless tags share priority " +
                  std::to_string(p) + "; the tagged graph needs one priority per lossless tag");
          seen |= static_cast<uint8_t>(1u << p);
        }
      if (nr.lossless(nr.lossy_tag))
        error("qos of '" + t.node(n).name + "': lossy_tag " + std::to_string(nr.lossy_tag) +
              " maps to a lossless priority");
    } else if (!std::equal(nr.prio_of_tag, nr.prio_of_tag + 64, ref->prio_of_tag) ||
               nr.lossless_prios != ref->lossless_prios || nr.lossy_tag != ref->lossy_tag) {
      error("qos of '" + t.node(n).name + "' differs from the other switches");
      break;
    }
  }
  if (!ref) {
    error("no rules at all: every packet is lossy");
    return rep;
  }
  auto lossless = [&](uint8_t tg) { return ref->lossless(tg); };

  // Expand every node's rules into (in port, tag) -> (new tag, outs).
  std::vector<std::vector<VEntry>>& ent = tr.ent;
  ent.resize(t.num_ports());
  std::atomic<uint64_t> n_trans{0}, n_reentry{0};
  prog->Start("verify: expand rules", t.num_nodes());
  tbb::parallel_for(uint32_t{0}, t.num_nodes(), [&](uint32_t n) {
    const NodeRules& nr = by_node[n];
    if (!nr.present || !t.forwards(n)) return;
    const Node& nd = t.node(n);
    const uint64_t all = nd.num_ports >= 64 ? ~uint64_t{0} : Bit(nd.num_ports) - 1;
    uint64_t tags = 0;
    for (const Rule& r : nr.rules) tags |= r.tags;
    if (nr.keep_unmatched)
      for (int tg = 0; tg < 64; ++tg)
        if (lossless(static_cast<uint8_t>(tg))) tags |= Bit(tg);
    uint64_t trans = 0, reentry = 0;
    for (uint32_t i = 0; i < nd.num_ports; ++i) {
      const uint32_t g = nd.first_port + i;
      for (uint64_t tm = tags; tm; tm &= tm - 1) {
        const auto tg = static_cast<uint8_t>(__builtin_ctzll(tm));
        uint64_t rest = all;
        if (opt.hairpin_dont_care) rest &= ~Bit(i);
        uint64_t by_y[64] = {};
        for (const Rule& r : nr.rules) {  // sorted by priority, ties in order
          if (!((r.tags >> tg) & 1) || !((r.in >> i) & 1)) continue;
          const uint64_t m = rest & r.out;
          by_y[r.new_tag] |= m;
          rest &= ~m;
        }
        if (nr.keep_unmatched) by_y[tg] |= rest;
        for (int y = 0; y < 64; ++y) {
          if (!by_y[y] || !lossless(static_cast<uint8_t>(y))) continue;
          if (!lossless(tg)) {
            reentry += __builtin_popcountll(by_y[y]);
            ex.Add("reentry", PortDesc(t, g) + ": lossy tag " + std::to_string(tg) +
                                  " -> lossless tag " + std::to_string(y));
            continue;
          }
          trans += __builtin_popcountll(by_y[y]);
          ent[g].push_back({tg, static_cast<uint8_t>(y), by_y[y], 0});
        }
      }
    }
    n_trans += trans;
    n_reentry += reentry;
  });
  prog->Done();
  rep.lossless_transitions = n_trans;
  rep.lossy_reentry = n_reentry;
  if (rep.lossy_reentry)
    error(std::to_string(rep.lossy_reentry) +
          " transitions turn a lossy tag lossless: packets off the ELP would not stay lossy" +
          ex.Get("reentry"));

  // 1 + 2. Tagged graph per tag.
  uint64_t tags_at_fwd = 0;
  std::map<uint8_t, std::vector<uint64_t>> same;
  for (uint32_t g = 0; g < t.num_ports(); ++g) {
    const uint32_t a = t.port_node(g);
    for (const VEntry& e : ent[g]) {
      tags_at_fwd |= Bit(e.tag);
      for (uint64_t m = e.outs; m; m &= m - 1) {
        const uint32_t o = static_cast<uint32_t>(__builtin_ctzll(m));
        if (t.forwards(t.neighbor(t.gport(a, o)))) tags_at_fwd |= Bit(e.y);
      }
      if (e.y < e.tag) {
        rep.decreasing += __builtin_popcountll(e.outs);
        ex.Add(
            "decr", PortDesc(t, g) + ": tag " + std::to_string(e.tag) + " -> " +
                        std::to_string(e.y) + " toward port(s) mask 0x" + [&] {
                          std::ostringstream o;
                          o << std::hex << e.outs;
                          return o.str();
                        }());
      } else if (e.y == e.tag) {
        auto& v = same[e.tag];
        if (v.empty()) v.assign(t.num_ports(), 0);
        v[g] |= e.outs & ~t.host_mask(a);
        rep.same_tag_edges += __builtin_popcountll(e.outs & ~t.host_mask(a));
      }
    }
  }
  rep.priorities = __builtin_popcountll(tags_at_fwd);
  if (rep.decreasing)
    error(std::to_string(rep.decreasing) + " transitions lower a lossless tag (requirement 2)" +
          ex.Get("decr"));
  for (const auto& [tg, masks] : same) {
    const auto cyc = FindCycle(t, masks);
    if (!cyc.empty()) {
      ++rep.cyclic_tags;
      error("G_" + std::to_string(tg) + " has a cycle (requirement 1): " + DescribeCycle(t, cyc));
    }
  }

  // 3. Walk the ELP with the rules; mark the transitions it uses
  // (verify_walk.cc: explicit paths, destination trees, the Clos ELP).
  const bool use_trees = trees && elp.trees.enabled;
  prog->Start("verify: walk ELP", elp.paths.size() + (use_trees ? trees->ends().size() : 0));
  std::atomic<uint64_t> walked{0};
  WalkPaths(tr, elp, prog, &walked);
  if (use_trees) WalkTrees(tr, elp, *trees, prog, &walked);
  prog->Done();
  if (elp.clos.enabled) {
    std::string werr;
    if (!WalkClos(tr, elp, prog, &werr)) {
      error(werr);
      return rep;
    }
  }
  rep.elp_states = tr.states;
  rep.elp_failures = tr.failures;
  if (rep.elp_failures)
    error(std::to_string(rep.elp_failures) +
          " ELP transitions are not lossless (requirement: ELP stays lossless)" + ex.Get("elp"));

  // 4. Tightness: lossless transitions that no ELP path uses.
  for (uint32_t g = 0; g < t.num_ports(); ++g)
    for (const VEntry& e : ent[g]) {
      const uint64_t extra = e.outs & ~e.used;
      if (!extra) continue;
      rep.extra += __builtin_popcountll(extra);
      ex.Add("extra", PortDesc(t, g) + ": tag " + std::to_string(e.tag) + " -> " +
                          std::to_string(e.y) + " out port " +
                          std::to_string(__builtin_ctzll(extra)));
    }
  if (rep.extra) {
    const std::string s = std::to_string(rep.extra) +
                          " lossless transitions are not used by any ELP path (packets off the ELP "
                          "could stay lossless there)" +
                          ex.Get("extra");
    if (opt.allow_extra)
      rep.notes.push_back(s);
    else
      error(s);
  }
  return rep;
}

AnalyzeReport AnalyzeRoutes(const Topology& t, const Elp& elp, const DestTrees* trees) {
  AnalyzeReport rep;
  std::vector<uint64_t> out(t.num_ports(), 0);
  std::vector<std::vector<Hop>> hops(elp.paths.size());
  for (size_t p = 0; p < elp.paths.size(); ++p) {
    hops[p] = PathHops(t, elp.paths[p]);
    for (const Hop& h : hops[p])
      if (h.in >= 0 && h.out >= 0) out[t.gport(h.node, h.in)] |= Bit(h.out);
  }
  if (trees && elp.trees.enabled) {
    const uint32_t S = trees->size();
    std::vector<uint8_t> on(S);
    for (uint32_t d : trees->ends()) {
      std::fill(on.begin(), on.end(), 0);
      for (uint32_t s : trees->ends()) {
        // Walk s toward d until a switch already on the union of paths.
        uint32_t c = s;
        while (c != d && !on[c] && trees->next(d, c) != DestTrees::kNoParent) {
          on[c] = 1;
          const uint32_t cn = trees->node_of(c);
          const uint32_t g = t.peer(t.gport(cn, trees->next(d, c)));  // ingress at parent
          const uint32_t a = t.port_node(g), ai = trees->index_of(a);
          if (ai != d) out[g] |= Bit(trees->next(d, ai));
          c = ai;
        }
      }
    }
  }
  for (uint32_t g = 0; g < t.num_ports(); ++g) {
    out[g] &= ~t.host_mask(t.port_node(g));
    rep.dependencies += __builtin_popcountll(out[g]);
  }
  rep.cycle = FindCycle(t, out);
  if (rep.cycle.empty()) {
    rep.text =
        "no cyclic buffer dependency: these routes cannot deadlock with one lossless priority";
    return rep;
  }
  std::ostringstream s;
  s << "cyclic buffer dependency (" << rep.cycle.size() << " ingress queues):\n  "
    << DescribeCycle(t, rep.cycle) << "\n";
  // Name one route per dependency of the cycle.
  for (size_t k = 0; k < rep.cycle.size(); ++k) {
    const uint32_t g = rep.cycle[k], nx = rep.cycle[(k + 1) % rep.cycle.size()];
    const uint32_t a = t.port_node(g);
    const uint32_t o = t.local(t.peer(nx));
    std::string why = "tree routes";
    for (size_t p = 0; p < hops.size(); ++p) {
      bool hit = false;
      for (const Hop& h : hops[p]) hit |= h.node == a && h.in == int(t.local(g)) && h.out == int(o);
      if (hit) {
        why = "paths[" + std::to_string(p) + "]:";
        for (uint32_t v : elp.paths[p].nodes) why += " " + t.node(v).name;
        break;
      }
    }
    s << "  " << t.node(a).name << ": in from " << t.node(t.neighbor(g)).name << ", out to "
      << t.node(t.neighbor(t.gport(a, o))).name << "  <- " << why << "\n";
  }
  rep.text = s.str();
  return rep;
}

}  // namespace pfc::tagger
