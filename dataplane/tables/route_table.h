// SPDX-License-Identifier: BSD-3-Clause
// IPv4 longest-prefix-match routes -> next-hop index, as a DIR-24-8 table
// (one load for prefixes up to /24, two beyond). Built completely by the
// control thread and published in the Tables snapshot; immutable after, read
// by the workers. tbl24 is 32 MiB; each distinct /24 covered by a longer
// prefix costs a 512-byte tbl8 group (at most 32767 groups), unless its
// addresses all end at one next hop (or none): Build folds that group back
// into the /24's tbl24 entry.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/common/zero_pages.h"

namespace pfc::tables {

// Where a route sends a packet. The neighbour MAC is resolved separately
// (tables/neighbor_table.h) keyed by `gateway` if set, else by the packet's
// own destination (a connected route). A route over several equal-cost
// next hops (ECMP) names the first of `group` consecutive entries, and the
// ingress stage picks one of them by a hash of the flow (ecmp_hash.h).
struct NextHop {
  PortId port = 0;
  uint32_t gateway = 0;  // host order; 0 = directly connected
  uint16_t group = 1;    // at a route's nh: entries [nh, nh + group) share its traffic
};

// At most this many next hops in one ECMP group (a ToR's uplinks).
inline constexpr uint16_t kMaxEcmpNextHops = 64;

class RouteTable {
 public:
  static constexpr uint16_t kNoRoute = 0xffff;
  struct Route {
    uint32_t prefix;
    uint8_t len;
    uint16_t nh;
  };

  static constexpr uint16_t kMaxNextHops = 0x8000;  // top bit marks a tbl8 group

  // Replaces the whole table. nh indexes `next_hops` (< kMaxNextHops).
  // Returns false with *err (naming the route) on a prefix length > 32, a
  // host part set in the prefix, a duplicate prefix, an nh (or its group)
  // out of range, a group above kMaxEcmpNextHops, or
  // too many tbl8 groups; the previous contents are kept then.
  bool Build(const std::vector<Route>& routes, const std::vector<NextHop>& next_hops,
             std::string* err);
  // Build's checks without building (no 32 MiB tbl24): what a config's
  // validation needs; Build runs it first.
  static bool Check(const std::vector<Route>& routes, const std::vector<NextHop>& next_hops,
                    std::string* err);
  // Next-hop index or kNoRoute (also before the first successful Build).
  uint16_t Lookup(uint32_t dst_ip) const {
    if (tbl24_.empty()) [[unlikely]] {
      return kNoRoute;
    }
    const uint16_t e = tbl24_[dst_ip >> 8] ^ kNoRoute;
    if (!(e & kGroupFlag) || e == kNoRoute) return e;
    return tbl8_[(static_cast<uint32_t>(e & ~kGroupFlag) << 8) | (dst_ip & 0xff)];
  }
  // n lookups (any n >= 0); all tbl24 loads of a chunk are issued before any
  // tbl8 load, so cache misses overlap. Not called by the pipeline (the
  // ingress stage calls Lookup per packet); kept as the batch interface.
  void LookupBurst(const uint32_t* dst_ips, uint16_t* nh, int n) const;
  const NextHop& next_hop(uint16_t i) const { return next_hops_[i]; }
  // tbl8 groups in use: /24s whose longer prefixes do not all agree.
  size_t tbl8_groups() const { return tbl8_.size() >> 8; }
  size_t size() const { return routes_.size(); }
  // Memory the table holds now: tbl24's resident pages, tbl8, the lists.
  size_t MemoryBytes() const {
    return tbl24_.ResidentBytes() + tbl8_.capacity() * sizeof(uint16_t) +
           next_hops_.capacity() * sizeof(NextHop) + routes_.capacity() * sizeof(Route);
  }

 private:
  static constexpr uint16_t kGroupFlag = 0x8000;
  // 1<<24 entries, each stored XOR kNoRoute (0: no route); decoded, the
  // top bit set (and != kNoRoute) names a tbl8 group.
  ZeroPages<uint16_t> tbl24_;
  std::vector<uint16_t> tbl8_;  // groups of 256
  std::vector<NextHop> next_hops_;
  std::vector<Route> routes_;
};

// A plain scan: the specification the DIR-24-8 table is tested against
// (longest matching prefix; the first listed on an exact duplicate).
uint16_t NaiveRouteLookup(const std::vector<RouteTable::Route>& routes, uint32_t dst_ip);

}  // namespace pfc::tables
