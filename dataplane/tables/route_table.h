// SPDX-License-Identifier: BSD-3-Clause
// IPv4 longest-prefix-match routes -> next-hop index, as a DIR-24-8 table
// (one load for prefixes up to /24, two beyond). Built completely by the
// control thread and published in the Tables snapshot; immutable after.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "dataplane/common/types.h"

namespace pfc {

// Where a route sends a packet. The neighbour MAC is resolved separately
// (tables/neighbor_table.h) keyed by `gateway` if set, else by the packet's
// own destination (a connected route).
struct NextHop {
  PortId port = 0;
  uint32_t gateway = 0;      // host order; 0 = directly connected
};

class RouteTable {
 public:
  static constexpr uint16_t kNoRoute = 0xffff;
  struct Route { uint32_t prefix; uint8_t len; uint16_t nh; };

  // Replaces the whole table. nh indexes `next_hops` (< 0xffff). Returns
  // false with *err on a bad prefix length or a host part set in the prefix.
  bool Build(const std::vector<Route>& routes, const std::vector<NextHop>& next_hops,
             std::string* err);
  uint16_t Lookup(uint32_t dst_ip) const;   // next-hop index or kNoRoute
  const NextHop& next_hop(uint16_t i) const { return next_hops_[i]; }
  size_t size() const { return routes_.size(); }

 private:
  std::vector<uint16_t> tbl24_;   // 1<<24 entries; top bit set: index of a tbl8 group
  std::vector<uint16_t> tbl8_;    // groups of 256
  std::vector<NextHop> next_hops_;
  std::vector<Route> routes_;
};

// A plain scan: the specification the DIR-24-8 table is tested against.
uint16_t NaiveRouteLookup(const std::vector<RouteTable::Route>& routes, uint32_t dst_ip);

}  // namespace pfc
