// SPDX-License-Identifier: BSD-3-Clause
// The implicit Clos ELP (ClosWalks + Verify's dynamic program): it agrees
// with the enumerated bounce paths where those fit, catches the same broken
// rule sets, and verifies FatTree(8) and FatTree(16) with 2 bounces, whose
// paths are far too many to enumerate (FatTree(8) alone exceeds 5,000,000).
#include "ctrl/tagger/clos_walks.h"

#include <gtest/gtest.h>

#include "ctrl/tagger/elp_gen.h"
#include "ctrl/tagger/schemes.h"
#include "ctrl/tagger/topo_gen.h"
#include "tests/ctrl/tagger/tagger_test_util.h"

namespace pfc::tagger {
namespace {

using testing::Check;
using testing::Errors;
using testing::Install;

Elp Implicit(const Topology& t, int bounces, uint64_t classes = 0b10) {
  Elp elp;
  std::string err;
  for (uint64_t m = classes; m; m &= m - 1)
    EXPECT_TRUE(SetClosSpec(t, bounces, static_cast<uint8_t>(__builtin_ctzll(m)), &elp, &err))
        << err;
  return elp;
}

TEST(ClosWalks, BounceCostAndReachability) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 1, &t, &err)) << err;
  ClosWalks w;
  ASSERT_TRUE(w.Init(t, 0, &err)) << err;
  const uint32_t tor = t.Find("t0");  // ports: h0_0, sp0, sp1
  const uint32_t from_spine = t.gport(tor, 1), from_host = t.gport(tor, 0);
  EXPECT_EQ(w.Cost(from_spine, 2), 1);  // came down, goes up: a bounce
  EXPECT_EQ(w.Cost(from_spine, 0), 0);
  EXPECT_EQ(w.Cost(from_host, 1), 0);
  EXPECT_EQ(w.Need(from_spine), 0);
  EXPECT_TRUE(w.OnWalk(from_spine, 0, 0));   // down to the host
  EXPECT_FALSE(w.OnWalk(from_spine, 2, 0));  // would bounce with none allowed
  EXPECT_FALSE(w.OnWalk(from_spine, 1, 0));  // hairpin
  EXPECT_TRUE(w.OnWalk(from_host, 1, 0));
  ClosWalks w1;
  ASSERT_TRUE(w1.Init(t, 1, &err));
  EXPECT_TRUE(w1.OnWalk(from_spine, 2, 0));
  EXPECT_FALSE(w1.OnWalk(from_spine, 2, 1));  // a second bounce
  // A spine entered from a ToR must go down to another ToR: no bounce needed.
  const uint32_t sp = t.Find("sp0");
  EXPECT_EQ(w.Need(t.gport(sp, 0)), 0);
}

TEST(ClosWalks, NeedsLayersAndPlainHosts) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  ClosWalks w;
  std::string err;
  EXPECT_FALSE(w.Init(t, 1, &err));
  EXPECT_NE(err.find("switch 'A' has no layer"), std::string::npos) << err;
  Elp spec;
  EXPECT_FALSE(SetClosSpec(t, 1, 1, &spec, &err));
  EXPECT_FALSE(spec.clos.enabled);
  Topology ls;
  ASSERT_TRUE(GenLeafSpine(2, 2, 1, &ls, &err));
  EXPECT_FALSE(w.Init(ls, -1, &err));
  ASSERT_TRUE(SetClosSpec(ls, 1, 1, &spec, &err));
  EXPECT_FALSE(SetClosSpec(ls, 2, 2, &spec, &err));
  EXPECT_NE(err.find("same number of bounces"), std::string::npos) << err;
}

// Scheme rules for `scheme` bounces against the ELP of `elp` bounces, both
// ways: enumerated paths and the implicit walks must give the same verdict.
void Compare(const Topology& t, int scheme, int elp_bounces) {
  SCOPED_TRACE("scheme " + std::to_string(scheme) + " elp " + std::to_string(elp_bounces));
  std::string err;
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 1, scheme, &r, &err)) << err;
  Elp paths;
  ASSERT_TRUE(GenClosPaths(t, elp_bounces, 1, 5000000, &paths, &err)) << err;
  const VerifyReport ve = Check(t, paths, nullptr, r, true);
  const VerifyReport vi = Check(t, Implicit(t, elp_bounces), nullptr, r, true);
  EXPECT_EQ(ve.ok, vi.ok) << Errors(ve) << "---\n" << Errors(vi);
  EXPECT_EQ(ve.ok, scheme >= elp_bounces);
  EXPECT_EQ(ve.priorities, vi.priorities);
  EXPECT_GT(vi.elp_states, 0u);
  EXPECT_EQ(vi.elp_failures > 0, !vi.ok);
  // Walks include every enumerated path, so they leave no more unused.
  EXPECT_LE(vi.extra, ve.extra);
  // The scheme is exactly the walks of its own bounce count.
  if (scheme == elp_bounces) {
    EXPECT_EQ(vi.extra, 0u);
  }
}

TEST(ClosWalks, AgreesWithEnumeratedPaths) {
  Topology ft, ls, f10;
  std::string err;
  ASSERT_TRUE(GenFatTree(4, &ft, &err));
  ASSERT_TRUE(GenLeafSpine(4, 3, 1, &ls, &err));
  ASSERT_TRUE(GenF10(4, &f10, &err));
  for (int s = 0; s <= 1; ++s)
    for (int b = 0; b <= 1; ++b) {
      Compare(ft, s, b);
      Compare(f10, s, b);
    }
  for (int s = 1; s <= 2; ++s) Compare(ls, s, 2);
}

TEST(ClosWalks, CatchesOneMissingBounceRule) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenLeafSpine(4, 2, 1, &t, &err));
  TagRules full;
  ASSERT_TRUE(ClosBounceTags(t, 1, 1, &full, &err));
  // Drop t0's bounce rule for packets from sp0 (1 -> 2 toward sp1).
  const uint32_t tor = t.Find("t0"), g = t.gport(tor, 1);
  TagRules broken(t.num_ports());
  for (uint32_t p = 0; p < t.num_ports(); ++p)
    for (const RuleEntry& e : full.entries(p))
      if (!(p == g && e.tag == 1 && e.new_tag == 2)) broken.Add(p, e.tag, e.new_tag, e.outs);
  const VerifyReport v = Check(t, Implicit(t, 1), nullptr, broken, true);
  EXPECT_FALSE(v.ok);
  EXPECT_GT(v.elp_failures, 0u);
  EXPECT_NE(Errors(v).find("at t0[port 1 from sp0] tag 1 out port 2 (to sp1) becomes lossy"),
            std::string::npos)
      << Errors(v);
  // An extra lossless transition beyond the walks is flagged when strict:
  // the 1-bounce scheme against 0-bounce walks.
  const VerifyReport vs = Check(t, Implicit(t, 0), nullptr, full, false);
  EXPECT_FALSE(vs.ok);
  EXPECT_GT(vs.extra, 0u);
}

TEST(ClosWalks, ApplicationClassesStartAtTheirTags) {
  Topology t;
  std::string err;
  ASSERT_TRUE(GenFatTree(4, &t, &err));
  TagRules r;
  ASSERT_TRUE(ClosBounceTags(t, 2, 1, &r, &err));
  const VerifyReport v = Check(t, Implicit(t, 1, 0b110), nullptr, r, false);
  EXPECT_TRUE(v.ok) << Errors(v);
  EXPECT_EQ(v.priorities, 3);
  EXPECT_EQ(v.extra, 0u);
  // Class 3 was never given a start tag by the scheme: its packets are lossy.
  const VerifyReport v3 = Check(t, Implicit(t, 1, 0b1110), nullptr, r, true);
  EXPECT_FALSE(v3.ok);
}

// Issue 12: FatTree(k) with 2 bounces, generated from the layers and verified
// without enumerating paths, tight (no lossless transition beyond the walks),
// three priorities, and a handful of rules per switch when hairpins drop.
TEST(ClosWalks, FatTreeTwoBouncesAtScale) {
  for (int k : {8, 16}) {
    SCOPED_TRACE("FatTree(" + std::to_string(k) + ")");
    Topology t;
    std::string err;
    ASSERT_TRUE(GenFatTree(k, &t, &err));
    TagRules r;
    ASSERT_TRUE(ClosBounceTags(t, 1, 2, &r, &err)) << err;
    const Elp elp = Implicit(t, 2);
    const VerifyReport v = Check(t, elp, nullptr, r, false);
    EXPECT_TRUE(v.ok) << Errors(v);
    EXPECT_EQ(v.priorities, 3);
    EXPECT_EQ(v.extra, 0u);
    EXPECT_GT(v.elp_states, 0u);
    int max_rules = 0;
    const auto hp = Install(t, r, true, &max_rules);
    EXPECT_LE(max_rules, 6);
    const VerifyReport vh = Verify(t, elp, nullptr, hp, {false, true});
    EXPECT_TRUE(vh.ok) << Errors(vh);
    // One bounce fewer in the rules than in the ELP must fail.
    TagRules r1;
    ASSERT_TRUE(ClosBounceTags(t, 1, 1, &r1, &err));
    EXPECT_FALSE(Check(t, elp, nullptr, r1, true).ok);
  }
}

}  // namespace
}  // namespace pfc::tagger
