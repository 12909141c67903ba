// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the compiled rewrite table against the naive TCAM-order
// matcher (the specification), on hand-written and random rule sets.
#include "dataplane/tables/rewrite_table.h"

#include <gtest/gtest.h>

#include <random>

namespace pfc {
namespace {

PortMask Ports(std::initializer_list<int> ps) {
  PortMask m = 0;
  for (int p : ps) m |= PortMask{1} << p;
  return m;
}
TagMask Tags(std::initializer_list<int> ts) { return Ports(ts); }

tables::RewriteTable MustCompile(const tables::RewriteConfig& cfg) {
  tables::RewriteTable t;
  std::string err;
  EXPECT_TRUE(t.Compile(cfg, &err)) << err;
  return t;
}

// Checks every (tag, in, out) triple, through Lookup and LookupBurst.
void ExpectAgreesEverywhere(const tables::RewriteConfig& cfg, const tables::RewriteTable& t) {
  uint8_t tags[kMaxBurst], got[kMaxBurst];
  PortId ins[kMaxBurst], outs[kMaxBurst];
  int n = 0;
  auto flush = [&] {
    t.LookupBurst(tags, ins, outs, got, n);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], tables::NaiveRewriteLookup(cfg, tags[i], ins[i], outs[i]))
          << "burst tag " << int{tags[i]} << " in " << ins[i] << " out " << outs[i];
    }
    n = 0;
  };
  for (int tag = 0; tag < kNumTags; ++tag) {
    for (PortId in = 0; in < cfg.num_ports; ++in) {
      for (PortId out = 0; out < cfg.num_ports; ++out) {
        ASSERT_EQ(t.Lookup(static_cast<uint8_t>(tag), in, out),
                  tables::NaiveRewriteLookup(cfg, static_cast<uint8_t>(tag), in, out))
            << "tag " << tag << " in " << in << " out " << out;
        tags[n] = static_cast<uint8_t>(tag);
        ins[n] = in;
        outs[n] = out;
        if (++n == kMaxBurst) flush();
      }
    }
  }
  flush();
}

TEST(RewriteTable, TaggerFig9Compression) {
  // Fig. 9: (tag 1, in {0,1,3}, out 2) -> 2, one entry instead of three.
  tables::RewriteConfig cfg;
  cfg.num_ports = 4;
  cfg.default_tag = 0;
  cfg.rules.push_back({Tags({1}), Ports({0, 1, 3}), Ports({2}), 2, 0});
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.Lookup(1, 0, 2), 2);
  EXPECT_EQ(t.Lookup(1, 1, 2), 2);
  EXPECT_EQ(t.Lookup(1, 3, 2), 2);
  EXPECT_EQ(t.Lookup(1, 2, 2), 0);  // in-port 2 not in the set: lossy
  EXPECT_EQ(t.Lookup(1, 0, 1), 0);
  EXPECT_EQ(t.Lookup(2, 0, 2), 0);
  EXPECT_EQ(t.rows(), 2);
  ExpectAgreesEverywhere(cfg, t);
}

TEST(RewriteTable, HigherPriorityWinsRegardlessOfOrder) {
  tables::RewriteConfig cfg;
  cfg.num_ports = 8;
  cfg.default_tag = 7;
  cfg.rules.push_back({Tags({3}), kAnyPort, kAnyPort, 3, 0});       // catch-all keep
  cfg.rules.push_back({Tags({3}), Ports({1}), Ports({2}), 4, 10});  // specific bump
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.Lookup(3, 1, 2), 4);
  EXPECT_EQ(t.Lookup(3, 2, 1), 3);
  EXPECT_EQ(t.Lookup(5, 1, 2), 7);
  ExpectAgreesEverywhere(cfg, t);
}

TEST(RewriteTable, TieGoesToTheEarlierRule) {
  tables::RewriteConfig cfg;
  cfg.num_ports = 4;
  cfg.rules.push_back({Tags({1, 2}), Ports({0, 1}), kAnyPort, 10, 5});
  cfg.rules.push_back({Tags({1}), Ports({1, 2}), kAnyPort, 20, 5});
  cfg.rules.push_back({Tags({1}), kAnyPort, kAnyPort, 30, 4});
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.Lookup(1, 1, 0), 10);  // both priority-5 rules match: first wins
  EXPECT_EQ(t.Lookup(1, 2, 0), 20);
  EXPECT_EQ(t.Lookup(1, 3, 0), 30);
  EXPECT_EQ(t.Lookup(2, 1, 0), 10);
  EXPECT_EQ(t.Lookup(2, 2, 0), 0);
  ExpectAgreesEverywhere(cfg, t);
}

TEST(RewriteTable, UnmatchedGoesToDefaultTag) {
  tables::RewriteConfig cfg;
  cfg.num_ports = 2;
  cfg.default_tag = 63;
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.rows(), 1);
  for (int tag = 0; tag < 64; ++tag) EXPECT_EQ(t.Lookup(static_cast<uint8_t>(tag), 1, 0), 63);
}

TEST(RewriteTable, UnmatchedKeepsTag) {
  tables::RewriteConfig cfg;
  cfg.num_ports = 16;
  cfg.default_tag = 0;
  cfg.unmatched_keeps_tag = true;
  cfg.rules.push_back({Tags({1}), Ports({0, 5}), Ports({9}), 2, 0});
  cfg.rules.push_back({Tags({40}), kAnyPort, Ports({3}), 40, 0});  // explicit keep
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.Lookup(1, 5, 9), 2);
  EXPECT_EQ(t.Lookup(1, 5, 8), 1);
  EXPECT_EQ(t.Lookup(40, 0, 3), 40);
  EXPECT_EQ(t.Lookup(40, 0, 4), 40);
  for (int tag = 0; tag < 64; ++tag) {
    EXPECT_EQ(t.Lookup(static_cast<uint8_t>(tag), 7, 7), tag);
  }
  // The explicit keep row equals "unmatched" in XOR form: shared with row 0.
  EXPECT_EQ(t.rows(), 2);
  ExpectAgreesEverywhere(cfg, t);
}

TEST(RewriteTable, TagUpperBitsIgnored) {
  tables::RewriteConfig cfg;
  cfg.num_ports = 2;
  cfg.unmatched_keeps_tag = true;
  cfg.rules.push_back({Tags({5}), kAnyPort, kAnyPort, 6, 0});
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.Lookup(5 | 0x40, 0, 1), 6);
  EXPECT_EQ(t.Lookup(9 | 0xc0, 0, 1), 9);
  EXPECT_EQ(tables::NaiveRewriteLookup(cfg, 5 | 0x80, 0, 1), 6);
}

TEST(RewriteTable, SixtyFourPortsAllWildcard) {
  tables::RewriteConfig cfg;
  cfg.num_ports = 64;
  cfg.default_tag = 0;
  cfg.rules.push_back({kAnyTag, kAnyPort, kAnyPort, 9, 0});
  cfg.rules.push_back({kAnyTag, kAnyPort, kAnyPort, 8, 0});  // shadowed by the tie rule
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.Lookup(0, 63, 63), 9);
  EXPECT_EQ(t.Lookup(63, 0, 63), 9);
  // All 64 tags share one painted row.
  EXPECT_EQ(t.rows(), 2);
  EXPECT_EQ(t.bytes(), 2u * 64 * 64);
  ExpectAgreesEverywhere(cfg, t);
}

TEST(RewriteTable, SixtyFourPortsHighPortBits) {
  tables::RewriteConfig cfg;
  cfg.num_ports = 64;
  cfg.rules.push_back({Tags({2}), Ports({63}), Ports({0, 62}), 3, 1});
  cfg.rules.push_back({Tags({2}), Ports({62, 63}), kAnyPort, 4, 0});
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.Lookup(2, 63, 62), 3);
  EXPECT_EQ(t.Lookup(2, 63, 61), 4);
  EXPECT_EQ(t.Lookup(2, 61, 61), 0);
  ExpectAgreesEverywhere(cfg, t);
}

TEST(RewriteTable, OddPortCountsAndOnePort) {
  for (uint16_t n : {1, 3, 5, 33}) {
    tables::RewriteConfig cfg;
    cfg.num_ports = n;
    cfg.default_tag = 1;
    cfg.rules.push_back({Tags({0}), Ports({n - 1}), kAnyPort, 5, 0});
    const tables::RewriteTable t = MustCompile(cfg);
    EXPECT_EQ(t.Lookup(0, n - 1, 0), 5) << n;
    ExpectAgreesEverywhere(cfg, t);
  }
}

TEST(RewriteTable, IdenticalRowsAreShared) {
  // Tagger-style: tags 1 and 2 get structurally different rules but rows
  // with identical content for tags 3..6 (a multi-tag rule) are stored once.
  tables::RewriteConfig cfg;
  cfg.num_ports = 32;
  cfg.rules.push_back({Tags({3, 4, 5, 6}), Ports({1, 2}), Ports({7}), 9, 0});
  cfg.rules.push_back({Tags({1}), Ports({1}), Ports({7}), 2, 0});
  cfg.rules.push_back({Tags({2}), Ports({2}), Ports({7}), 3, 0});
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_EQ(t.rows(), 4);  // default, {3..6}, 1, 2
  ExpectAgreesEverywhere(cfg, t);
}

TEST(RewriteTable, InvalidConfigsRejectedWithReason) {
  struct Case {
    const char* what;
    tables::RewriteConfig cfg;
    const char* expect_in_err;
  };
  auto base = [] {
    tables::RewriteConfig c;
    c.num_ports = 4;
    return c;
  };
  std::vector<Case> cases;
  {
    auto c = base();
    c.num_ports = 0;
    cases.push_back({"zero ports", c, "num_ports"});
  }
  {
    auto c = base();
    c.num_ports = 65;
    cases.push_back({"too many ports", c, "num_ports"});
  }
  {
    auto c = base();
    c.default_tag = 64;
    cases.push_back({"default tag", c, "default"});
  }
  {
    auto c = base();
    c.rules.push_back({kAnyTag, kAnyPort, kAnyPort, 64, 0});
    cases.push_back({"new tag", c, "rule 0: new_tag"});
  }
  {
    auto c = base();
    c.rules.push_back({kAnyTag, kAnyPort, kAnyPort, 1, 0});
    c.rules.push_back({0, kAnyPort, kAnyPort, 1, 0});
    cases.push_back({"empty tags", c, "rule 1: tag set"});
  }
  {
    auto c = base();
    c.rules.push_back({kAnyTag, 0, kAnyPort, 1, 0});
    cases.push_back({"empty in", c, "in-port set"});
  }
  {
    auto c = base();
    c.rules.push_back({kAnyTag, kAnyPort, Ports({1, 4}), 1, 0});
    cases.push_back({"out port 4 of 4", c, "out-port set names port 4"});
  }
  for (const Case& k : cases) {
    tables::RewriteTable t;
    tables::RewriteConfig good = base();
    good.rules.push_back({Tags({1}), kAnyPort, kAnyPort, 2, 0});
    std::string err;
    ASSERT_TRUE(t.Compile(good, &err));
    EXPECT_FALSE(t.Compile(k.cfg, &err)) << k.what;
    EXPECT_NE(err.find(k.expect_in_err), std::string::npos) << k.what << ": " << err;
    // The previous table is intact.
    EXPECT_EQ(t.Lookup(1, 3, 3), 2) << k.what;
  }
}

// Random rule sets shaped like Tagger output and like adversarial TCAMs:
// wildcards, single bits, sparse and dense masks, colliding priorities.
PortMask RandomMask(std::mt19937_64& rng, int width) {
  const PortMask valid = width >= 64 ? kAnyPort : (PortMask{1} << width) - 1;
  PortMask m = 0;
  switch (rng() % 5) {
    case 0:
      return kAnyPort;
    case 1:
      m = PortMask{1} << (rng() % width);
      break;
    case 2:
      m = rng() & rng() & valid;
      break;  // sparse
    case 3:
      m = (rng() | rng()) & valid;
      break;  // dense
    default:
      m = rng() & valid;
      break;
  }
  return m != 0 ? m : PortMask{1} << (rng() % width);
}

TEST(RewriteTable, RandomRuleSetsAgreeWithNaive) {
  std::mt19937_64 rng(20190601);
  for (int iter = 0; iter < 120; ++iter) {
    tables::RewriteConfig cfg;
    cfg.num_ports = static_cast<uint16_t>(1 + rng() % 64);
    if (iter % 10 == 0) cfg.num_ports = 64;
    cfg.default_tag = static_cast<uint8_t>(rng() % 64);
    cfg.unmatched_keeps_tag = rng() % 3 == 0;
    const int num_rules = static_cast<int>(rng() % 65);
    // Few distinct tags (as Tagger) most of the time, all 64 sometimes.
    const int tag_space = (rng() % 4 == 0) ? 64 : 8;
    for (int r = 0; r < num_rules; ++r) {
      tables::RewriteRule rule;
      rule.tags = (rng() % 4 == 0) ? RandomMask(rng, tag_space) : TagMask{1} << (rng() % tag_space);
      rule.in_ports = RandomMask(rng, cfg.num_ports);
      rule.out_ports = RandomMask(rng, cfg.num_ports);
      rule.new_tag = static_cast<uint8_t>(rng() % tag_space);
      rule.priority = static_cast<int32_t>(rng() % 4) - 1;  // many ties
      cfg.rules.push_back(rule);
    }
    tables::RewriteTable t;
    std::string err;
    ASSERT_TRUE(t.Compile(cfg, &err)) << err;
    ASSERT_LE(t.rows(), 65);
    SCOPED_TRACE("iter " + std::to_string(iter) + " ports " + std::to_string(cfg.num_ports) +
                 " rules " + std::to_string(num_rules));
    ExpectAgreesEverywhere(cfg, t);
    if (HasFatalFailure()) return;
  }
}

TEST(RewriteTable, TableVSizedFitsInL1) {
  // 64 ports, 8 tags (Table V: at most 4 lossless priorities) -> at most
  // 9 rows of 4 KiB.
  std::mt19937_64 rng(7);
  tables::RewriteConfig cfg;
  cfg.num_ports = 64;
  for (int r = 0; r < 300; ++r) {
    const int tag = 1 + static_cast<int>(rng() % 8);
    cfg.rules.push_back({TagMask{1} << tag, RandomMask(rng, 64), PortMask{1} << (rng() % 64),
                         static_cast<uint8_t>(tag + 1), 0});
  }
  const tables::RewriteTable t = MustCompile(cfg);
  EXPECT_LE(t.rows(), 9);
  EXPECT_LE(t.bytes(), 9u * 4096);
  ExpectAgreesEverywhere(cfg, t);
}

}  // namespace
}  // namespace pfc
