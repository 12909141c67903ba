// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the tag -> priority classification (Tagger step 1).
#include "dataplane/tables/tag_map.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

TEST(TagMap, MappedUnmappedAndLossless) {
  tables::TagMap m;
  m.lossy_prio = 0;
  m.prio_of.fill(m.lossy_prio);
  m.prio_of[1] = 1;
  m.mapped[1] = true;
  m.prio_of[2] = 2;
  m.mapped[2] = true;
  m.lossless_mask = (1 << 1) | (1 << 2);
  bool fallback = true;
  EXPECT_EQ(m.Classify(1, &fallback), 1);
  EXPECT_FALSE(fallback);
  EXPECT_TRUE(m.IsLossless(m.Classify(2, &fallback)));
  EXPECT_FALSE(fallback);
  EXPECT_EQ(m.Classify(3, &fallback), 0);
  EXPECT_TRUE(fallback);
  EXPECT_FALSE(m.IsLossless(0));
  // Only the 6 DSCP bits select the entry.
  EXPECT_EQ(m.Classify(1 | 0x40, &fallback), 1);
  EXPECT_FALSE(fallback);
}

}  // namespace
}  // namespace pfc
