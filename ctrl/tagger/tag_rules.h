// SPDX-License-Identifier: BSD-3-Clause
// Uncompressed Tagger rules: the (tag, in-port, out-port) -> new-tag function
// of every forwarding node, i.e. the edges of the tagged graph G(V, E) of
// Tagger §V (one edge (A_i, x) -> (B_j, y) per (x, i, out toward B) entry).
//
// Stored per ingress global port as a few (tag, new_tag, out-port mask)
// entries, so a 10,000-switch network fits in tens of MB. Everything not
// listed maps to the lossy tag 0. Written by one tagging scheme (single
// thread), then read by compression and statistics.
#pragma once
#include <cstdint>
#include <vector>

#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

inline constexpr uint8_t kLossyTag = 0;
inline constexpr int kMaxTag = 63;  // tags are the 6-bit DSCP field

struct RuleEntry {
  uint8_t tag;
  uint8_t new_tag;
  uint64_t outs;  // local out ports of the node
};

class TagRules {
 public:
  explicit TagRules(uint32_t num_ports = 0) : by_port_(num_ports) {}
  // Adds (tag, in=g, out in outs) -> new_tag. Returns false when some (tag,
  // g, out) already maps to a different new tag (the function would not be
  // deterministic); nothing is changed then.
  bool Add(uint32_t g, uint8_t tag, uint8_t new_tag, uint64_t outs);
  // New tag for a packet with `tag` entering on global port g and leaving on
  // local port `out` (kLossyTag when no entry).
  uint8_t Lookup(uint32_t g, uint8_t tag, uint32_t out) const;
  const std::vector<RuleEntry>& entries(uint32_t g) const { return by_port_[g]; }
  uint32_t num_ports() const { return static_cast<uint32_t>(by_port_.size()); }
  // Number of (tag, in, out) triples.
  uint64_t Triples() const;

 private:
  std::vector<std::vector<RuleEntry>> by_port_;
};

// Summary numbers of a rule set on a topology (Table V's columns).
struct TagSummary {
  int priorities = 0;  // distinct lossless tags at forwarding-node ingress ports
  int tags_total = 0;  // distinct tags including those only seen by end hosts
  int max_tag = 0;
  uint64_t triples = 0;  // uncompressed (tag, in, out) entries
};
TagSummary Summarize(const Topology& t, const TagRules& r);

}  // namespace pfc::tagger
