// SPDX-License-Identifier: BSD-3-Clause
// StaticL2Table against a std::map over random tables of 0 to 20,000 MACs:
// every member found with its port, non-members (including MACs that differ
// from a member in one byte only) not found.
#include "dataplane/tables/l2_table.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>

namespace pfc {
namespace {

using Mac = std::array<uint8_t, 6>;

TEST(StaticL2Table, EmptyFindsNothing) {
  tables::StaticL2Table t;
  const Mac m{2, 0, 0, 0, 0, 1};
  EXPECT_EQ(t.Lookup(m.data()), -1);
  t.Reserve(0);
  EXPECT_EQ(t.Lookup(m.data()), -1);
  EXPECT_EQ(t.size(), 0u);
}

TEST(StaticL2Table, MatchesAMapAtEverySize) {
  std::mt19937_64 rng(99);
  for (size_t n : {1u, 2u, 3u, 10u, 255u, 1000u, 20000u}) {
    std::map<Mac, int> ref;
    while (ref.size() < n) {
      Mac m;
      for (auto& b : m) b = static_cast<uint8_t>(rng());
      m[0] &= 0xfe;  // unicast
      ref.emplace(m, static_cast<int>(rng() % kMaxPorts));
    }
    tables::StaticL2Table t;
    t.Reserve(n);
    for (const auto& [m, p] : ref) ASSERT_TRUE(t.Insert(m.data(), static_cast<PortId>(p)));
    EXPECT_EQ(t.size(), n);
    for (const auto& [m, p] : ref) {
      ASSERT_EQ(t.Lookup(m.data()), p);
      for (int byte = 0; byte < 6; ++byte) {  // one byte off: found only if also a member
        Mac o = m;
        o[byte] ^= 0x10;
        const auto it = ref.find(o);
        ASSERT_EQ(t.Lookup(o.data()), it == ref.end() ? -1 : it->second);
      }
    }
  }
}

TEST(StaticL2Table, FirstEntryWinsAndFullTableRefuses) {
  tables::StaticL2Table t;
  t.Reserve(1);  // two slots: one entry at load 1/2
  const Mac a{2, 0, 0, 0, 0, 1}, b{2, 0, 0, 0, 0, 2};
  EXPECT_TRUE(t.Insert(a.data(), 3));
  EXPECT_TRUE(t.Insert(a.data(), 5));
  EXPECT_EQ(t.Lookup(a.data()), 3);
  EXPECT_FALSE(t.Insert(b.data(), 4));
  EXPECT_EQ(t.Lookup(b.data()), -1);
}

}  // namespace
}  // namespace pfc
