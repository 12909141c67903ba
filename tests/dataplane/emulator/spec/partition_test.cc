// SPDX-License-Identifier: BSD-3-Clause
// The virtual clock's split of a fabric over threads (spec/partition.h):
// hosts stay with their switch, glued pairs stay together, every part gets
// nodes and about its share of the ports, one part is everything; the
// flows' expected work (NodeWork) and the split it leads to.
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

FlowSpecFile Flow(const tagger::Topology& t, const char* from, const char* to, uint64_t bytes,
                  bool rc) {
  FlowSpecFile f;
  f.from = t.Find(from);
  f.to = t.Find(to);
  f.bytes = bytes;
  f.rc = rc;
  return f;
}

TEST(Partition, NodeWorkFollowsTheFlowsOverEqualCostPaths) {
  FabricSpec spec;
  std::string err;
  ASSERT_TRUE(tagger::GenLeafSpine(2, 2, 1, &spec.topo, &err)) << err;
  const tagger::Topology& t = spec.topo;
  // 10 frames one way and, RC, 10 ACKs back: a host counts each of its 20
  // frames twice, a leaf the 20 it sends on, each spine half of them.
  spec.flows.push_back(Flow(t, "h0_0", "h1_0", 10'000, true));
  std::vector<uint64_t> w = NodeWork(spec);
  EXPECT_EQ(w[t.Find("h0_0")], 40u);
  EXPECT_EQ(w[t.Find("h1_0")], 40u);
  EXPECT_EQ(w[t.Find("t0")], 20u);
  EXPECT_EQ(w[t.Find("t1")], 20u);
  EXPECT_EQ(w[t.Find("sp0")], 10u);
  EXPECT_EQ(w[t.Find("sp1")], 10u);
  // A raw flow has no ACKs; one at a rate counts its time in the run.
  spec.flows.assign(1, Flow(t, "h1_0", "h0_0", 0, false));
  spec.flows[0].rate_bps = 8'000'000'000;  // 1,000 bytes (a frame) a microsecond
  spec.flows[0].start_ns = 1'000;
  spec.duration_ns = 11'000;
  w = NodeWork(spec);
  EXPECT_EQ(w[t.Find("h1_0")], 20u);
  EXPECT_EQ(w[t.Find("t1")], 10u);
  EXPECT_EQ(w[t.Find("sp0")], 5u);
  EXPECT_EQ(w[t.Find("t0")], 10u);
  EXPECT_EQ(w[t.Find("h0_0")], 20u);
  spec.flows.clear();
  for (uint64_t x : NodeWork(spec)) EXPECT_EQ(x, 0u);
}

TEST(Partition, TheFlowsWorkMovesTheSplit) {
  FabricSpec spec;
  std::string err;
  ASSERT_TRUE(tagger::GenLeafSpine(4, 2, 2, &spec.topo, &err)) << err;
  const tagger::Topology& t = spec.topo;
  const uint32_t t0 = t.Find("t0"), sp0 = t.Find("sp0");
  // By ports, the first leaf's group shares its part with a spine.
  std::vector<uint16_t> part = PartitionNodes(t, 2, {});
  EXPECT_EQ(part[t0], part[sp0]);
  // All the traffic between the first leaf's two hosts: that group is half
  // the work alone, and the rest of the fabric the other half.
  spec.flows.push_back(Flow(t, "h0_0", "h0_1", 1'000'000, true));
  part = PartitionNodes(t, 2, {}, NodeWork(spec));
  for (uint32_t v = 0; v < t.num_nodes(); v++) {
    const bool first = v == t0 || (!t.is_switch(v) && t.neighbor(t.gport(v, 0)) == t0);
    EXPECT_EQ(part[v], first ? part[t0] : 1 - part[t0]) << t.node(v).name;
  }
}

}  // namespace
}  // namespace pfc::emulator
