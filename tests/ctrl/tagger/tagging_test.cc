// SPDX-License-Identifier: BSD-3-Clause
// Tagging schemes on inputs whose answer is known by hand (Tagger Fig. 5,
// Tables III-IV; §IV Clos bounce tagging; §VI-A application classes).
#include <gtest/gtest.h>

#include "ctrl/tagger/elp_gen.h"
#include "ctrl/tagger/greedy.h"
#include "ctrl/tagger/schemes.h"
#include "ctrl/tagger/topo_gen.h"
#include "tests/ctrl/tagger/tagger_test_util.h"

namespace pfc::tagger {
namespace {

using testing::Check;
using testing::Errors;

TEST(ThreeSwitch, WithoutTaggerTheRoutesHaveACyclicBufferDependency) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  const AnalyzeReport r = AnalyzeRoutes(t, elp, nullptr);
  EXPECT_EQ(r.cycle.size(), 3u) << r.text;  // A->B->C->A (or the reverse)
  EXPECT_NE(r.text.find("paths["), std::string::npos);
}

TEST(ThreeSwitch, BruteForceMatchesTableIII) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  TagRules r;
  std::string err;
  ASSERT_TRUE(BruteForceTags(t, elp, &r, &err)) << err;
  const TagSummary s = Summarize(t, r);
  EXPECT_EQ(s.priorities, 3);  // tags 1..3 at switches
  EXPECT_EQ(s.tags_total, 4);  // tag 4 only reaches destination hosts
  // Table III: 8 (tag, in, out) rules per switch, 24 in all.
  EXPECT_EQ(r.Triples(), 24u);
  // Switch A, tag 1 from its host goes to B and C as tag 2.
  const uint32_t a = t.Find("A");
  EXPECT_EQ(r.Lookup(t.gport(a, 0), 1, 1), 2);
  EXPECT_EQ(r.Lookup(t.gport(a, 0), 1, 2), 2);
  EXPECT_EQ(r.Lookup(t.gport(a, 0), 2, 1), kLossyTag);
  const VerifyReport v = Check(t, elp, nullptr, r);
  EXPECT_TRUE(v.ok) << Errors(v);
  EXPECT_EQ(v.cyclic_tags, 0u);
}

TEST(ThreeSwitch, GreedyNeedsTwoTagsLikeTableIV) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  const GreedyResult g = RunGreedy(t, elp, nullptr, nullptr);
  const TagSummary s = Summarize(t, g.rules);
  EXPECT_EQ(s.priorities, 2);
  // One tag raise per direction of the triangle breaks both cycles.
  EXPECT_EQ(g.bumps, 2u);
  EXPECT_EQ(g.rules.Triples(), 20u);  // Table IV lists 20
  const VerifyReport v = Check(t, elp, nullptr, g.rules);
  EXPECT_TRUE(v.ok) << Errors(v);
  EXPECT_EQ(v.priorities, 2);
}

TEST(Clos, OneBouncePathsDeadlockWithoutTagger) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 1, &t, &err));
  Elp updown, bounce;
  ASSERT_TRUE(GenClosPaths(t, 0, 1, 1000000, &updown, &err));
  ASSERT_TRUE(GenClosPaths(t, 1, 1, 1000000, &bounce, &err));
  EXPECT_TRUE(AnalyzeRoutes(t, updown, nullptr).cycle.empty());
  EXPECT_FALSE(AnalyzeRoutes(t, bounce, nullptr).cycle.empty());
}

TEST(Clos, BounceSchemeUsesTwoTagsForOneBounce) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 1, &t, &err));
  Elp elp;
  ASSERT_TRUE(GenClosPaths(t, 1, 1, 1000000, &elp, &err));
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 1, 1, &r, &err)) << err;
  EXPECT_EQ(Summarize(t, r).priorities, 2);
  // ToR t0: from a spine (port 1) back up to the other spine (port 2): 1 -> 2.
  const uint32_t tor = t.Find("t0");
  EXPECT_EQ(r.Lookup(t.gport(tor, 1), 1, 2), 2);
  EXPECT_EQ(r.Lookup(t.gport(tor, 1), 2, 2), kLossyTag);  // second bounce: lossy
  EXPECT_EQ(r.Lookup(t.gport(tor, 1), 1, 0), 1);          // down to the host
  EXPECT_EQ(r.Lookup(t.gport(tor, 1), 1, 1), kLossyTag);  // hairpin
  const VerifyReport v = Check(t, elp, nullptr, r, /*allow_extra=*/true);
  EXPECT_TRUE(v.ok) << Errors(v);
  EXPECT_EQ(v.priorities, 2);
  // The greedy also yields a valid (possibly larger) tagging.
  const GreedyResult g = RunGreedy(t, elp, nullptr, nullptr);
  const VerifyReport vg = Check(t, elp, nullptr, g.rules);
  EXPECT_TRUE(vg.ok) << Errors(vg);
  EXPECT_GE(vg.priorities, 2);
}

TEST(Clos, KBouncesNeedKPlusOneTags) {
  for (int k = 0; k <= 2; ++k) {
    Topology t;
    std::string err;
    // 3-layer FatTree for up to one bounce; a leaf-spine keeps k = 2 small.
    ASSERT_TRUE(k < 2 ? GenFatTree(4, &t, &err) : GenLeafSpine(4, 3, 1, &t, &err));
    Elp elp;
    ASSERT_TRUE(GenClosPaths(t, k, 1, 5000000, &elp, &err)) << err;
    TagRules r;
    ASSERT_TRUE(ClosBounceTags(t, 1, k, &r, &err));
    const VerifyReport v = Check(t, elp, nullptr, r, true);
    EXPECT_TRUE(v.ok) << "k=" << k << "\n" << Errors(v);
    EXPECT_EQ(v.priorities, k + 1);
  }
}

TEST(Clos, ApplicationClassesShareTags) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 1, &t, &err));
  // N = 2 classes, M = 1 bounce: tags 1..3 (M+1 per class, N+M in all).
  Elp elp;
  ASSERT_TRUE(GenClosPaths(t, 1, 1, 1000000, &elp, &err));
  ASSERT_TRUE(GenClosPaths(t, 1, 2, 1000000, &elp, &err));
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 2, 1, &r, &err));
  const VerifyReport v = Check(t, elp, nullptr, r, true);
  EXPECT_TRUE(v.ok) << Errors(v);
  EXPECT_EQ(v.priorities, 3);
  // Class 2 starts at tag 2 and bounces into tag 3.
  const uint32_t tor = t.Find("t0");
  EXPECT_EQ(r.Lookup(t.gport(tor, 1), 2, 2), 3);
  // Naive isolation would need N * (M + 1) = 4 tags.
  EXPECT_LT(v.priorities, 4);
  // Greedy handles classes too (class tag = start tag).
  const GreedyResult g = RunGreedy(t, elp, nullptr, nullptr);
  const VerifyReport vg = Check(t, elp, nullptr, g.rules);
  EXPECT_TRUE(vg.ok) << Errors(vg);
}

TEST(Clos, SchemeNeedsLayers) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  TagRules r;
  std::string err;
  EXPECT_FALSE(ClosBounceTags(t, 1, 1, &r, &err));
  EXPECT_NE(err.find("has no layer"), std::string::npos);
  EXPECT_FALSE(ClosBounceTags(t, 0, 1, &r, &err));
}

TEST(BCube, GreedyNeedsAtMostLevelsTags) {
  // §V-C: a k-level BCube with default (shortest) routing needs k tags.
  Topology t;
  std::string err;
  ASSERT_TRUE(GenBCube(3, 1, &t, &err));
  Elp elp;
  ASSERT_TRUE(GenShortestPaths(t, 0, 1, 1, 1000000, &elp, &err)) << err;
  const GreedyResult g = RunGreedy(t, elp, nullptr, nullptr);
  const VerifyReport v = Check(t, elp, nullptr, g.rules);
  EXPECT_TRUE(v.ok) << Errors(v);
  EXPECT_LE(v.priorities, 2);
}

}  // namespace
}  // namespace pfc::tagger
