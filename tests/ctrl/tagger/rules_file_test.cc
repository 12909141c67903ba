// SPDX-License-Identifier: BSD-3-Clause
// Rule compression and the per-switch rules file (the format pfcswitch loads).
#include "ctrl/tagger/rules_file.h"

#include <gtest/gtest.h>

#include "ctrl/tagger/elp_gen.h"
#include "ctrl/tagger/greedy.h"
#include "ctrl/tagger/schemes.h"
#include "ctrl/tagger/topo_gen.h"
#include "tests/ctrl/tagger/tagger_test_util.h"

namespace pfc::tagger {
namespace {

// Every (tag, in, out) of the uncompressed function must read back the same
// from the compressed rules, through the YAML text.
void ExpectSameFunction(const Topology& t, const TagRules& r, bool hairpin) {
  const int max_tag = Summarize(t, r).max_tag;
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    if (!t.forwards(n)) continue;
    const auto rules = CompressNode(t, r, n, hairpin);
    NodeRules nr;
    std::string err;
    ASSERT_TRUE(ParseRulesYaml(RulesYaml(t, n, rules, max_tag), "gen.yaml", t, n, &nr, &err))
        << err;
    const Node& nd = t.node(n);
    for (int tg = 0; tg <= max_tag + 1; ++tg)
      for (uint32_t i = 0; i < nd.num_ports; ++i)
        for (uint32_t o = 0; o < nd.num_ports; ++o) {
          if (hairpin && i == o) continue;
          EXPECT_EQ(nr.Lookup(static_cast<uint8_t>(tg), i, o),
                    r.Lookup(nd.first_port + i, static_cast<uint8_t>(tg), o))
              << nd.name << " tag " << tg << " in " << i << " out " << o;
        }
    EXPECT_TRUE(nr.lossless(1));
    EXPECT_FALSE(nr.lossless(0));
  }
}

TEST(Compress, RoundTripIsExactOnRandomJellyfish) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Topology t;
    std::string err;
    ASSERT_TRUE(GenJellyfish(20, 8, 4, seed, &t, &err));
    Elp elp;
    elp.trees = {true, seed, 1};
    ASSERT_TRUE(GenRandomPaths(t, 30, 0, seed, 1, &elp, &err));
    DestTrees trees;
    trees.Build(t, seed);
    const GreedyResult g = RunGreedy(t, elp, &trees, nullptr);
    ExpectSameFunction(t, g.rules, false);
    ExpectSameFunction(t, g.rules, true);
  }
}

TEST(Compress, ClosToRNeedsFewRules) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 4, 4, &t, &err));
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 1, 1, &r, &err));
  const uint32_t tor = t.Find("t0");
  const auto exact = CompressNode(t, r, tor, false);
  const auto dc = CompressNode(t, r, tor, true);
  // Uncompressed: 8 ports x 7 outs x tags. Bitmasks make it a handful.
  EXPECT_LT(exact.size(), 20u);
  EXPECT_LE(dc.size(), 4u);
  EXPECT_LE(dc.size(), exact.size());
  const std::string y = RulesYaml(t, tor, dc, 2);
  EXPECT_NE(y.find("port_names: [h0_0, h0_1, h0_2, h0_3, sp0, sp1, sp2, sp3]"), std::string::npos)
      << y;
  EXPECT_NE(y.find("tag_map: {1: 1, 2: 2}"), std::string::npos);
  EXPECT_NE(y.find("lossless: [1, 2]"), std::string::npos);
  EXPECT_NE(y.find("unmatched: lossy"), std::string::npos);
  EXPECT_NE(y.find("lossy_tag: 0"), std::string::npos);
  EXPECT_EQ(y.find("tag: \"*\""), std::string::npos) << "tags are never wildcards";
  ExpectSameFunction(t, r, false);
}

TEST(Compress, ExactClosRulesAreHairpinDropRulesPlusOnePerPort) {
  // Clos rules depend only on port directions, so with hairpins don't-care a
  // switch needs a handful of rules; exact rules add one "in i, out i ->
  // lossy" exception per port on top instead of products per port and tag.
  Topology t;
  std::string err;
  ASSERT_TRUE(GenFatTree(8, &t, &err));
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 1, 2, &r, &err));
  for (uint32_t n : t.Switches()) {
    const auto exact = CompressNode(t, r, n, false);
    const auto dc = CompressNode(t, r, n, true);
    EXPECT_LE(dc.size(), 6u) << t.node(n).name;
    EXPECT_LE(exact.size(), dc.size() + t.node(n).num_ports) << t.node(n).name;
    EXPECT_EQ(exact.front().new_tag, kLossyTag);  // the exceptions come first
    EXPECT_EQ(exact.front().in, exact.front().out);
  }
  ExpectSameFunction(t, r, false);
  // A lossless hairpin rules the form out: the exact rules keep it.
  TagRules hp = r;
  const uint32_t c0 = t.Find("c0");
  ASSERT_TRUE(hp.Add(t.gport(c0, 0), 1, 1, 1));
  for (const Rule& x : CompressNode(t, hp, c0, false)) EXPECT_LE(x.priority, 1);
  ExpectSameFunction(t, hp, false);
}

TEST(Compress, DefaultPlusExceptionsWhenSmaller) {
  // One switch with 8 switch neighbours: every (in, out) keeps tag 1 except
  // 0 -> 1, which raises it. With hairpins don't-care, "tag 1 any -> 1" plus
  // one priority-1 exception beats per-port products.
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(1, 8, 0, &t, &err));
  const uint32_t sw = t.Find("t0");
  TagRules r(t.num_ports());
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t o = 0; o < 8; ++o)
      if (i != o) {
        ASSERT_TRUE(r.Add(t.gport(sw, i), 1, (i == 0 && o == 1) ? 2 : 1, uint64_t{1} << o));
      }
  const auto rules = CompressNode(t, r, sw, true);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].priority, 1);  // the exception comes first
  EXPECT_EQ(rules[0].new_tag, 2);
  NodeRules nr;
  ASSERT_TRUE(ParseRulesYaml(RulesYaml(t, sw, rules, 2), "x.yaml", t, sw, &nr, &err)) << err;
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t o = 0; o < 8; ++o)
      if (i != o) {
        EXPECT_EQ(nr.Lookup(1, i, o), r.Lookup(t.gport(sw, i), 1, o));
      }
  // Exact mode must keep hairpins lossy: the default rule then needs
  // explicit lossy exceptions, or plain products win.
  const auto exact = CompressNode(t, r, sw, false);
  NodeRules ne = MakeNodeRules(exact, 2);
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t o = 0; o < 8; ++o) EXPECT_EQ(ne.Lookup(1, i, o), r.Lookup(t.gport(sw, i), 1, o));
}

TEST(RulesFile, BadInputNamesFieldAndExpectation) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  const uint32_t a = t.Find("A");  // 3 ports
  const std::string qos = "qos: {tag_map: {1: 1}, lossless: [1], lossy_tag: 0}\n";
  struct {
    std::string yaml;
    const char* expect;
  } cases[] = {
      // The switch's reader and its messages (dataplane/config): one reader.
      {qos + "rewrite: {rules: [{tag: 64, in: \"*\", out: \"*\", new_tag: 1}]}",
       "rewrite.rules[0].tag: expected an integer from 0 to 63 (got '64')"},
      {qos + "rewrite: {rules: [{in: \"*\", out: \"*\", new_tag: 1}]}",
       "rewrite.rules[0].tag: expected a tag 0..63, a list of tags, or \"*\" for any tag"},
      {qos + "rewrite: {rules: [{tag: 1, in: [3], out: \"*\", new_tag: 1}]}",
       "rewrite.rules[0].in[0]: expected a port name from 'ports' or an index 0..2"},
      {qos + "rewrite: {rules: [{tag: 1, in: [0], out: [], new_tag: 1}]}", "rewrite.rules[0].out"},
      {qos + "rewrite: {rules: [{tag: 1, in: [0], out: [1], new_tag: 70}]}",
       "rewrite.rules[0].new_tag"},
      {qos + "rewrite: {rules: [{tag: 1, in: [0], out: [1]}]}", "rewrite.rules[0].new_tag"},
      {qos + "rewrite: {rules: [{tag: 1, in: [0], out: [1], new_tag: 1, colour: red}]}",
       "rewrite.rules[0].colour: unknown field (expected one of: tag, in, out, new_tag, priority)"},
      {qos + "rewrite: {unmatched: drop, rules: []}", "rewrite.unmatched: expected lossy or keep"},
      {"qos: {tag_map: {1: 9}}\nrewrite: {rules: []}",
       "qos.tag_map[1]: expected an integer from 0 to 7"},
      {"qos: [", "YAML syntax"},
  };
  for (const auto& c : cases) {
    NodeRules nr;
    std::string err;
    EXPECT_FALSE(ParseRulesYaml(c.yaml, "A.yaml", t, a, &nr, &err)) << c.yaml;
    EXPECT_EQ(err.rfind("A.yaml:", 0), 0u) << err;  // file:line first
    EXPECT_NE(err.find(c.expect), std::string::npos) << "got: " << err;
  }
  // Ports resolve by their neighbour's name (as the fabric names an
  // emulated switch's ports) or by index; priority orders rules.
  NodeRules nr;
  std::string err;
  ASSERT_TRUE(ParseRulesYaml(qos + "rewrite:\n  rules:\n"
                                   "    - {tag: 1, in: [hA], out: \"*\", new_tag: 1}\n"
                                   "    - {tag: 1, in: [0], out: [C], new_tag: 0, priority: 3}\n",
                             "A.yaml", t, a, &nr, &err))
      << err;
  EXPECT_EQ(nr.Lookup(1, 0, 1), 1);
  EXPECT_EQ(nr.Lookup(1, 0, 2), 0);
  EXPECT_EQ(nr.Lookup(1, 1, 2), 0);  // unmatched -> lossy
  // Without a rewrite section every tag is kept, as a switch keeps it.
  ASSERT_TRUE(ParseRulesYaml(qos, "A.yaml", t, a, &nr, &err)) << err;
  EXPECT_EQ(nr.Lookup(1, 1, 2), 1);
  EXPECT_EQ(nr.Lookup(5, 1, 2), 5);
}

}  // namespace
}  // namespace pfc::tagger
