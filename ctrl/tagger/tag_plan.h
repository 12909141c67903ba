// SPDX-License-Identifier: BSD-3-Clause
// The operator's DSCP/priority plan for Tagger's tags. Tagger's algorithms
// number their lossless tags 1..N in the order a packet may climb them
// (Tagger §V: tags never go down); the plan says which DSCP value and which
// priority carries each of those tags on the wire, which other classes pass
// every switch untouched (e.g. CNPs on DSCP 48 / priority 6, whose DSCP a
// receiver's NIC does not care about but the operator's QoS does), and
// where Tagger's lossy fallback goes (DSCP and priority). Without a plan,
// tag t is DSCP t on priority t and the fallback is DSCP 0 on priority 0,
// the mapping a rules file written without a plan assumes.
//
// A plan file (YAML, read with the switch config's reader, so errors name
// file:line and field):
//   tags:  [ { dscp: 26, priority: 3 }, { dscp: 27, priority: 4 } ]
//   pass:  [ { dscp: 48, priority: 6 } ]       # optional
//   lossy: { dscp: 0, priority: 0 }            # optional, this default
// Pass classes are lossy: a lossless class that Tagger does not tag could
// close a cyclic buffer dependency, which is what Tagger exists to prevent.
//
// The rules files hold DSCP values; the generator and the verifier work on
// tags. ToWire / ToTags translate at that boundary; ToTags also checks that
// a file keeps every pass class untouched and maps the plan's classes to the
// plan's priorities. Pure; control thread.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ctrl/tagger/rules_file.h"

namespace pfc::tagger {

struct WireClass {
  uint8_t dscp = 0;
  uint8_t prio = 0;
};

struct TagPlan {
  std::vector<WireClass> tags;  // tags[i]: Tagger's lossless tag i + 1
  std::vector<WireClass> pass;  // lossy classes kept as they are
  WireClass lossy;              // Tagger's lossy fallback (tag 0)
  bool given = false;           // false: the identity plan below

  // DSCP t on priority t for tags 1..7, fallback DSCP 0 on priority 0.
  static TagPlan Identity();
  uint8_t DscpOf(uint8_t tag) const { return tag == 0 ? lossy.dscp : tags[tag - 1].dscp; }
  uint8_t PrioOf(uint8_t tag) const { return tag == 0 ? lossy.prio : tags[tag - 1].prio; }
  bool IsPass(uint8_t dscp) const;
  // Tag carried by `dscp`: 0 for the fallback, 1..N, or -1 (not a tag).
  int TagOf(uint8_t dscp) const;
  // One line per class, for pfc-tagger's summary ("tag 1: DSCP 26, priority 3").
  std::string Describe(int max_tag) const;
};

// Loads and checks a plan file: 1..7 tags, DSCPs 0..63 all distinct,
// distinct priorities 0..7 for the tags, pass classes and the fallback on
// priorities no tag uses. False with "file:line: field: expected ..." in *err.
bool LoadTagPlan(const std::string& path, TagPlan* plan, std::string* err);
bool ParseTagPlan(const std::string& text, const std::string& file, TagPlan* plan,
                  std::string* err);

// Rules over tags -> the same rules over the plan's DSCPs (rule tag sets and
// new tags), plus one rule per pass class that keeps it ({dscp} x any x any
// -> dscp). The file's qos section comes from the plan (RulesYaml).
std::vector<Rule> ToWire(const TagPlan& plan, const std::vector<Rule>& rules, uint32_t nports);

// A node's rules as the switch read them (DSCPs) -> the same over tags, for
// the verifier. Fails (false, *err naming `where`) when the file's qos does
// not map the plan's classes to the plan's priorities and lossless set,
// when a rule matches or writes a DSCP the plan does not name, or when some
// (in, out) pair would rewrite a pass class.
bool ToTags(const TagPlan& plan, const NodeRules& wire, uint32_t nports, const std::string& where,
            NodeRules* tags, std::string* err);

}  // namespace pfc::tagger
