// SPDX-License-Identifier: BSD-3-Clause
// Tagger's (tag, in-port, out-port) -> new-tag rewrite table (Tagger §VII-A/C).
//
// Rules use the TCAM-style compression of Tagger §VII-C: a rule matches a SET
// of tags, in-ports and out-ports (bitmasks; ~0 is the wildcard), the
// highest-priority matching rule wins (ties: the earlier rule), and a packet
// no rule matches gets `default_tag` (the reserved lossy tag) — or keeps its
// tag when `unmatched_keeps_tag` is set.
//
// Compile() turns the rule list into a dense array so that a lookup is one
// load: rows are only built for tags that some rule can match; every other tag
// shares row 0 (the default). Built by the control thread, immutable after,
// read by the workers through the published Tables snapshot.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "dataplane/common/types.h"

namespace pfc {

struct RewriteRule {
  TagMask tags = kAnyTag;
  PortMask in_ports = kAnyPort;
  PortMask out_ports = kAnyPort;
  uint8_t new_tag = 0;
  int32_t priority = 0;   // higher wins
};

struct RewriteConfig {
  std::vector<RewriteRule> rules;
  uint8_t default_tag = 0;            // the lossy tag
  bool unmatched_keeps_tag = false;   // true: no rule -> tag unchanged
  uint16_t num_ports = 0;             // ports 0..num_ports-1 exist (<= kMaxPorts)
};

class RewriteTable {
 public:
  // Returns false and fills *err when the config is invalid (tag >= 64,
  // num_ports out of range).
  bool Compile(const RewriteConfig& cfg, std::string* err);

  uint8_t Lookup(uint8_t tag, PortId in, PortId out) const {
    return cells_[(static_cast<uint32_t>(row_of_[tag & 63]) << shift2_) |
                  (static_cast<uint32_t>(in) << shift_) | out];
  }
  // Burst form (the one the pipeline uses). n <= kMaxBurst.
  void LookupBurst(const uint8_t* tags, const PortId* in, const PortId* out,
                   uint8_t* new_tags, int n) const;

  int rows() const { return rows_; }
  size_t bytes() const { return cells_.size(); }

 private:
  std::vector<uint8_t> cells_;    // rows_ x (1<<shift_) x (1<<shift_)
  uint8_t row_of_[kNumTags] = {};
  uint32_t shift_ = 0, shift2_ = 0;
  int rows_ = 0;
};

// The specification the compiled table is tested against: scans the rules in
// order, as the TCAM would. Not for the fast path.
uint8_t NaiveRewriteLookup(const RewriteConfig& cfg, uint8_t tag, PortId in, PortId out);

}  // namespace pfc
