// SPDX-License-Identifier: BSD-3-Clause
// Independent checks of Tagger rules (§V, Theorem 1) and of plain routes.
//
// Verify() trusts nothing from the generator: it takes the topology, the ELP
// and the rules exactly as the switches would load them (NodeRules per node,
// read by the switch's own loader, rules_file.h; looked up here by its own
// first-match code, unmatched -> lossy tag), rebuilds the tagged graph
// from every (tag, in, out) whose result is a lossless tag, and checks
//   1. every G_k is acyclic (one cycle is printed if not),
//   2. no transition lowers a lossless tag,
//   3. every ELP path, from every host of its source, stays lossless to
//      every destination host; an implicit Clos ELP (elp.h ClosSpec) is
//      walked as a dynamic program over (ingress port, tag, bounces) states
//      from every host port with every class tag, each state expanded once,
//      so FatTree(32) with 2 bounces takes well under a second,
//   4. packets off the ELP end lossy: lossy tags never become lossless, and
//      every lossless transition is used by some ELP path (tight rules; with
//      allow_extra this is a note, for schemes like Clos that tag by turn
//      type rather than by ELP),
//   5. the qos sections agree and map lossless tags to distinct priorities.
// AnalyzeRoutes() is the "without Tagger" view: the buffer dependency graph
// of the routes (ingress port -> next ingress port) and one cyclic buffer
// dependency, if any, that could deadlock.
//
// Runs on the control thread; the per-tree ELP walk is parallel (TBB), the
// Clos walk sequential.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ctrl/tagger/elp.h"
#include "ctrl/tagger/progress.h"
#include "ctrl/tagger/rules_file.h"
#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

struct VerifyOptions {
  bool allow_extra = false;        // extra lossless transitions are a note, not an error
  bool hairpin_dont_care = false;  // switches drop hairpinned packets: ignore in == out
};

struct VerifyReport {
  bool ok = true;
  std::vector<std::string> errors;
  std::vector<std::string> notes;
  uint64_t lossless_transitions = 0;  // (tag, in, out) with a lossless result
  uint64_t same_tag_edges = 0;
  uint64_t decreasing = 0;
  uint64_t cyclic_tags = 0;
  uint64_t elp_states = 0;  // (port, tag) states walked
  uint64_t elp_failures = 0;
  uint64_t extra = 0;          // lossless transitions no ELP path uses
  uint64_t lossy_reentry = 0;  // lossy tag -> lossless tag transitions
  int priorities = 0;
};

// by_node[n]: rules of node n (absent = no rules file: everything lossy).
VerifyReport Verify(const Topology& t, const Elp& elp, const DestTrees* trees,
                    const std::vector<NodeRules>& by_node, const VerifyOptions& opt,
                    Progress* prog = nullptr);

// One cycle of a single-tag dependency graph given as out masks per global
// ingress port (bit o = edge to the ingress at the far end of local port o).
// Returns the ingress ports on the cycle, in order, or empty.
std::vector<uint32_t> FindCycle(const Topology& t, const std::vector<uint64_t>& out_mask);
std::string DescribeCycle(const Topology& t, const std::vector<uint32_t>& cycle);

struct AnalyzeReport {
  uint64_t dependencies = 0;    // edges of the buffer dependency graph
  std::vector<uint32_t> cycle;  // empty: no cyclic buffer dependency
  std::string text;             // human-readable cycle with the routes causing it
};
AnalyzeReport AnalyzeRoutes(const Topology& t, const Elp& elp, const DestTrees* trees);

}  // namespace pfc::tagger
