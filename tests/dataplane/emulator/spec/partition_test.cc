// SPDX-License-Identifier: BSD-3-Clause
// The virtual clock's split of a fabric over threads (spec/partition.h):
// hosts stay with their switch, glued pairs stay together, every part gets
// nodes and about its share of the ports, one part is everything.
#include "dataplane/emulator/spec/partition.h"

#include <gtest/gtest.h>

#include "ctrl/tagger/topo_gen.h"

namespace pfc::emulator {
namespace {

uint64_t Weight(const tagger::Topology& t, const std::vector<uint16_t>& part, unsigned p) {
  uint64_t w = 0;
  for (uint32_t v = 0; v < t.num_nodes(); v++) w += part[v] == p ? t.node(v).num_ports + 1 : 0;
  return w;
}

TEST(Partition, FatTreeHalvesKeepHostsWithTheirSwitchAndBalance) {
  tagger::Topology t;
  std::string err;
  ASSERT_TRUE(tagger::GenFatTree(8, &t, &err)) << err;
  const std::vector<uint16_t> part = PartitionNodes(t, 2, {});
  ASSERT_EQ(part.size(), t.num_nodes());
  for (uint32_t v = 0; v < t.num_nodes(); v++) {
    ASSERT_LT(part[v], 2);
    if (!t.is_switch(v)) {
      EXPECT_EQ(part[v], part[t.neighbor(t.gport(v, 0))]) << t.node(v).name;
    }
  }
  const uint64_t w0 = Weight(t, part, 0), w1 = Weight(t, part, 1);
  EXPECT_GT(w0, 0u);
  EXPECT_GT(w1, 0u);
  // Within one ToR group (a ToR, its hosts) of an even split.
  EXPECT_LE(w0 > w1 ? w0 - w1 : w1 - w0, 2u * (8 + 1 + 4 * 2));
}

TEST(Partition, GluedNodesShareAPartAndOnePartIsEverything) {
  tagger::Topology t;
  std::string err;
  ASSERT_TRUE(tagger::GenLeafSpine(4, 2, 2, &t, &err)) << err;
  const uint32_t a = t.Find("t0"), b = t.Find("sp1");
  ASSERT_NE(a, tagger::kNoNode);
  ASSERT_NE(b, tagger::kNoNode);
  for (unsigned parts : {2u, 3u, 5u}) {
    const std::vector<uint16_t> part = PartitionNodes(t, parts, {{a, b}});
    EXPECT_EQ(part[a], part[b]) << parts;
    std::vector<int> used(parts, 0);
    for (uint16_t p : part) used.at(p)++;
    for (unsigned p = 0; p < parts; p++) EXPECT_GT(used[p], 0) << parts << " part " << p;
  }
  for (uint16_t p : PartitionNodes(t, 1, {})) EXPECT_EQ(p, 0);
}

TEST(Partition, MorePartsThanGroupsLeavesSomeEmptyButValid) {
  tagger::Topology t;
  std::string err;
  ASSERT_TRUE(tagger::GenLeafSpine(2, 1, 1, &t, &err)) << err;  // 3 groups
  const std::vector<uint16_t> part = PartitionNodes(t, 8, {});
  for (uint16_t p : part) EXPECT_LT(p, 8);
}

}  // namespace
}  // namespace pfc::emulator
