// SPDX-License-Identifier: BSD-3-Clause
// Property tests: on many random topologies and path sets the verifier
// accepts what the generators produce, and rejects deliberately broken rule
// sets (a cycle within a tag, a decreasing transition, a lost ELP hop, an
// extra lossless transition, lossy packets turned lossless).
#include <gtest/gtest.h>

#include <random>

#include "ctrl/tagger/elp_gen.h"
#include "ctrl/tagger/greedy.h"
#include "ctrl/tagger/schemes.h"
#include "ctrl/tagger/topo_gen.h"
#include "tests/ctrl/tagger/tagger_test_util.h"

namespace pfc::tagger {
namespace {

using testing::Errors;
using testing::Install;

// Fewest brute-force cases BruteForceOutputIsAccepted must check (19 of its
// 20 seeds qualify today; the margin allows for generator changes).
constexpr int kMinBruteForceCases = 15;

struct Case {
  Topology t;
  Elp elp;
  DestTrees trees;
};

// Random Jellyfish with a random ELP: destination trees and/or explicit
// shortest paths, plus random extra paths. A failed generator is a failed
// assertion at the caller (ASSERT_TRUE(MakeCase(...))), which stops the test.
::testing::AssertionResult MakeCase(uint64_t seed, Case* c) {
  std::mt19937_64 rng(seed);
  const int n = 6 + static_cast<int>(rng() % 25);
  const int r = 2 + static_cast<int>(rng() % 4);
  const int ports = r + 1 + static_cast<int>(rng() % 3);
  std::string err;
  auto failed = [&](const char* what) {
    return ::testing::AssertionFailure() << "seed " << seed << ": " << what << ": " << err;
  };
  if (!GenJellyfish(n, ports, r, seed, &c->t, &err)) return failed("GenJellyfish");
  c->elp = Elp();
  switch (rng() % 3) {
    case 0:
      c->elp.trees = {true, seed, 1};
      break;
    case 1:
      if (!GenShortestPaths(c->t, 2, seed, 1, 1000000, &c->elp, &err))
        return failed("GenShortestPaths");
      break;
    default:
      c->elp.trees = {true, seed, 1};
      if (!GenShortestPaths(c->t, 1, seed, 2, 1000000, &c->elp, &err))
        return failed("GenShortestPaths");
  }
  const size_t extra = rng() % 40;
  if (extra && !GenRandomPaths(c->t, extra, 0, seed, 1, &c->elp, &err))
    return failed("GenRandomPaths");
  c->trees.Build(c->t, c->elp.trees.seed);
  return ::testing::AssertionSuccess();
}

TEST(VerifyProperty, GreedyOutputIsAlwaysAccepted) {
  int multi_tag = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Case c;
    ASSERT_TRUE(MakeCase(seed, &c));
    const GreedyResult g = RunGreedy(c.t, c.elp, &c.trees, nullptr, seed % 2 ? 0 : 16);
    ASSERT_FALSE(g.overflow);
    const VerifyReport v = Verify(c.t, c.elp, &c.trees, Install(c.t, g.rules), {});
    EXPECT_TRUE(v.ok) << "seed " << seed << "\n" << Errors(v);
    EXPECT_GT(v.elp_states, 0u);
    EXPECT_EQ(v.extra, 0u) << "compression must be exact";
    multi_tag += v.priorities > 1;
    // Hairpin don't-care compression is accepted when hairpins are ignored.
    const VerifyReport vh =
        Verify(c.t, c.elp, &c.trees, Install(c.t, g.rules, true), {false, true});
    EXPECT_TRUE(vh.ok) << "seed " << seed << " (hairpin)\n" << Errors(vh);
  }
  EXPECT_GT(multi_tag, 10) << "the property test should exercise tag raising";
}

TEST(VerifyProperty, BruteForceOutputIsAccepted) {
  // Cases without explicit paths, or needing more than 7 priorities, are
  // outside what the brute force handles; the test fails if too few seeds
  // gave a case (it would then check next to nothing).
  int checked = 0;
  for (uint64_t seed = 100; seed < 120; ++seed) {
    Case c;
    ASSERT_TRUE(MakeCase(seed, &c));
    c.elp.trees.enabled = false;
    if (c.elp.paths.empty()) continue;
    TagRules r;
    std::string err;
    ASSERT_TRUE(BruteForceTags(c.t, c.elp, &r, &err)) << err;
    if (Summarize(c.t, r).max_tag > 7) continue;  // beyond 7 priorities
    const VerifyReport v = Verify(c.t, c.elp, nullptr, Install(c.t, r), {});
    EXPECT_TRUE(v.ok) << "seed " << seed << "\n" << Errors(v);
    ++checked;
  }
  EXPECT_GE(checked, kMinBruteForceCases) << "too few seeds gave a brute-force case";
}

// Rules of a greedy run that needed at least two tags: the first such case
// from seed0 on, trying at most kTwoTagTries seeds (callers ASSERT_TRUE it).
constexpr uint64_t kTwoTagTries = 200;
::testing::AssertionResult TwoTagCase(uint64_t seed0, Case* c, TagRules* rules) {
  for (uint64_t seed = seed0; seed < seed0 + kTwoTagTries; ++seed) {
    if (auto made = MakeCase(seed, c); !made) return made;
    GreedyResult g = RunGreedy(c->t, c->elp, &c->trees, nullptr);
    if (g.bumps > 0) {
      *rules = std::move(g.rules);
      return ::testing::AssertionSuccess();
    }
  }
  return ::testing::AssertionFailure()
         << "no seed in [" << seed0 << ", " << seed0 + kTwoTagTries << ") needed a tag raise";
}

TEST(VerifyBroken, CycleWithinATagIsFound) {
  for (uint64_t s = 1; s <= 10; ++s) {
    Case c;
    TagRules r;
    ASSERT_TRUE(TwoTagCase(s * 1000, &c, &r));
    auto by_node = Install(c.t, r);
    // Collapse every tag raise into "keep": the cycle the greedy avoided is back.
    for (auto& nr : by_node)
      for (Rule& rule : nr.rules) rule.new_tag = static_cast<uint8_t>(__builtin_ctzll(rule.tags));
    const VerifyReport v = Verify(c.t, c.elp, &c.trees, by_node, {});
    EXPECT_FALSE(v.ok);
    EXPECT_GE(v.cyclic_tags, 1u) << Errors(v);
    EXPECT_NE(Errors(v).find("has a cycle"), std::string::npos);
  }
}

TEST(VerifyBroken, DecreasingTransitionIsFound) {
  Case c;
  TagRules r;
  ASSERT_TRUE(TwoTagCase(77, &c, &r));
  auto by_node = Install(c.t, r);
  bool broke = false;
  for (auto& nr : by_node)
    for (Rule& rule : nr.rules)
      if (!broke && !(rule.tags & 3) && rule.new_tag >= 2) {  // a tag >= 2 rule
        rule.new_tag = 1;
        broke = true;
      }
  ASSERT_TRUE(broke);
  const VerifyReport v = Verify(c.t, c.elp, &c.trees, by_node, {});
  EXPECT_FALSE(v.ok);
  EXPECT_GT(v.decreasing, 0u) << Errors(v);
}

TEST(VerifyBroken, MissingRuleLosesAnElpPath) {
  Case c;
  TagRules r;
  ASSERT_TRUE(TwoTagCase(5, &c, &r));
  auto by_node = Install(c.t, r);
  for (auto& nr : by_node)
    if (!nr.rules.empty()) {
      nr.rules.erase(nr.rules.begin());
      break;
    }
  const VerifyReport v = Verify(c.t, c.elp, &c.trees, by_node, {});
  EXPECT_FALSE(v.ok);
  EXPECT_GT(v.elp_failures, 0u);
  EXPECT_NE(Errors(v).find("becomes lossy"), std::string::npos) << Errors(v);
}

TEST(VerifyBroken, ExtraLosslessTransitionAndLossyReentry) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  elp.paths.resize(2);  // hA -> B only: most transitions are now off the ELP
  GreedyResult g = RunGreedy(t, elp, nullptr, nullptr);
  auto by_node = Install(t, g.rules);
  const uint32_t c = t.Find("C");
  // C forwards tag 1 from B back toward A although no ELP path does.
  by_node[c].rules.push_back({uint64_t{1} << 1, 1u << 1, 1u << 2, 1, 0});
  VerifyReport v = Verify(t, elp, nullptr, by_node, {});
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.extra, 1u) << Errors(v);
  v = Verify(t, elp, nullptr, by_node, {true, false});
  EXPECT_TRUE(v.ok) << Errors(v);  // allowed as a note
  EXPECT_EQ(v.notes.size(), 1u);
  // Lossy tag 0 turned into lossless tag 1.
  by_node[c].rules.push_back({uint64_t{1}, ~uint64_t{0}, ~uint64_t{0}, 1, 5});
  v = Verify(t, elp, nullptr, by_node, {true, false});
  EXPECT_FALSE(v.ok);
  EXPECT_GT(v.lossy_reentry, 0u);
}

TEST(VerifyBroken, QosMustGiveEachLosslessTagItsOwnPriority) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  GreedyResult g = RunGreedy(t, elp, nullptr, nullptr);
  auto by_node = Install(t, g.rules);
  for (auto& nr : by_node) nr.prio_of_tag[2] = 1;
  VerifyReport v = Verify(t, elp, nullptr, by_node, {});
  EXPECT_FALSE(v.ok);
  EXPECT_NE(Errors(v).find("share priority"), std::string::npos) << Errors(v);
  by_node = Install(t, g.rules);
  by_node[t.Find("B")].lossless_prios = 0x2;
  v = Verify(t, elp, nullptr, by_node, {});
  EXPECT_NE(Errors(v).find("differs"), std::string::npos) << Errors(v);
}

TEST(Analyze, TreeRoutesOnATreeTopologyHaveNoCycle) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(5, 1, 2, &t, &err));  // a star: one spine
  Elp elp;
  elp.trees = {true, 1, 1};
  DestTrees trees;
  trees.Build(t, 1);
  EXPECT_TRUE(AnalyzeRoutes(t, elp, &trees).cycle.empty());
  Case c;
  TagRules r;
  ASSERT_TRUE(TwoTagCase(3, &c, &r));  // needed a raise: its routes have a CBD
  const AnalyzeReport a = AnalyzeRoutes(c.t, c.elp, &c.trees);
  EXPECT_FALSE(a.cycle.empty());
  EXPECT_NE(a.text.find("cyclic buffer dependency"), std::string::npos);
}

}  // namespace
}  // namespace pfc::tagger
