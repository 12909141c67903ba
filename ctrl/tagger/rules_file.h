// SPDX-License-Identifier: BSD-3-Clause
// Compressed per-switch Tagger rules (§VII-C) and the rules file pfcswitch
// loads (team brief "Config format"): a YAML document with a `qos` section
// (tag_map, lossless, lossy_priority, lossy_tag) and a `rewrite` section
// (unmatched + rules of {tag, in, out, new_tag, priority}), ports as 0-based
// indices of the switch's ports in topology order, plus informational
// `port_names` (index -> neighbour name).
//
// Compression turns the uncompressed function of a node into TCAM-style
// rules over (tag set x in-port set x out-port set): per (tag, new tag) the
// in-ports with identical out-sets (or out-ports with identical in-sets,
// whichever is smaller) become one rule; then rules that differ only in one
// of tag / in / out are joined (joint aggregation). Per tag, when smaller, a
// priority-0 default "tag, any in, any out -> most common new tag" with
// priority-1 exceptions on top (explicit new_tag 0 for lossy pairs) is used
// instead. Exact rules (hairpins lossy) are also tried as the don't-care
// rules plus one top-priority "in {i}, out {i} -> lossy" rule per port whose
// hairpin those would make lossless, kept when smaller (Clos switches: ports
// + a handful instead of a few rules per port and tag). Rules of equal
// priority never overlap with different results, except on pairs a higher
// priority rule overrides.
// A full port set is written "*"; the tag is never a wildcard (that would
// turn lossy packets lossless), and the switch's reader refuses a rule
// without one ("*" must be written to mean any tag). With
// hairpin_dont_care, (in == out) pairs may be covered too: only valid when
// the switch drops hairpinned packets.
//
// Pure functions; the writer/reader run on the control thread. Compression
// is in compress.cc, the writer and the reader in rules_file.cc.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ctrl/tagger/tag_rules.h"
#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

// The set of a node's n ports (bits 0..n-1).
inline uint64_t AllPorts(uint32_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

struct Rule {
  uint64_t tags = 0;  // bit t = tag t
  uint64_t in = 0;    // local ports
  uint64_t out = 0;
  uint8_t new_tag = 0;
  int32_t priority = 0;
};

std::vector<Rule> CompressNode(const Topology& t, const TagRules& r, uint32_t node,
                               bool hairpin_dont_care);

// What one rules file holds, as the switch reads it.
struct NodeRules {
  bool present = false;
  std::vector<Rule> rules;
  bool keep_unmatched = false;
  uint8_t lossy_tag = 0;
  int8_t prio_of_tag[64];      // -1 = unmapped (lossy priority)
  uint8_t lossless_prios = 0;  // bit p = priority p is PFC-enabled
  uint8_t lossy_prio = 0;      // the priority of unmapped tags
  NodeRules() { std::fill(prio_of_tag, prio_of_tag + 64, int8_t{-1}); }
  bool lossless(uint8_t tag) const {
    return tag < 64 && prio_of_tag[tag] >= 0 && ((lossless_prios >> prio_of_tag[tag]) & 1);
  }
  // First-match (priority, then order) semantics of the dataplane.
  uint8_t Lookup(uint8_t tag, uint32_t in, uint32_t out) const;
};

struct TagPlan;  // tag_plan.h

// Writes `dir`/<node name>.yaml for every forwarding node with rules.
// max_tag: largest lossless tag in the network; tags 1..max_tag go on the
// wire as the plan says (no plan: DSCP t on priority t), and the file keeps
// the plan's pass classes. Fails when the plan has fewer than max_tag tags.
// Returns false with *err.
bool WriteRuleFiles(const Topology& t, const std::vector<std::vector<Rule>>& rules, int max_tag,
                    const std::string& dir, std::string* err, const TagPlan* plan = nullptr);
std::string RulesYaml(const Topology& t, uint32_t node, const std::vector<Rule>& rules, int max_tag,
                      const TagPlan* plan = nullptr);
// The comment line a rules file written with a plan lists it under.
inline constexpr const char* kPlanHeader = "# DSCP plan";
// Whether the file's opening comment says it was written with a plan (its
// tags are then DSCP values, to be read back with the same plan).
bool WrittenWithPlan(const std::string& path);
// Reads one rules file for `node` through the switch's own reader
// (pfc::LoadRulesFile: the same sections, checks and messages as a switch
// loading it, ports resolved against the node's neighbour names, as the
// fabric names an emulated switch's ports, or indices), then keeps the
// result as NodeRules, whose Lookup is the verifier's own, independent of
// the switch's compiled table.
bool LoadRulesYaml(const std::string& path, const Topology& t, uint32_t node, NodeRules* nr,
                   std::string* err);
bool ParseRulesYaml(const std::string& text, const std::string& file, const Topology& t,
                    uint32_t node, NodeRules* nr, std::string* err);
// NodeRules straight from compressed rules (what the files would say).
NodeRules MakeNodeRules(const std::vector<Rule>& rules, int max_tag);

}  // namespace pfc::tagger
