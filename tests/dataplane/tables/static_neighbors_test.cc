// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the configured-neighbour set: lookups, and a failed Build
// (address 0, an address given twice) that names the field and leaves the
// previous set as it was.
#include "dataplane/tables/static_neighbors.h"

#include <gtest/gtest.h>

#include <vector>

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

// A set large enough for the hash's probes to run into each other: every
// address built is found with its own MAC, the ones around it are not.
TEST(StaticNeighbors, ManyNeighboursAllFoundNoneInvented) {
  tables::StaticNeighbors n;
  std::string err;
  std::vector<tables::StaticNeighbors::Entry> es;
  for (uint32_t i = 0; i < 1000; i++) {
    const uint32_t ip = 0x0a000000u + i * 7 + (i % 3) * 0x10000;  // strides and subnets
    es.push_back({ip, {0x02, 0, 0, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i), 1}});
  }
  ASSERT_TRUE(n.Build(es, &err)) << err;
  EXPECT_EQ(n.size(), 1000u);
  uint8_t mac[6];
  for (uint32_t i = 0; i < 1000; i++) {
    ASSERT_TRUE(n.Lookup(es[i].ip, mac)) << i;
    EXPECT_EQ(mac[3] << 8 | mac[4], static_cast<int>(i));
    EXPECT_FALSE(n.Contains(es[i].ip + 0x1000000)) << i;  // another /8
  }
  EXPECT_FALSE(n.Lookup(0, mac));
  tables::StaticNeighbors none;
  EXPECT_FALSE(none.Contains(0x0a000001));
  EXPECT_EQ(none.size(), 0u);
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
