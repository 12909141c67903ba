// SPDX-License-Identifier: BSD-3-Clause
// Shared fixtures of the Tagger generator tests: the paper's three-switch
// example (Fig. 5), and the compress -> NodeRules -> Verify pipeline so that
// every test checks rules the way the switches would load them.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctrl/tagger/elp.h"
#include "ctrl/tagger/rules_file.h"
#include "ctrl/tagger/tag_rules.h"
#include "ctrl/tagger/topology.h"
#include "ctrl/tagger/verify.h"

namespace pfc::tagger::testing {

// Triangle A-B-C, one host per switch; ELP = every loop-free host-to-host
// path (direct and via the third switch): 12 paths, as in Fig. 5.
inline void Triangle(Topology* t, Elp* elp) {
  *t = Topology();
  const uint32_t a = t->AddNode("A", NodeKind::kSwitch), b = t->AddNode("B", NodeKind::kSwitch),
                 c = t->AddNode("C", NodeKind::kSwitch);
  const uint32_t ha = t->AddNode("hA", NodeKind::kHost), hb = t->AddNode("hB", NodeKind::kHost),
                 hc = t->AddNode("hC", NodeKind::kHost);
  t->AddLink(a, ha);
  t->AddLink(b, hb);
  t->AddLink(c, hc);
  t->AddLink(a, b);
  t->AddLink(b, c);
  t->AddLink(c, a);
  std::string err;
  ASSERT_TRUE(t->Finalize(&err)) << err;
  *elp = Elp();
  const uint32_t sw[3] = {a, b, c}, h[3] = {ha, hb, hc};
  for (int x = 0; x < 3; ++x)
    for (int y = 0; y < 3; ++y) {
      if (x == y) continue;
      const int z = 3 - x - y;
      elp->paths.push_back({1, {h[x], sw[x], sw[y], h[y]}});
      elp->paths.push_back({1, {h[x], sw[x], sw[z], sw[y], h[y]}});
    }
}

inline std::vector<NodeRules> Install(const Topology& t, const TagRules& r, bool hairpin = false,
                                      int* max_rules = nullptr) {
  const int max_tag = Summarize(t, r).max_tag;
  std::vector<NodeRules> by_node(t.num_nodes());
  int mx = 0;
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    if (!t.forwards(n)) continue;
    auto rules = CompressNode(t, r, n, hairpin);
    mx = std::max(mx, static_cast<int>(rules.size()));
    if (!rules.empty()) by_node[n] = MakeNodeRules(rules, max_tag);
  }
  if (max_rules) *max_rules = mx;
  return by_node;
}

inline VerifyReport Check(const Topology& t, const Elp& elp, const DestTrees* trees,
                          const TagRules& r, bool allow_extra = false) {
  return Verify(t, elp, trees, Install(t, r), {allow_extra, false});
}

inline std::string Errors(const VerifyReport& r) {
  std::string s;
  for (const auto& e : r.errors) s += e + "\n";
  return s;
}

}  // namespace pfc::tagger::testing
