// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the configured-neighbour set: lookups, and a failed Build
// (address 0, an address given twice) that names the field and leaves the
// previous set as it was.
#include "dataplane/tables/static_neighbors.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

tables::StaticNeighbors::Entry E(uint32_t ip, uint8_t last) {
  return {ip, {0x02, 0, 0, 0, 0, last}};
}

TEST(StaticNeighbors, LooksUpWhatWasBuilt) {
  tables::StaticNeighbors n;
  std::string err;
  ASSERT_TRUE(n.Build({E(0x0a000003, 3), E(0x0a000001, 1), E(0x0a000002, 2)}, &err)) << err;
  EXPECT_EQ(n.size(), 3u);
  uint8_t mac[6];
  for (uint8_t i = 1; i <= 3; i++) {
    ASSERT_TRUE(n.Lookup(0x0a000000u + i, mac)) << int{i};
    EXPECT_EQ(mac[5], i);
    EXPECT_TRUE(n.Contains(0x0a000000u + i));
  }
  EXPECT_FALSE(n.Lookup(0x0a000004, mac));
  EXPECT_FALSE(n.Lookup(0, mac));
  EXPECT_FALSE(n.Contains(0x0a000000));
}

TEST(StaticNeighbors, RefusedBuildNamesTheFieldAndKeepsTheOldSet) {
  tables::StaticNeighbors n;
  std::string err;
  ASSERT_TRUE(n.Build({E(0x0a000001, 1)}, &err));
  EXPECT_FALSE(n.Build({E(0x0a000002, 2), E(0x0a000005, 5), E(0x0a000002, 9)}, &err));
  EXPECT_NE(err.find("neighbors[2].ip"), std::string::npos) << err;
  EXPECT_NE(err.find("10.0.0.2 is neighbors[0]"), std::string::npos) << err;
  EXPECT_FALSE(n.Build({E(0, 1)}, &err));
  EXPECT_NE(err.find("neighbors[0].ip"), std::string::npos) << err;
  uint8_t mac[6];
  EXPECT_EQ(n.size(), 1u);
  EXPECT_TRUE(n.Lookup(0x0a000001, mac));
  EXPECT_FALSE(n.Lookup(0x0a000002, mac));
}

}  // namespace
}  // namespace pfc
