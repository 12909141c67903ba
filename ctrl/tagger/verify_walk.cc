// SPDX-License-Identifier: BSD-3-Clause
// Verify()'s requirement 3 (every ELP path stays lossless): three walks of
// the ELP through the expanded rules, one per way an ELP is given. Each
// marks the transitions it uses (for the tightness check) and counts the
// states it visits and the steps that turn lossy.
#include "ctrl/tagger/verify_walk.h"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "ctrl/tagger/clos_walks.h"

namespace pfc::tagger::verify_detail {

uint64_t Transitions::Step(uint32_t g, uint8_t tg, uint32_t o, const std::string& what) {
  const uint32_t a = t.port_node(g);
  VEntry* e = nullptr;
  for (VEntry& c : ent[g])
    if (c.tag == tg && ((c.outs >> o) & 1)) {
      e = &c;
      break;
    }
  if (!e) {
    ++failures;
    ex.Add("elp", what + ": at " + PortDesc(t, g) + " tag " + std::to_string(tg) + " out port " +
                      std::to_string(o) + " (to " + t.node(t.neighbor(t.gport(a, o))).name +
                      ") becomes lossy");
    return kGone;
  }
  std::atomic_ref<uint64_t>(e->used).fetch_or(Bit(o), std::memory_order_relaxed);
  const uint32_t w = t.peer(t.gport(a, o));
  if (!t.forwards(t.port_node(w))) return kGone;
  return uint64_t{w} << 8 | e->y;
}

namespace {
// One breadth-first level done: the next states, each once.
void NextLevel(Transitions& tr, std::vector<uint64_t>* cur, std::vector<uint64_t>* nxt) {
  tr.states += cur->size();
  std::sort(nxt->begin(), nxt->end());
  nxt->erase(std::unique(nxt->begin(), nxt->end()), nxt->end());
  cur->swap(*nxt);
}
}  // namespace

void WalkPaths(Transitions& tr, const Elp& elp, Progress* prog, std::atomic<uint64_t>* walked) {
  const Topology& t = tr.t;
  std::vector<std::vector<Hop>> hops(elp.paths.size());
  for (size_t p = 0; p < elp.paths.size(); ++p) hops[p] = PathHops(t, elp.paths[p]);
  tbb::parallel_for(size_t{0}, elp.paths.size(), [&](size_t p) {
    const std::string what = "ELP paths[" + std::to_string(p) + "]";
    std::vector<uint64_t> cur, nxt;
    const Hop& h0 = hops[p][0];
    if (h0.in < 0) {
      for (uint64_t m = t.host_mask(h0.node); m; m &= m - 1)
        cur.push_back(uint64_t{t.gport(h0.node, static_cast<uint32_t>(__builtin_ctzll(m)))} << 8 |
                      elp.paths[p].cls);
    } else {
      cur.push_back(uint64_t{t.gport(h0.node, h0.in)} << 8 | elp.paths[p].cls);
    }
    for (const Hop& h : hops[p]) {
      nxt.clear();
      for (uint64_t st : cur) {
        const auto g = static_cast<uint32_t>(st >> 8);
        const auto tg = static_cast<uint8_t>(st & 0xff);
        const uint64_t outs = h.out < 0 ? t.host_mask(h.node) & ~Bit(t.local(g)) : Bit(h.out);
        for (uint64_t m = outs; m; m &= m - 1) {
          const uint64_t s = tr.Step(g, tg, static_cast<uint32_t>(__builtin_ctzll(m)), what);
          if (s != Transitions::kGone) nxt.push_back(s);
        }
      }
      NextLevel(tr, &cur, &nxt);
    }
    if (walked->fetch_add(1) % 1024 == 0) prog->Update(walked->load());
  });
}

void WalkTrees(Transitions& tr, const Elp& elp, const DestTrees& trees, Progress* prog,
               std::atomic<uint64_t>* walked) {
  const Topology& t = tr.t;
  const auto& ends = trees.ends();
  tbb::parallel_for(size_t{0}, ends.size(), [&](size_t k) {
    const uint32_t d = ends[k];
    const std::string what = "ELP tree of '" + t.node(trees.node_of(d)).name + "'";
    std::vector<uint64_t> cur, nxt;
    for (uint32_t s : ends) {
      const uint32_t sn = trees.node_of(s);
      for (uint64_t m = t.host_mask(sn); m; m &= m - 1) {
        const uint32_t g = t.gport(sn, static_cast<uint32_t>(__builtin_ctzll(m)));
        cur.push_back(uint64_t{g} << 8 | elp.trees.cls);
      }
    }
    while (!cur.empty()) {
      nxt.clear();
      for (uint64_t st : cur) {
        const auto g = static_cast<uint32_t>(st >> 8);
        const auto tg = static_cast<uint8_t>(st & 0xff);
        const uint32_t a = t.port_node(g), ai = trees.index_of(a);
        if (ai == d) {
          for (uint64_t m = t.host_mask(a) & ~Bit(t.local(g)); m; m &= m - 1)
            tr.Step(g, tg, static_cast<uint32_t>(__builtin_ctzll(m)), what);
          continue;
        }
        const uint8_t o = trees.next(d, ai);
        if (o == DestTrees::kNoParent) continue;  // unreachable: not in the ELP
        const uint64_t s = tr.Step(g, tg, o, what);
        if (s != Transitions::kGone) nxt.push_back(s);
      }
      NextLevel(tr, &cur, &nxt);
    }
    prog->Update(walked->fetch_add(1) + 1);
  });
}

bool WalkClos(Transitions& tr, const Elp& elp, Progress* prog, std::string* err) {
  // A breadth-first dynamic program over (ingress port, tag, bounces used)
  // states from every host port with every class tag. Each state is
  // expanded once however many walks reach it, so the cost is states x
  // ports per switch, not the number of paths.
  const Topology& t = tr.t;
  ClosWalks walks;
  if (!walks.Init(t, elp.clos.bounces, err)) return false;
  const int nb = elp.clos.bounces + 1;
  const std::string what = "Clos walk (<= " + std::to_string(elp.clos.bounces) + " bounces)";
  std::vector<uint64_t> seen(size_t{t.num_ports()} * nb, 0);  // bit = tag
  std::vector<uint64_t> queue;                                // g << 16 | bounces << 8 | tag
  auto push = [&](uint32_t g, int b, uint8_t tg) {
    uint64_t& m = seen[size_t{g} * nb + b];
    if ((m >> tg) & 1) return;
    m |= Bit(tg);
    queue.push_back(uint64_t{g} << 16 | uint64_t(b) << 8 | tg);
  };
  for (uint32_t a = 0; a < t.num_nodes(); ++a)
    for (uint64_t hm = t.is_switch(a) ? t.host_mask(a) : 0; hm; hm &= hm - 1)
      for (uint64_t cm = elp.clos.classes; cm; cm &= cm - 1)
        push(t.gport(a, static_cast<uint32_t>(__builtin_ctzll(hm))), 0,
             static_cast<uint8_t>(__builtin_ctzll(cm)));
  prog->Start("verify: Clos walks", 0);
  for (size_t q = 0; q < queue.size(); ++q) {
    const auto g = static_cast<uint32_t>(queue[q] >> 16);
    const int b = static_cast<int>((queue[q] >> 8) & 0xff);
    const auto tg = static_cast<uint8_t>(queue[q] & 0xff);
    const uint32_t a = t.port_node(g);
    for (uint32_t o = 0; o < t.node(a).num_ports; ++o) {
      if (!walks.OnWalk(g, o, b)) continue;
      const uint64_t s = tr.Step(g, tg, o, what);
      if (s != Transitions::kGone)
        push(static_cast<uint32_t>(s >> 8), b + walks.Cost(g, o), static_cast<uint8_t>(s & 0xff));
    }
  }
  tr.states += queue.size();
  prog->Done();
  return true;
}

}  // namespace pfc::tagger::verify_detail
