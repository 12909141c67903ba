// SPDX-License-Identifier: BSD-3-Clause
// The ECMP flow hashes (tables/ecmp_hash.h): MurmurHash3 against the
// algorithm's published test vectors, the HPCC simulator's key layout, and
// both hashes spreading flows over next hops.
#include "dataplane/tables/ecmp_hash.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

namespace pfc::tables {
namespace {

uint32_t Mm(const std::string& s, uint32_t seed) { return Murmur3X86_32(s.data(), s.size(), seed); }

TEST(EcmpHashTest, Murmur3MatchesPublishedVectors) {
  EXPECT_EQ(Mm("", 0), 0u);
  EXPECT_EQ(Mm("", 1), 0x514e28b7u);
  EXPECT_EQ(Mm("", 0xffffffffu), 0x81f16f39u);
  EXPECT_EQ(Mm("test", 0x9747b28cu), 0x704b81dcu);
  EXPECT_EQ(Mm("Hello, world!", 0x9747b28cu), 0x24884cbau);
  EXPECT_EQ(Mm("The quick brown fox jumps over the lazy dog", 0x9747b28cu), 0x2fa826cdu);
  EXPECT_EQ(Mm("aaaa", 0x9747b28cu), 0x5a97808au);
}

// The simulator hashes the words sip, dip, sport | dport << 16 as they lie
// in a little-endian machine's memory, addresses in host order.
TEST(EcmpHashTest, HpccKeyIsThreeLittleEndianWords) {
  const FlowKey k{0x0b000101, 0x0b000201, 10000, 100, 17};
  const std::array<uint32_t, 3> w = {k.src_ip, k.dst_ip, 10000u | 100u << 16};
  uint8_t bytes[12];
  std::memcpy(bytes, w.data(), sizeof bytes);  // x86: little-endian
  for (uint32_t seed : {0u, 1u, 17u, 320u})
    EXPECT_EQ(HpccFlowHash(k, seed), Murmur3X86_32(bytes, sizeof bytes, seed)) << seed;
  FlowKey other = k;
  other.proto = 6;  // the protocol is not in the simulator's key
  EXPECT_EQ(HpccFlowHash(other, 5), HpccFlowHash(k, 5));
}

// Flows differing only in their source port spread evenly over 4 next hops
// by either hash, and another seed (another switch) sends many elsewhere.
TEST(EcmpHashTest, SpreadsFlowsAndTheSeedDecorrelates) {
  for (EcmpHashAlgo a : {EcmpHashAlgo::kCrc32c, EcmpHashAlgo::kHpcc}) {
    std::array<int, 4> n{};
    int moved = 0;
    constexpr int kFlows = 4000;
    for (int i = 0; i < kFlows; ++i) {
      const FlowKey k{0x0a000002, 0x0a010002, static_cast<uint16_t>(49152 + i), 4791, 17};
      const uint32_t h = EcmpHash(a, k, 1);
      n[h % 4]++;
      moved += h % 4 != EcmpHash(a, k, 2) % 4;
      EXPECT_EQ(h, EcmpHash(a, k, 1));  // a flow always hashes alike
    }
    for (int c : n) {
      EXPECT_GT(c, kFlows / 4 * 8 / 10) << int(a);
      EXPECT_LT(c, kFlows / 4 * 12 / 10) << int(a);
    }
    EXPECT_GT(moved, kFlows / 2) << int(a);  // independent: ~3/4 move
  }
}

}  // namespace
}  // namespace pfc::tables
