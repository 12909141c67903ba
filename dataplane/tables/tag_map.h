// SPDX-License-Identifier: BSD-3-Clause
// Tag (DSCP) -> priority classification, step 1 of Tagger's match-action
// pipeline (Tagger §VII-A, Fig. 7). Immutable once built; part of the
// published Tables snapshot (switch/tables_snapshot.h). Pure code.
#pragma once
#include <array>
#include <cstdint>

#include "dataplane/common/types.h"

namespace pfc::tables {

struct TagMap {
  // prio_of[tag]: the priority queue for the tag. Tags without a mapping hold
  // lossy_prio and have mapped[tag] == false (counted as lossy fallback).
  std::array<uint8_t, kNumTags> prio_of{};
  std::array<bool, kNumTags> mapped{};
  uint8_t lossless_mask = 0;  // bit p set: priority p is lossless (PFC-enabled)
  uint8_t lossy_prio = 0;     // the queue for unmapped tags and non-IP traffic
  uint8_t lossy_tag = 0;      // the reserved tag Tagger rewrites to when no rule matches

  bool IsLossless(uint8_t prio) const { return (lossless_mask >> prio) & 1; }
  // Priority for a tag; sets *fallback when the tag had no mapping.
  uint8_t Classify(uint8_t tag, bool* fallback) const {
    *fallback = !mapped[tag & 63];
    return prio_of[tag & 63];
  }
};

}  // namespace pfc::tables
