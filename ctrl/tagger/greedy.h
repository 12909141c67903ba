// SPDX-License-Identifier: BSD-3-Clause
// Tagger Algorithm 2 (greedy tag merging, §V-B), built directly on the rule
// automaton so that its output is always a function (tag, in, out) -> tag.
//
// The paper merges the brute-force nodes (port, hop) into new tags in hop
// order, checking that the merged subgraph G'_t' stays acyclic. Merging nodes
// can give one (port, tag) two successors toward the same neighbour with
// different tags, which a switch cannot express. We therefore merge at the
// level of rules: every ELP path is walked hop by hop (all paths' hop 1, then
// all hop 2, ...: the paper's order) and each (tag, in, out) that has no rule
// yet gets "keep the tag" if the edge (A_i, t) -> (B_j, t) keeps G_t acyclic,
// else "tag + 1" (always safe: G_{t+1} gets no edge). A rule, once made, is
// reused by every later path. Both Tagger requirements hold by construction,
// and the tags used never exceed the brute force (one bump per hop at most).
//
// Acyclicity is checked incrementally with the Pearce-Kelly dynamic
// topological order, one order per tag; adjacency is kept as 64-bit port
// masks (out: local ports of the node; in: local ports of the upstream
// node), so the state is ~32 bytes per (port, tag).
//
// Threading: decisions are sequential (they depend on order); TreeDriver
// resolves transitions whose rule already exists in parallel (TBB) and then
// makes the missing rules sequentially in the sequential order, so the result
// equals a sequential run. Owned by one control thread.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ctrl/tagger/elp.h"
#include "ctrl/tagger/progress.h"
#include "ctrl/tagger/tag_rules.h"
#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

class GreedyTagger {
 public:
  // search_budget: most edges one acyclicity search may examine before it
  // gives up and raises the tag instead (0 = unlimited). Bounds the
  // run time on big networks at the price of possibly more tag raises.
  explicit GreedyTagger(const Topology& t, uint64_t search_budget = 0);
  ~GreedyTagger();

  // A packet with `tag` enters on global port gin and leaves on local port
  // `out` of the same node: returns its new tag, making the rule if needed.
  // Returns 0 when the tag would exceed kMaxTag (then *overflow is set).
  uint8_t Step(uint32_t gin, uint8_t tag, uint32_t out);
  // Existing rule only: new tag, or 0xff when there is no rule yet.
  uint8_t Peek(uint32_t gin, uint8_t tag, uint32_t out) const;
  // Packets from every host port of `node` with `tag` leave on `outs`
  // (host ingress ports have no predecessors: always keep the tag).
  void FromHosts(uint32_t node, uint8_t tag, uint64_t outs);
  // A packet entering on gin with `tag` is delivered to every host port of
  // its node (hosts are sinks: keep the tag). Thread-safe against itself.
  void ToHosts(uint32_t gin, uint8_t tag);

  // Makes sure tag's state exists (before parallel phases use ToHosts).
  void Reserve(uint8_t tag) { layer(tag); }

  TagRules Export() const;
  bool overflow() const { return overflow_; }
  uint64_t bumps() const { return bumps_; }
  uint64_t searches() const { return searches_; }
  uint64_t budget_hits() const { return budget_hits_; }

 private:
  struct Layer;
  Layer& layer(uint8_t tag);
  bool InsertEdge(Layer& L, uint32_t u, uint32_t v);  // false: would close a cycle

  const Topology& t_;
  std::vector<std::unique_ptr<Layer>> layers_;  // index = tag
  const uint64_t budget_;
  std::vector<uint32_t> init_ord_, first_, peer_;    // hot copies for the searches
  std::vector<uint64_t> sinks_;                      // host ports of the port's node
  std::unordered_map<uint64_t, uint64_t> host_out_;  // (node << 6 | tag) -> out mask
  bool overflow_ = false;
  uint64_t bumps_ = 0, searches_ = 0, budget_hits_ = 0;
};

// Runs Algorithm 2 over an ELP: explicit paths and, when trees != nullptr,
// the destination-rooted trees, level by level.
struct GreedyResult {
  TagRules rules;
  int levels = 0;            // longest path in forwarding hops
  uint64_t bumps = 0;        // rules that raise the tag
  bool overflow = false;     // needed more than 63 tags
  uint64_t searches = 0;     // acyclicity searches (edges against the order)
  uint64_t budget_hits = 0;  // searches that gave up (tag raised instead)
};
GreedyResult RunGreedy(const Topology& t, const Elp& elp, const DestTrees* trees, Progress* prog,
                       uint64_t search_budget = 0);

}  // namespace pfc::tagger
