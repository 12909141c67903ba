// SPDX-License-Identifier: BSD-3-Clause
// The operator's DSCP/priority plan: plan files with file:line errors, rules
// written on a plan and read back as the switch reads them (same function
// over tags, pass classes kept), and the checks that catch a file that
// breaks the plan.
#include "ctrl/tagger/tag_plan.h"

#include <gtest/gtest.h>

#include "ctrl/tagger/greedy.h"
#include "ctrl/tagger/schemes.h"
#include "ctrl/tagger/topo_gen.h"
#include "tests/ctrl/tagger/tagger_test_util.h"

namespace pfc::tagger {
namespace {

const char* kRoce =
    "tags:\n"
    "  - { dscp: 26, priority: 3 }\n"
    "  - { dscp: 27, priority: 4 }\n"
    "pass:\n"
    "  - { dscp: 48, priority: 6 }\n"
    "lossy: { dscp: 0, priority: 0 }\n";

TagPlan Roce() {
  TagPlan p;
  std::string err;
  EXPECT_TRUE(ParseTagPlan(kRoce, "plan.yaml", &p, &err)) << err;
  return p;
}

TEST(TagPlan, ReadsAPlan) {
  const TagPlan p = Roce();
  ASSERT_EQ(p.tags.size(), 2u);
  EXPECT_EQ(p.DscpOf(1), 26);
  EXPECT_EQ(p.PrioOf(2), 4);
  EXPECT_EQ(p.DscpOf(0), 0);
  EXPECT_EQ(p.TagOf(27), 2);
  EXPECT_EQ(p.TagOf(0), 0);
  EXPECT_EQ(p.TagOf(48), -1);
  EXPECT_TRUE(p.IsPass(48));
  EXPECT_FALSE(p.IsPass(26));
}

TEST(TagPlan, BadPlansNameFileLineAndField) {
  struct Case {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"tags: []\n", "plan.yaml:1: tags: expected 1..7 lossless classes"},
      {"tags:\n  - { dscp: 26 }\n",
       "plan.yaml:2: tags[0].priority: expected a priority 0..7 (missing)"},
      {"tags:\n  - { dscp: 64, priority: 3 }\n", "plan.yaml:2: tags[0].dscp"},
      {"tags:\n  - { dscp: 26, priority: 3 }\n  - { dscp: 26, priority: 4 }\n",
       "plan.yaml:3: tags[1].dscp: expected a DSCP no other class of the plan uses (26 is)"},
      {"tags:\n  - { dscp: 26, priority: 3 }\n  - { dscp: 27, priority: 3 }\n",
       "plan.yaml:3: tags[1].priority: expected a priority of its own"},
      {"tags:\n  - { dscp: 26, priority: 3 }\npass:\n  - { dscp: 48, priority: 3 }\n",
       "plan.yaml:4: pass[0].priority: expected a priority no tag uses (pass classes are lossy"},
      {"tags:\n  - { dscp: 26, priority: 0 }\n", "lossy.priority: expected a priority no tag uses"},
      {"tags:\n  - { dscp: 26, priority: 3 }\ncolour: red\n", "plan.yaml:3"},
      {"pass: []\n", "tags: expected a list of 1..7 {dscp, priority} (missing)"},
      {"tags: [ { dscp: 26, priority: 3 }\n", "plan.yaml:2: YAML syntax"},
  };
  for (const Case& c : cases) {
    TagPlan p;
    std::string err;
    EXPECT_FALSE(ParseTagPlan(c.yaml, "plan.yaml", &p, &err)) << c.yaml;
    EXPECT_NE(err.find(c.want), std::string::npos) << c.yaml << "\ngot: " << err;
  }
}

// Rules on the plan, through the YAML text and the switch's reader, then
// back to tags: the same function as the plan-less rules, the pass class
// kept on every (in, out), the fallback on the plan's DSCP.
TEST(TagPlan, RoundTripOnAClos) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 2, &t, &err)) << err;
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 1, 1, &r, &err)) << err;
  const int max_tag = Summarize(t, r).max_tag;
  ASSERT_EQ(max_tag, 2);
  const TagPlan plan = Roce();
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    if (!t.is_switch(n)) continue;
    const auto rules = CompressNode(t, r, n, false);
    const std::string y = RulesYaml(t, n, rules, max_tag, &plan);
    EXPECT_NE(y.find("tag_map: {26: 3, 27: 4, 48: 6}"), std::string::npos) << y;
    EXPECT_NE(y.find("lossless: [3, 4]"), std::string::npos) << y;
    NodeRules wire, tags;
    ASSERT_TRUE(ParseRulesYaml(y, "n.yaml", t, n, &wire, &err)) << err;
    ASSERT_TRUE(ToTags(plan, wire, t.node(n).num_ports, "n.yaml", &tags, &err)) << err;
    const NodeRules plain = MakeNodeRules(rules, max_tag);
    const Node& nd = t.node(n);
    for (uint32_t i = 0; i < nd.num_ports; ++i)
      for (uint32_t o = 0; o < nd.num_ports; ++o) {
        EXPECT_EQ(wire.Lookup(48, i, o), 48);
        for (uint8_t tg = 0; tg <= max_tag; ++tg) {
          EXPECT_EQ(tags.Lookup(tg, i, o), plain.Lookup(tg, i, o));
          EXPECT_EQ(wire.Lookup(plan.DscpOf(tg), i, o), plan.DscpOf(plain.Lookup(tg, i, o)));
        }
      }
    EXPECT_TRUE(tags.lossless(1));
    EXPECT_TRUE(tags.lossless(2));
    EXPECT_FALSE(tags.lossless(0));
  }
}

// A file that breaks the plan: each is refused, naming the file and why.
TEST(TagPlan, FilesThatBreakThePlanAreRefused) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(2, 1, 1, &t, &err)) << err;
  const uint32_t n = t.Find("t0");
  const TagPlan plan = Roce();
  const std::string qos =
      "qos:\n  tag_map: {26: 3, 27: 4, 48: 6}\n  lossless: [3, 4]\n  lossy_priority: 0\n"
      "  lossy_tag: 0\n";
  struct Case {
    std::string yaml;
    const char* want;
  } cases[] = {
      // A rule covering every tag rewrites the CNPs' class to the fallback.
      {qos + "rewrite:\n  unmatched: lossy\n  rules:\n"
             "    - { tag: \"*\", in: \"*\", out: \"*\", new_tag: 0, priority: 0 }\n",
       "pass class DSCP 48 (priority 6) is rewritten to DSCP 0"},
      // Without its keep rule, unmatched: lossy turns CNPs into DSCP 0.
      {qos + "rewrite:\n  unmatched: lossy\n  rules:\n"
             "    - { tag: 26, in: \"*\", out: \"*\", new_tag: 26, priority: 0 }\n",
       "pass class DSCP 48 (priority 6) is rewritten to DSCP 0"},
      {"qos:\n  tag_map: {26: 2, 27: 4, 48: 6}\n  lossless: [2, 4]\n",
       "qos puts DSCP 26 on priority 2 (lossless), the plan on 3 (lossless)"},
      {"qos:\n  tag_map: {26: 3, 27: 4, 48: 6, 10: 1}\n  lossless: [3, 4]\n",
       "qos.tag_map maps DSCP 10, which the plan does not name"},
      {"qos:\n  tag_map: {26: 3, 27: 4, 48: 6}\n  lossless: [3, 4, 6]\n",
       "qos puts DSCP 48 on priority 6 (lossless), the plan on 6 (lossy)"},
      {qos + "rewrite:\n  unmatched: keep\n  rules:\n"
             "    - { tag: 26, in: \"*\", out: \"*\", new_tag: 30, priority: 1 }\n",
       "a rule writes DSCP 30 into Tagger's tags"},
      {"qos:\n  tag_map: {26: 3, 27: 4, 48: 6}\n  lossless: [3, 4]\n  lossy_tag: 5\n",
       "qos.lossy_tag is 5, the plan's fallback is DSCP 0 (priority 0)"},
  };
  for (const Case& c : cases) {
    NodeRules wire, tags;
    ASSERT_TRUE(ParseRulesYaml(c.yaml, "t0.yaml", t, n, &wire, &err)) << c.yaml << err;
    EXPECT_FALSE(ToTags(plan, wire, t.node(n).num_ports, "t0.yaml", &tags, &err)) << c.yaml;
    EXPECT_NE(err.find(std::string("t0.yaml: ") + c.want), std::string::npos)
        << c.yaml << "\ngot: " << err;
  }
}

// Without a plan, the files are what they were before plans: tag t is DSCP
// t on priority t, and no pass rule.
TEST(TagPlan, NoPlanWritesTheIdentity) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(2, 1, 1, &t, &err)) << err;
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 1, 1, &r, &err)) << err;
  const uint32_t n = t.Find("t0");
  const auto rules = CompressNode(t, r, n, false);
  const std::string y = RulesYaml(t, n, rules, 2);
  EXPECT_NE(y.find("tag_map: {1: 1, 2: 2}\n  lossless: [1, 2]\n  lossy_priority: 0\n"),
            std::string::npos)
      << y;
  EXPECT_EQ(y.find("DSCP plan"), std::string::npos);
  const TagPlan id = TagPlan::Identity();
  EXPECT_EQ(y, RulesYaml(t, n, rules, 2, nullptr));
  EXPECT_FALSE(id.given);
}

}  // namespace
}  // namespace pfc::tagger
