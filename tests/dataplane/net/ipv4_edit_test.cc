// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the IPv4 edits: the incremental checksum (RFC 1624) must be
// bit-identical to a full recomputation on random headers.
#include "dataplane/net/ipv4_edit.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace pfc {
namespace {

uint16_t Stored(const uint8_t* h) {
  uint16_t c;
  std::memcpy(&c, h + 10, 2);
  return c;
}
void Store(uint8_t* h, uint16_t c) { std::memcpy(h + 10, &c, 2); }

// A random valid header of 20..60 bytes with a correct checksum.
std::vector<uint8_t> RandomHeader(std::mt19937_64& rng) {
  const int ihl = 5 + static_cast<int>(rng() % 11);
  std::vector<uint8_t> h(ihl * 4);
  for (auto& b : h) b = static_cast<uint8_t>(rng());
  h[0] = static_cast<uint8_t>(0x40 | ihl);
  Store(h.data(), net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())));
  return h;
}

TEST(Ipv4Edit, KnownVector) {
  // The classic worked example: 45 00 00 73 00 00 40 00 40 11 [b8 61] c0 a8 00 01 c0 a8 00 c7.
  uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                   0xde, 0xad, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  // The stored field is ignored by the computation.
  Store(h, net::Ipv4HeaderChecksum(h, 20));
  EXPECT_EQ(h[10], 0xb8);
  EXPECT_EQ(h[11], 0x61);
  EXPECT_TRUE(net::Ipv4ChecksumOk(h, 20));
  h[11] = 0x60;
  EXPECT_FALSE(net::Ipv4ChecksumOk(h, 20));
}

TEST(Ipv4Edit, ChecksumOkDetectsEverySingleBitFlip) {
  std::mt19937_64 rng(1);
  auto h = RandomHeader(rng);
  ASSERT_TRUE(net::Ipv4ChecksumOk(h.data(), static_cast<uint16_t>(h.size())));
  for (size_t bit = 0; bit < h.size() * 8; ++bit) {
    auto g = h;
    g[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    EXPECT_FALSE(net::Ipv4ChecksumOk(g.data(), static_cast<uint16_t>(g.size()))) << bit;
  }
}

TEST(Ipv4Edit, BothZeroRepresentationsAccepted) {
  // Adjust the ID field so that the sum of the other words is 0xffff: the
  // computed checksum is then 0x0000 and 0xffff is the other form of zero.
  std::mt19937_64 rng(2);
  auto h = RandomHeader(rng);
  uint16_t id;
  std::memcpy(&id, h.data() + 4, 2);
  const uint32_t c = net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size()));
  uint32_t sum = uint32_t{id} + c;
  sum = (sum & 0xffff) + (sum >> 16);
  id = static_cast<uint16_t>(sum);
  std::memcpy(h.data() + 4, &id, 2);
  ASSERT_EQ(net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())), 0);
  Store(h.data(), 0x0000);
  EXPECT_TRUE(net::Ipv4ChecksumOk(h.data(), static_cast<uint16_t>(h.size())));
  Store(h.data(), 0xffff);
  EXPECT_TRUE(net::Ipv4ChecksumOk(h.data(), static_cast<uint16_t>(h.size())));
}

TEST(Ipv4Edit, SetDscpMatchesFullRecompute) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 20000; ++iter) {
    auto h = RandomHeader(rng);
    const uint8_t ecn = h[1] & 3;
    const uint8_t dscp = static_cast<uint8_t>(rng() % 64);
    net::Ipv4SetDscp(h.data(), dscp);
    ASSERT_EQ(h[1] >> 2, dscp);
    ASSERT_EQ(h[1] & 3, ecn);
    ASSERT_EQ(Stored(h.data()), net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())))
        << iter;
  }
}

TEST(Ipv4Edit, SetDscpIgnoresUpperBits) {
  uint8_t h[20] = {0x45, 0x03};
  Store(h, net::Ipv4HeaderChecksum(h, 20));
  net::Ipv4SetDscp(h, 0xc0 | 5);
  EXPECT_EQ(h[1], (5 << 2) | 3);
  EXPECT_EQ(Stored(h), net::Ipv4HeaderChecksum(h, 20));
}

TEST(Ipv4Edit, DecrementTtlMatchesFullRecompute) {
  std::mt19937_64 rng(4);
  for (int iter = 0; iter < 20000; ++iter) {
    auto h = RandomHeader(rng);
    if (h[8] <= 1) {  // the caller guarantees ttl > 1
      h[8] = 2;
      Store(h.data(), net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())));
    }
    const uint8_t ttl = h[8], proto = h[9];
    net::Ipv4DecrementTtl(h.data());
    ASSERT_EQ(h[8], ttl - 1);
    ASSERT_EQ(h[9], proto);
    ASSERT_EQ(Stored(h.data()), net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())))
        << iter;
  }
}

TEST(Ipv4Edit, LongEditChainsStayExact) {
  // A packet crossing many hops: edits compound on the patched checksum.
  std::mt19937_64 rng(5);
  for (int pkt = 0; pkt < 200; ++pkt) {
    auto h = RandomHeader(rng);
    h[8] = 255;
    Store(h.data(), net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())));
    for (int hop = 0; hop < 250; ++hop) {
      net::Ipv4SetDscp(h.data(), static_cast<uint8_t>(rng() % 64));
      net::Ipv4DecrementTtl(h.data());
      ASSERT_EQ(Stored(h.data()),
                net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())));
      ASSERT_TRUE(net::Ipv4ChecksumOk(h.data(), static_cast<uint16_t>(h.size())));
    }
    EXPECT_EQ(h[8], 5);
  }
}

TEST(Ipv4Edit, ExhaustiveTtlAndDscpOnOneHeader) {
  // Every (TTL, DSCP) pair on a fixed header, both edits, against a recompute.
  uint8_t base[20] = {0x45, 0x00, 0x05, 0xdc, 0xbe, 0xef, 0x40, 0x00, 0x00, 0x06,
                      0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x01, 0x02};
  for (int ttl = 2; ttl < 256; ++ttl) {
    for (int dscp = 0; dscp < 64; ++dscp) {
      uint8_t h[20];
      std::memcpy(h, base, 20);
      h[8] = static_cast<uint8_t>(ttl);
      Store(h, net::Ipv4HeaderChecksum(h, 20));
      net::Ipv4DecrementTtl(h);
      net::Ipv4SetDscp(h, static_cast<uint8_t>(dscp));
      ASSERT_EQ(Stored(h), net::Ipv4HeaderChecksum(h, 20)) << ttl << " " << dscp;
    }
  }
}

// CE only on ECT(0)/ECT(1); Not-ECT and CE are left byte for byte, and the
// patched checksum equals a full recomputation.
TEST(Ipv4Edit, MarkCeOnlyEctAndMatchesFullRecompute) {
  std::mt19937_64 rng(5);
  int marked = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    auto h = RandomHeader(rng);
    const auto before = h;
    const uint8_t ecn = h[1] & 3;
    ASSERT_EQ(net::Ipv4MarkCe(h.data()), ecn);
    if (ecn == net::kEcnEct0 || ecn == net::kEcnEct1) {
      marked++;
      ASSERT_EQ(h[1], before[1] | net::kEcnCe) << "DSCP kept, ECN = CE";
      ASSERT_EQ(Stored(h.data()),
                net::Ipv4HeaderChecksum(h.data(), static_cast<uint16_t>(h.size())))
          << iter;
    } else {
      ASSERT_EQ(h, before) << "Not-ECT and CE untouched";
    }
  }
  EXPECT_GT(marked, 8000);
}

}  // namespace
}  // namespace pfc
