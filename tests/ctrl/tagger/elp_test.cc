// SPDX-License-Identifier: BSD-3-Clause
// Expected lossless paths: validation, file format and generators.
#include "ctrl/tagger/elp.h"

#include <gtest/gtest.h>

#include <set>

#include "ctrl/tagger/elp_gen.h"
#include "ctrl/tagger/topo_gen.h"
#include "tests/ctrl/tagger/tagger_test_util.h"

namespace pfc::tagger {
namespace {

TEST(ElpFile, BadPathsAreRejectedClearly) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  struct {
    const char* json;
    const char* expect;
  } cases[] = {
      {R"({"paths": [{"nodes": ["hA", "A", "hB"]}]})",
       "paths[0].nodes[2]: no link between 'A' and 'hB'"},
      {R"({"paths": [{"nodes": ["hA", "A", "B", "A", "hA"]}]})",
       "paths[0].nodes[3]: node 'A' appears twice"},
      {R"({"paths": [{"nodes": ["hA", "A", "X"]}]})", "paths[0].nodes[2]: unknown node 'X'"},
      {R"({"paths": [{"class": 0, "nodes": ["hA", "A", "B"]}]})", "paths[0].class"},
      {R"({"paths": [{"nodes": []}]})", "paths[0].nodes: expected at least one node"},
      {R"({"paths": [{"nodes": ["A"]}]})", "at least two hosts"},
      {R"({"paths": [{"nodes": "A"}]})", "paths[0]: expected"},
      {R"({"paths": []})", "the ELP is empty"},
      {R"({"trees": {"seed": -1}})", "trees.seed"},
      {R"({"trees": 3})", "trees: expected"},
  };
  for (const auto& c : cases) {
    Elp e;
    std::string err;
    EXPECT_FALSE(ParseElpJson(c.json, "elp.json", t, &e, &err)) << c.json;
    EXPECT_NE(err.find("elp.json: "), std::string::npos) << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << "got: " << err;
  }
  // A host in the middle of a path must be a relay.
  Topology u;
  u.AddNode("s1", NodeKind::kSwitch);
  u.AddNode("s2", NodeKind::kSwitch);
  u.AddNode("h", NodeKind::kHost);
  u.AddNode("h1", NodeKind::kHost);
  u.AddLink(0, 2);
  u.AddLink(2, 1);
  u.AddLink(0, 3);
  std::string err;
  ASSERT_TRUE(u.Finalize(&err));
  Elp e;
  EXPECT_FALSE(
      ParseElpJson(R"({"paths": [{"nodes": ["h1", "s1", "h", "s2"]}]})", "e", u, &e, &err));
  EXPECT_NE(err.find("does not forward"), std::string::npos) << err;
}

TEST(ElpFile, RoundTrip) {
  Topology t;
  Elp elp, back;
  testing::Triangle(&t, &elp);
  elp.trees = {true, 42, 1};
  std::string err;
  const std::string path = ::testing::TempDir() + "/elp_rt.json";
  ASSERT_TRUE(SaveElp(t, elp, path, &err)) << err;
  ASSERT_TRUE(LoadElp(path, t, &back, &err)) << err;
  ASSERT_EQ(back.paths.size(), elp.paths.size());
  for (size_t i = 0; i < elp.paths.size(); ++i) EXPECT_EQ(back.paths[i].nodes, elp.paths[i].nodes);
  EXPECT_TRUE(back.trees.enabled);
  EXPECT_EQ(back.trees.seed, 42u);
}

TEST(ElpGen, ShortestPathsOnLeafSpine) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 2, &t, &err));
  Elp elp;
  ASSERT_TRUE(GenShortestPaths(t, 0, 1, 1, 1000000, &elp, &err)) << err;
  // 4 local [ToR] paths + 12 ordered ToR pairs x 2 spines.
  EXPECT_EQ(elp.paths.size(), 4u + 12u * 2u);
  for (size_t i = 0; i < elp.paths.size(); ++i)
    EXPECT_TRUE(ValidatePath(t, elp.paths[i], i, "gen", &err)) << err;
  Elp one;
  ASSERT_TRUE(GenShortestPaths(t, 1, 1, 1, 1000000, &one, &err));
  EXPECT_EQ(one.paths.size(), 4u + 12u);
  Elp capped;
  EXPECT_FALSE(GenShortestPaths(t, 0, 1, 1, 10, &capped, &err));
  EXPECT_NE(err.find("more than 10 paths"), std::string::npos);
}

TEST(ElpGen, ClosBouncePathsCountAndBounces) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 1, &t, &err));
  Elp up, b1;
  ASSERT_TRUE(GenClosPaths(t, 0, 1, 1000000, &up, &err)) << err;
  EXPECT_EQ(up.paths.size(), 12u * 2u);
  ASSERT_TRUE(GenClosPaths(t, 1, 1, 1000000, &b1, &err)) << err;
  // Per ordered pair: 2 up-down + (spine, middle ToR, other spine) = 2*2*1.
  EXPECT_EQ(b1.paths.size(), 12u * (2u + 4u));
  for (const Path& p : b1.paths) {
    int bounces = 0;
    for (size_t k = 1; k + 1 < p.nodes.size(); ++k)
      bounces += t.node(p.nodes[k - 1]).layer > t.node(p.nodes[k]).layer &&
                 t.node(p.nodes[k + 1]).layer > t.node(p.nodes[k]).layer;
    EXPECT_LE(bounces, 1);
  }
}

TEST(ElpGen, TreesAreShortestAndDeterministic) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenJellyfish(40, 8, 4, 9, &t, &err));
  DestTrees a, b;
  a.Build(t, 5);
  b.Build(t, 5);
  std::vector<uint8_t> dist;
  std::vector<uint32_t> idx(t.num_nodes(), kNoNode), sw = t.Switches();
  for (uint32_t s = 0; s < sw.size(); ++s) idx[sw[s]] = s;
  for (uint32_t d : a.ends()) {
    SwitchDistances(t, idx, sw, d, &dist);
    for (uint32_t s = 0; s < a.size(); ++s) {
      EXPECT_EQ(a.next(d, s), b.next(d, s));
      if (s == d || dist[s] == 0xff) continue;
      const uint32_t parent = idx[t.neighbor(t.gport(a.node_of(s), a.next(d, s)))];
      EXPECT_EQ(dist[parent] + 1, dist[s]);
    }
  }
}

TEST(ElpGen, RandomPathsAreLoopFreeAndBounded) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenJellyfish(30, 8, 4, 2, &t, &err));
  Elp elp;
  ASSERT_TRUE(GenRandomPaths(t, 200, 4, 7, 1, &elp, &err)) << err;
  ASSERT_EQ(elp.paths.size(), 200u);
  for (size_t i = 0; i < elp.paths.size(); ++i) {
    EXPECT_TRUE(ValidatePath(t, elp.paths[i], i, "gen", &err)) << err;
    EXPECT_LE(elp.paths[i].nodes.size(), 5u);
  }
}

}  // namespace
}  // namespace pfc::tagger
