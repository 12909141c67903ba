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
// load: cell[row_of[tag]][in][out], with in/out padded to a power of two.
// Rows are only built for tags that some rule can match, and identical rows
// are stored once; every other tag shares row 0 (the default). To let
// `unmatched_keeps_tag` share row 0 as well, each cell holds new_tag XOR
// xor_of[tag] (xor_of is all zero unless unmatched_keeps_tag, when it is the
// tag itself, so an all-zero row means "keep"). At 64 ports a row is 4 KiB;
// 8 tags fit in L1.
// Built by the control thread, immutable after, read by the workers through
// the published Tables snapshot.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"

namespace pfc::tables {

struct RewriteRule {
  TagMask tags = kAnyTag;
  PortMask in_ports = kAnyPort;
  PortMask out_ports = kAnyPort;
  uint8_t new_tag = 0;
  int32_t priority = 0;  // higher wins
};

struct RewriteConfig {
  std::vector<RewriteRule> rules;
  uint8_t default_tag = 0;           // the lossy tag
  bool unmatched_keeps_tag = false;  // true: no rule -> tag unchanged
  uint16_t num_ports = 0;            // ports 0..num_ports-1 exist (<= kMaxPorts)
};

class RewriteTable {
 public:
  // Returns false and fills *err (naming the rule and field) when the config
  // is invalid: num_ports not in 1..kMaxPorts, default_tag or a new_tag >= 64,
  // a rule whose tag, in-port or out-port set is empty, or a port set (other
  // than the kAnyPort wildcard) naming a port >= num_ports. On failure the
  // table keeps its previous contents.
  bool Compile(const RewriteConfig& cfg, std::string* err);

  // Precondition: Compile() succeeded, in and out < num_ports. The tag's
  // upper two bits are ignored (DSCP is 6 bits).
  uint8_t Lookup(uint8_t tag, PortId in, PortId out) const {
    return cells_[(static_cast<uint32_t>(row_of_[tag & 63]) << shift2_) |
                  (static_cast<uint32_t>(in) << shift_) | out] ^
           xor_of_[tag & 63];
  }
  // Burst form: the same lookups for n packets (any n >= 0). The pipeline
  // does not call it (the ingress stage calls Lookup per packet, after it
  // knows the packet's out port); kept as the batch interface, tested
  // against Lookup.
  void LookupBurst(const uint8_t* tags, const PortId* in, const PortId* out, uint8_t* new_tags,
                   int n) const;

  int rows() const { return rows_; }
  size_t bytes() const { return cells_.size(); }

 private:
  std::vector<uint8_t> cells_;  // rows_ x (1<<shift_) x (1<<shift_)
  uint8_t row_of_[kNumTags] = {};
  uint8_t xor_of_[kNumTags] = {};
  uint32_t shift_ = 0, shift2_ = 0;
  int rows_ = 0;
};

// The specification the compiled table is tested against: scans the rules in
// order, as the TCAM would. Not for the fast path. Ports >= 64 match no rule.
uint8_t NaiveRewriteLookup(const RewriteConfig& cfg, uint8_t tag, PortId in, PortId out);

}  // namespace pfc::tables
