// SPDX-License-Identifier: BSD-3-Clause
// Topology model, generators and the topology file format.
#include "ctrl/tagger/topology.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "ctrl/tagger/elp.h"
#include "ctrl/tagger/topo_gen.h"

namespace pfc::tagger {
namespace {

int CountKind(const Topology& t, NodeKind k) {
  int n = 0;
  for (const auto& nd : t.nodes()) n += nd.kind == k;
  return n;
}

TEST(TopoGen, FatTreeSizesAndPortOrder) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenFatTree(4, &t, &err)) << err;
  EXPECT_EQ(CountKind(t, NodeKind::kSwitch), 20);  // 8 ToR + 8 agg + 4 core
  EXPECT_EQ(CountKind(t, NodeKind::kHost), 16);
  EXPECT_EQ(t.num_links(), 16u + 16u + 16u);
  const uint32_t tor = t.Find("t0_0");
  ASSERT_NE(tor, kNoNode);
  EXPECT_EQ(t.node(tor).num_ports, 4);
  EXPECT_EQ(t.host_mask(tor), 0x3u);  // hosts first, then aggregation
  EXPECT_EQ(t.node(t.neighbor(t.gport(tor, 2))).name, "a0_0");
  for (uint32_t n = 0; n < t.num_nodes(); ++n)
    if (t.is_switch(n)) {
      EXPECT_EQ(t.node(n).num_ports, 4) << t.node(n).name;
    }
}

TEST(TopoGen, F10WiresOddPodsDifferently) {
  Topology a, b;
  std::string err;
  ASSERT_TRUE(GenFatTree(8, &a, &err));
  ASSERT_TRUE(GenF10(8, &b, &err));
  auto cores_of = [](const Topology& t, const std::string& agg) {
    std::set<std::string> s;
    const uint32_t n = t.Find(agg);
    for (uint32_t i = 0; i < t.node(n).num_ports; ++i) {
      const auto& nb = t.node(t.neighbor(t.gport(n, i)));
      if (nb.layer == 3) s.insert(nb.name);
    }
    return s;
  };
  EXPECT_EQ(cores_of(a, "a0_1"), cores_of(b, "a0_1"));  // type A pod unchanged
  EXPECT_NE(cores_of(a, "a1_1"), cores_of(b, "a1_1"));  // type B pod strided
  EXPECT_EQ(cores_of(b, "a1_1"), (std::set<std::string>{"c1", "c5", "c9", "c13"}));
}

TEST(TopoGen, JellyfishIsNearlyRegularSimpleGraph) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Topology t;
    std::string err;
    ASSERT_TRUE(GenJellyfish(50, 12, 6, seed, &t, &err)) << err;
    int full = 0;
    for (uint32_t n = 0; n < t.num_nodes(); ++n) {
      if (!t.is_switch(n)) continue;
      const int sw_ports = t.node(n).num_ports - __builtin_popcountll(t.host_mask(n));
      EXPECT_LE(sw_ports, 6);
      full += sw_ports == 6;
      EXPECT_EQ(__builtin_popcountll(t.host_mask(n)), 6);
    }
    EXPECT_GE(full, 48) << "at most one leftover port pair";
  }
}

TEST(TopoGen, BCubeServersRelay) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenBCube(4, 1, &t, &err)) << err;
  EXPECT_EQ(CountKind(t, NodeKind::kHost), 16);
  EXPECT_EQ(CountKind(t, NodeKind::kSwitch), 8);
  EXPECT_TRUE(t.has_relays());
  const uint32_t s = t.Find("srv1.2");
  ASSERT_NE(s, kNoNode);
  EXPECT_EQ(t.node(s).num_ports, 2);
  EXPECT_EQ(t.node(t.neighbor(t.gport(s, 0))).name, "w0_1");  // level 0: switch = digit 1
  EXPECT_EQ(t.node(t.neighbor(t.gport(s, 1))).name, "w1_2");  // level 1: switch = digit 0
}

TEST(TopoGen, RejectsImpossibleParameters) {
  Topology t;
  std::string err;
  EXPECT_FALSE(GenFatTree(5, &t, &err));
  EXPECT_NE(err.find("even"), std::string::npos);
  EXPECT_FALSE(GenJellyfish(10, 80, 4, 1, &t, &err));
  EXPECT_FALSE(GenJellyfish(10, 8, 12, 1, &t, &err));
  EXPECT_FALSE(GenLeafSpine(2, 70, 1, &t, &err));
}

// A program's own node limit (the fabric fuzz target sets 100,000) refuses
// a spec before anything is built: "bcube:2:18" (524,288 servers but 5
// million switches), "bcube:4:8".
TEST(TopoGen, RefusesTopologiesAboveAProgramsNodeLimit) {
  SetGenNodeLimit(100'000);
  EXPECT_EQ(GenNodeLimit(), 100'000);
  Topology t;
  std::string err;
  EXPECT_FALSE(GenTopoSpec("bcube:2:18", &t, &err));
  EXPECT_NE(err.find("bcube: at least 131072 nodes, more than this program's limit (100000)"),
            std::string::npos)
      << err;
  EXPECT_FALSE(GenTopoSpec("bcube:4:8", &t, &err));
  EXPECT_NE(err.find("bcube: at least 262144 nodes"), std::string::npos) << err;
  EXPECT_FALSE(GenTopoSpec("bcube:4:7", &t, &err));
  EXPECT_NE(err.find("bcube: at least 196608 nodes"), std::string::npos) << err;
  // Under the limit still builds: BCube(4, 6), 16,384 servers and 28,672
  // switches.
  EXPECT_TRUE(GenTopoSpec("bcube:4:6", &t, &err)) << err;
  EXPECT_EQ(t.num_nodes(), 16384u + 28672u);
  SetGenNodeLimit(0);
}

// Without a program's limit, what the memory cannot hold is refused, named
// with the memory it would take; 2^32 + 10 switches would wrap to 10 as an
// int: refused as a bad spec.
TEST(TopoGen, RefusesTopologiesTheMemoryCannotHold) {
  Topology t;
  std::string err;
  EXPECT_FALSE(GenTopoSpec("jellyfish:100000000:64:32", &t, &err));
  EXPECT_NE(err.find("jellyfish: at least 3300000000 nodes, about 1611328 MB, more than the "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find(" MB of memory available (MemAvailable)"), std::string::npos) << err;
  EXPECT_FALSE(GenTopoSpec("jellyfish:4294967306:8:4", &t, &err));
  EXPECT_NE(err.find("topology generator: expected"), std::string::npos) << err;
}

// Tagger's Fig. 13 at its largest (bench/tagger/scale.sh 10000): 10,000
// switches of 64 ports, 32 to switches and 32 to hosts, 330,000 nodes. A
// limit on the generators must never refuse the paper's scale again.
TEST(TopoGen, BuildsTaggerFig13sLargestJellyfish) {
  ASSERT_GT(GenNodeLimit(), 330'000) << "this machine's memory";
  Topology t;
  std::string err;
  ASSERT_TRUE(GenTopoSpec("jellyfish:10000:64:32:1", &t, &err)) << err;
  EXPECT_EQ(t.num_nodes(), 330'000u);
  EXPECT_EQ(t.Switches().size(), 10'000u);
}

TEST(TopoFile, RoundTripKeepsPortOrder) {
  Topology t, u;
  std::string err;
  ASSERT_TRUE(GenJellyfish(20, 8, 4, 3, &t, &err));
  const std::string path = ::testing::TempDir() + "/topo_rt.json";
  ASSERT_TRUE(SaveTopology(t, path, &err)) << err;
  ASSERT_TRUE(LoadTopology(path, &u, &err)) << err;
  ASSERT_EQ(t.num_ports(), u.num_ports());
  for (uint32_t n = 0; n < t.num_nodes(); ++n)
    for (uint32_t i = 0; i < t.node(n).num_ports; ++i)
      EXPECT_EQ(t.node(t.neighbor(t.gport(n, i))).name, u.node(u.neighbor(u.gport(n, i))).name);
}

struct BadCase {
  const char* json;
  const char* expect;  // substring of the error
};

TEST(TopoFile, BadInputNamesFieldAndExpectation) {
  const BadCase cases[] = {
      {"{", "not valid JSON"},
      {"[]", "(top level)"},
      {R"({"links": []})", "nodes: expected an array"},
      {R"({"nodes": [{"name": "a"}]})", "links: expected an array"},
      {R"({"nodes": [{"kind": "switch"}], "links": []})", "nodes[0].name"},
      {R"({"nodes": [{"name": "a", "kind": "router"}], "links": []})",
       "nodes[0].kind: expected \"switch\" or \"host\""},
      {R"({"nodes": [{"name": "a"}, {"name": "a"}], "links": []})", "nodes[1].name: duplicate"},
      {R"({"nodes": [{"name": "a", "layer": -2}], "links": []})", "nodes[0].layer"},
      {R"({"nodes": [{"name": "a", "relay": true}], "links": []})", "nodes[0].relay: only hosts"},
      {R"({"nodes": [{"name": "a"}], "links": [["a", "b"]]})", "links[0][1]: unknown node 'b'"},
      {R"({"nodes": [{"name": "a"}], "links": [["a", "a"]]})", "links[0]: a link must join"},
      {R"({"nodes": [{"name": "a"}], "links": [["a"]]})", "links[0]: expected a pair"},
      {R"({"nodes": [{"name": "a"}, {"name": "b"}], "links": [["a", "b"], ["b", "a"]]})",
       "parallel links"},
  };
  for (const auto& c : cases) {
    Topology t;
    std::string err;
    EXPECT_FALSE(ParseTopologyJson(c.json, "x.json", &t, &err)) << c.json;
    EXPECT_NE(err.find("x.json: "), std::string::npos) << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << "got: " << err;
  }
  std::string many = R"({"nodes": [{"name": "s"})";
  std::string links;
  for (int i = 0; i < 65; ++i) {
    many += R"(, {"name": "h)" + std::to_string(i) + R"(", "kind": "host"})";
    links += std::string(i ? ", " : "") + R"(["s", "h)" + std::to_string(i) + R"("])";
  }
  many += "], \"links\": [" + links + "]}";
  Topology t;
  std::string err;
  EXPECT_FALSE(ParseTopologyJson(many, "big.json", &t, &err));
  EXPECT_NE(err.find("at most 64"), std::string::npos) << err;
  EXPECT_FALSE(LoadTopology("/nonexistent/t.json", &t, &err));
  EXPECT_NE(err.find("cannot open"), std::string::npos);
  // A directory read as nothing and was reported as invalid JSON.
  EXPECT_FALSE(LoadTopology("/", &t, &err));
  EXPECT_EQ(err, "/: cannot open topology file (expected a readable regular file)");
  Elp elp;
  EXPECT_FALSE(LoadElp("/", t, &elp, &err));
  EXPECT_EQ(err, "/: cannot open ELP file (expected a readable regular file)");
}

}  // namespace
}  // namespace pfc::tagger
