// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the DIR-24-8 route table against a plain longest-prefix scan.
#include "dataplane/tables/route_table.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace pfc {
namespace {

using Route = tables::RouteTable::Route;

constexpr uint32_t Ip(int a, int b, int c, int d) {
  return (uint32_t(a) << 24) | (uint32_t(b) << 16) | (uint32_t(c) << 8) | uint32_t(d);
}
uint32_t Mask(uint8_t len) { return len == 0 ? 0 : ~uint32_t{0} << (32 - len); }

std::vector<tables::NextHop> Hops(int n) {
  std::vector<tables::NextHop> v(n);
  for (int i = 0; i < n; ++i) v[i] = {static_cast<PortId>(i % 64), Ip(10, 255, 0, 1) + i};
  return v;
}

TEST(RouteTable, EmptyAndUnbuiltMissEverything) {
  tables::RouteTable t;
  EXPECT_EQ(t.Lookup(Ip(10, 0, 0, 1)), tables::RouteTable::kNoRoute);
  uint32_t ips[2] = {1, 2};
  uint16_t nh[2] = {0, 0};
  t.LookupBurst(ips, nh, 2);
  EXPECT_EQ(nh[0], tables::RouteTable::kNoRoute);
  std::string err;
  ASSERT_TRUE(t.Build({}, Hops(1), &err)) << err;
  EXPECT_EQ(t.Lookup(0), tables::RouteTable::kNoRoute);
  EXPECT_EQ(t.Lookup(~0u), tables::RouteTable::kNoRoute);
}

TEST(RouteTable, LongestPrefixWinsAcrossBothLevels) {
  tables::RouteTable t;
  std::string err;
  const std::vector<Route> routes = {
      {0, 0, 0},  // default
      {Ip(10, 0, 0, 0), 8, 1},
      {Ip(10, 1, 0, 0), 16, 2},
      {Ip(10, 1, 2, 0), 24, 3},
      {Ip(10, 1, 2, 128), 25, 4},
      {Ip(10, 1, 2, 200), 32, 5},
      {Ip(10, 1, 2, 192), 26, 6},
  };
  ASSERT_TRUE(t.Build(routes, Hops(7), &err)) << err;
  EXPECT_EQ(t.size(), routes.size());
  EXPECT_EQ(t.Lookup(Ip(192, 168, 0, 1)), 0);
  EXPECT_EQ(t.Lookup(Ip(10, 9, 9, 9)), 1);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 9, 9)), 2);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 2, 1)), 3);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 2, 127)), 3);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 2, 128)), 4);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 2, 191)), 4);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 2, 192)), 6);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 2, 200)), 5);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 2, 201)), 6);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 3, 0)), 2);
  EXPECT_EQ(t.next_hop(4).port, 4);
  EXPECT_EQ(t.next_hop(4).gateway, Ip(10, 255, 0, 5));
}

TEST(RouteTable, HostRouteWithoutCoveringPrefix) {
  tables::RouteTable t;
  std::string err;
  ASSERT_TRUE(t.Build({{Ip(172, 16, 0, 7), 32, 0}}, Hops(1), &err)) << err;
  EXPECT_EQ(t.Lookup(Ip(172, 16, 0, 7)), 0);
  EXPECT_EQ(t.Lookup(Ip(172, 16, 0, 6)), tables::RouteTable::kNoRoute);
  EXPECT_EQ(t.Lookup(Ip(172, 16, 0, 8)), tables::RouteTable::kNoRoute);
}

TEST(RouteTable, BadRoutesRejectedAndOldTableKept) {
  tables::RouteTable t;
  std::string err;
  ASSERT_TRUE(t.Build({{Ip(10, 0, 0, 0), 8, 0}}, Hops(2), &err));
  struct Case {
    std::vector<Route> routes;
    int hops;
    const char* expect;
  } cases[] = {
      {{{Ip(10, 0, 0, 0), 33, 0}}, 2, "prefix length 33"},
      {{{Ip(10, 0, 0, 1), 24, 0}}, 2, "host bits"},
      {{{Ip(10, 0, 0, 0), 0, 0}}, 2, "host bits"},
      {{{Ip(10, 0, 0, 0), 8, 2}}, 2, "next hop 2"},
      {{{Ip(10, 0, 0, 0), 8, 0}, {Ip(10, 0, 0, 0), 8, 1}}, 2, "route 1 (10.0.0.0/8): duplicate"},
      {{{0, 0, 0}}, 0x8001, "next hops"},
  };
  for (const Case& c : cases) {
    err.clear();
    EXPECT_FALSE(tables::RouteTable::Check(c.routes, Hops(c.hops), &err)) << c.expect;
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
    err.clear();
    EXPECT_FALSE(t.Build(c.routes, Hops(c.hops), &err)) << c.expect;
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
    EXPECT_EQ(t.Lookup(Ip(10, 1, 1, 1)), 0) << c.expect;
    EXPECT_EQ(t.Lookup(Ip(11, 1, 1, 1)), tables::RouteTable::kNoRoute) << c.expect;
  }
}

// The tbl8 group limit: 32767 distinct /24s holding longer prefixes fit,
// one more does not; Check says so without building, Build agrees.
TEST(RouteTable, Tbl8GroupLimit) {
  std::vector<Route> routes;
  for (uint32_t i = 0; i < 32767; ++i) routes.push_back({(Ip(30, 0, 0, 0) + (i << 8)) | 1, 32, 0});
  std::string err;
  EXPECT_TRUE(tables::RouteTable::Check(routes, Hops(1), &err)) << err;
  tables::RouteTable t;
  EXPECT_TRUE(t.Build(routes, Hops(1), &err)) << err;
  routes.push_back({Ip(31, 0, 0, 1), 32, 0});
  EXPECT_FALSE(tables::RouteTable::Check(routes, Hops(1), &err));
  EXPECT_NE(err.find("more than 32767 distinct /24s"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(t.Build(routes, Hops(1), &err));
  EXPECT_NE(err.find("more than 32767 distinct /24s"), std::string::npos) << err;
}

TEST(RouteTable, ManyTbl8Groups) {
  // 3000 host routes in distinct /24s: 3000 tbl8 groups.
  std::vector<Route> routes;
  for (int i = 0; i < 3000; ++i)
    routes.push_back({Ip(20, i >> 8, i & 0xff, 9), 32, uint16_t(i % 7)});
  tables::RouteTable t;
  std::string err;
  ASSERT_TRUE(t.Build(routes, Hops(7), &err)) << err;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_EQ(t.Lookup(Ip(20, i >> 8, i & 0xff, 9)), i % 7);
    ASSERT_EQ(t.Lookup(Ip(20, i >> 8, i & 0xff, 10)), tables::RouteTable::kNoRoute);
  }
}

// A /24 whose longer prefixes all lead to one next hop (a fabric's /30 per
// host towards another pod) keeps no tbl8 group: Build folds it into its
// tbl24 entry, with the same answers; one that differs anywhere keeps it.
TEST(RouteTable, UniformGroupFoldsIntoTbl24) {
  std::vector<Route> routes;
  for (uint32_t i = 0; i < 64; ++i) routes.push_back({Ip(10, 1, 2, 0) + 4 * i, 30, 3});
  for (uint32_t i = 0; i < 64; ++i)
    routes.push_back({Ip(10, 1, 5, 0) + 4 * i, 30, uint16_t(i % 2)});
  routes.push_back({Ip(10, 1, 7, 0), 25, 1});  // half a /24: the other half has no route
  routes.push_back({Ip(10, 1, 7, 128), 25, 1});
  tables::RouteTable t;
  std::string err;
  ASSERT_TRUE(t.Build(routes, Hops(4), &err)) << err;
  EXPECT_EQ(t.tbl8_groups(), 1u) << "only 10.1.5.0/24's next hops differ";
  const size_t folded = t.MemoryBytes();
  for (uint32_t a = 0; a < 256; ++a) {
    ASSERT_EQ(t.Lookup(Ip(10, 1, 2, a)), 3);
    ASSERT_EQ(t.Lookup(Ip(10, 1, 5, a)), (a / 4) % 2);
    ASSERT_EQ(t.Lookup(Ip(10, 1, 7, a)), 1);
    ASSERT_EQ(t.Lookup(Ip(10, 1, 3, a)), tables::RouteTable::kNoRoute);
  }
  routes.pop_back();  // 10.1.7.128/25 gone: that /24 now differs
  ASSERT_TRUE(t.Build(routes, Hops(4), &err)) << err;
  EXPECT_EQ(t.tbl8_groups(), 2u);
  EXPECT_GE(t.MemoryBytes(), folded + 256 * sizeof(uint16_t)) << "a group's 512 bytes";
  EXPECT_EQ(t.Lookup(Ip(10, 1, 7, 200)), tables::RouteTable::kNoRoute);
  EXPECT_EQ(t.Lookup(Ip(10, 1, 7, 100)), 1);
}

// Random route sets with /0, /32, >24 prefixes and heavy overlap (prefixes
// are drawn around a few anchors), compared with the naive scan at every
// prefix boundary and at random addresses.
TEST(RouteTable, RandomRouteSetsAgreeWithNaive) {
  std::mt19937_64 rng(2016);
  for (int iter = 0; iter < 12; ++iter) {
    const int n = 1 + static_cast<int>(rng() % 400);
    uint32_t anchors[4];
    for (auto& a : anchors) a = static_cast<uint32_t>(rng());
    std::vector<Route> routes;
    std::set<std::pair<uint32_t, uint8_t>> seen;
    const int hops = 1 + static_cast<int>(rng() % 50);
    while (static_cast<int>(routes.size()) < n) {
      uint8_t len;
      switch (rng() % 6) {
        case 0:
          len = 0;
          break;
        case 1:
          len = 32;
          break;
        case 2:
          len = static_cast<uint8_t>(25 + rng() % 7);
          break;
        default:
          len = static_cast<uint8_t>(rng() % 33);
          break;
      }
      uint32_t addr = anchors[rng() % 4] ^ static_cast<uint32_t>(rng() % 2 ? rng() & 0xfff : rng());
      const uint32_t prefix = addr & Mask(len);
      if (!seen.emplace(prefix, len).second) continue;
      routes.push_back({prefix, len, static_cast<uint16_t>(rng() % hops)});
    }
    tables::RouteTable t;
    std::string err;
    ASSERT_TRUE(t.Build(routes, Hops(hops), &err)) << err;
    std::vector<uint32_t> probes;
    for (const Route& r : routes) {
      const uint32_t last = r.prefix | ~Mask(r.len);
      for (uint32_t p :
           {r.prefix, last, r.prefix - 1, last + 1, r.prefix | (~Mask(r.len) & 0x5a5a5a5a)})
        probes.push_back(p);
    }
    for (int i = 0; i < 20000; ++i) probes.push_back(static_cast<uint32_t>(rng()));
    for (int i = 0; i < 20000; ++i)
      probes.push_back(anchors[i % 4] ^ static_cast<uint32_t>(rng() & 0xffff));
    for (uint32_t ip : probes) {
      ASSERT_EQ(t.Lookup(ip), tables::NaiveRouteLookup(routes, ip))
          << "iter " << iter << " ip " << std::hex << ip;
    }
    // Burst form agrees with single lookups.
    for (size_t i = 0; i + kMaxBurst <= probes.size(); i += kMaxBurst) {
      uint16_t nh[kMaxBurst];
      t.LookupBurst(&probes[i], nh, kMaxBurst);
      for (int j = 0; j < kMaxBurst; ++j) ASSERT_EQ(nh[j], t.Lookup(probes[i + j]));
    }
  }
}

// tbl24 costs the pages its routes write: an emulated switch's few hundred
// routes, not 32 MiB; a default route writes them all.
TEST(RouteTable, MemoryFollowsTheRoutes) {
  std::vector<tables::RouteTable::Route> routes;
  for (uint32_t i = 0; i < 300; ++i) {
    routes.push_back({0x0a000000u | i << 14, 30, static_cast<uint16_t>(i % 4)});  // a /30 each
  }
  std::vector<tables::NextHop> nhs(4);
  tables::RouteTable t;
  std::string err;
  ASSERT_TRUE(t.Build(routes, nhs, &err)) << err;
  EXPECT_EQ(t.Lookup(0x0a000001u), 0u);
  EXPECT_EQ(t.Lookup(0x0b000001u), tables::RouteTable::kNoRoute)
      << "an untouched page reads as no route";
  EXPECT_LT(t.MemoryBytes(), size_t{2} << 20) << "300 routes, far under tbl24's 32 MiB";
  routes.push_back({0, 0, 1});  // a default route
  ASSERT_TRUE(t.Build(routes, nhs, &err)) << err;
  EXPECT_GE(t.MemoryBytes(), size_t{32} << 20);
  EXPECT_EQ(t.Lookup(0x0b000001u), 1u);
  EXPECT_EQ(t.Lookup(0x0a000001u), 0u);
}

TEST(RouteTable, NaiveRouteLookupBasics) {
  const std::vector<Route> routes = {{Ip(1, 0, 0, 0), 8, 3}, {Ip(1, 2, 0, 0), 16, 4}};
  EXPECT_EQ(tables::NaiveRouteLookup(routes, Ip(1, 2, 3, 4)), 4);
  EXPECT_EQ(tables::NaiveRouteLookup(routes, Ip(1, 3, 3, 4)), 3);
  EXPECT_EQ(tables::NaiveRouteLookup(routes, Ip(2, 3, 3, 4)), tables::RouteTable::kNoRoute);
}

}  // namespace
}  // namespace pfc
