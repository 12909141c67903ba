// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/tables/route_table.h"

#include <algorithm>
#include <set>
#include <utility>

namespace pfc::tables {
namespace {

std::string Ip(uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xff) + "." +
         std::to_string((a >> 8) & 0xff) + "." + std::to_string(a & 0xff);
}

inline uint32_t PrefixMask(uint8_t len) { return len == 0 ? 0 : ~uint32_t{0} << (32 - len); }

}  // namespace

bool RouteTable::Check(const std::vector<Route>& routes, const std::vector<NextHop>& next_hops,
                       std::string* err) {
  if (next_hops.size() > kMaxNextHops) {
    *err = "routes: " + std::to_string(next_hops.size()) + " next hops, expected at most " +
           std::to_string(kMaxNextHops);
    return false;
  }
  std::set<std::pair<uint32_t, uint8_t>> seen;
  for (size_t i = 0; i < routes.size(); ++i) {
    const Route& r = routes[i];
    const std::string name =
        "route " + std::to_string(i) + " (" + Ip(r.prefix) + "/" + std::to_string(r.len) + ")";
    if (r.len > 32) {
      *err = name + ": prefix length " + std::to_string(r.len) + ", expected 0..32";
      return false;
    }
    if ((r.prefix & ~PrefixMask(r.len)) != 0) {
      *err = name + ": host bits set in prefix, expected " + Ip(r.prefix & PrefixMask(r.len)) +
             "/" + std::to_string(r.len);
      return false;
    }
    if (r.nh >= next_hops.size()) {
      *err = name + ": next hop " + std::to_string(r.nh) + ", expected < " +
             std::to_string(next_hops.size());
      return false;
    }
    const uint16_t g = next_hops[r.nh].group;
    if (g == 0 || g > kMaxEcmpNextHops || r.nh + size_t{g} > next_hops.size()) {
      *err = name + ": an ECMP group of " + std::to_string(g) + " next hops from " +
             std::to_string(r.nh) + ", expected 1.." + std::to_string(kMaxEcmpNextHops) +
             " inside the " + std::to_string(next_hops.size()) + " next hops";
      return false;
    }
    if (!seen.emplace(r.prefix, r.len).second) {
      *err = name + ": duplicate prefix";
      return false;
    }
  }
  // One tbl8 group per distinct /24 that holds a longer prefix.
  std::set<uint32_t> groups;
  for (const Route& r : routes)
    if (r.len > 24) groups.insert(r.prefix >> 8);
  if (groups.size() > kGroupFlag - 1) {  // 0x7fff | flag would read as kNoRoute
    *err = "routes: more than " + std::to_string(kGroupFlag - 1) +
           " distinct /24s hold prefixes longer than /24";
    return false;
  }
  return true;
}

bool RouteTable::Build(const std::vector<Route>& routes, const std::vector<NextHop>& next_hops,
                       std::string* err) {
  if (!Check(routes, next_hops, err)) return false;

  // Shorter prefixes are written first so longer ones overwrite them; all
  // prefixes <= 24 are in tbl24 before any tbl8 group is cut, so a new group
  // starts as a copy of the (final) tbl24 entry it replaces.
  std::vector<const Route*> sorted;
  sorted.reserve(routes.size());
  for (const Route& r : routes) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Route* a, const Route* b) { return a->len < b->len; });

  ZeroPages<uint16_t> tbl24(size_t{1} << 24);  // all "no route" (stored XOR kNoRoute)
  std::vector<uint16_t> tbl8;
  std::vector<uint32_t> owner;  // each group's /24 (its tbl24 index)
  for (const Route* r : sorted) {
    if (r->len <= 24) {
      const size_t first = r->prefix >> 8;
      const size_t count = size_t{1} << (24 - r->len);
      std::fill_n(tbl24.data() + first, count, static_cast<uint16_t>(r->nh ^ kNoRoute));
      continue;
    }
    uint16_t& stored = tbl24[r->prefix >> 8];
    const uint16_t e = stored ^ kNoRoute;
    if (!(e & kGroupFlag) || e == kNoRoute) {
      const size_t group = tbl8.size() >> 8;  // fewer than kGroupFlag - 1: Check
      tbl8.resize(tbl8.size() + 256, e);
      owner.push_back(r->prefix >> 8);
      stored = static_cast<uint16_t>((kGroupFlag | group) ^ kNoRoute);
    }
    const uint16_t g = stored ^ kNoRoute;
    const size_t base = (static_cast<size_t>(g & ~kGroupFlag) << 8) | (r->prefix & 0xff);
    std::fill_n(tbl8.begin() + base, size_t{1} << (32 - r->len), r->nh);
  }

  // A group whose 256 entries all agree goes back into its tbl24 entry: a
  // /24 covered by longer prefixes over one next hop (a fabric's per-host
  // routes towards another pod) then costs one load, not two, and no group.
  std::vector<uint16_t> kept;
  for (size_t g = 0; g < owner.size(); ++g) {
    const uint16_t* group = tbl8.data() + (g << 8);
    uint16_t& stored = tbl24[owner[g]];
    if (std::all_of(group, group + 256, [&](uint16_t v) { return v == group[0]; })) {
      stored = static_cast<uint16_t>(group[0] ^ kNoRoute);
      continue;
    }
    stored = static_cast<uint16_t>((kGroupFlag | (kept.size() >> 8)) ^ kNoRoute);
    kept.insert(kept.end(), group, group + 256);
  }
  kept.shrink_to_fit();  // MemoryBytes counts capacity

  tbl24_ = std::move(tbl24);
  tbl8_ = std::move(kept);
  next_hops_ = next_hops;
  routes_ = routes;
  return true;
}

void RouteTable::LookupBurst(const uint32_t* dst_ips, uint16_t* nh, int n) const {
  if (tbl24_.empty()) [[unlikely]] {
    std::fill_n(nh, n, kNoRoute);
    return;
  }
  const uint16_t* t24 = tbl24_.data();
  const uint16_t* t8 = tbl8_.data();
  // Two passes per chunk (as DPDK's rte_lpm_lookup_bulk): all tbl24 loads
  // first, into locals, so their cache misses overlap; then the few tbl8
  // second loads. Locals also keep the stores to nh from aliasing the loads.
  for (int base = 0; base < n; base += kMaxBurst) {
    const int m = std::min(kMaxBurst, n - base);
    uint16_t e[kMaxBurst];
    for (int i = 0; i < m; ++i) e[i] = t24[dst_ips[base + i] >> 8] ^ kNoRoute;
    for (int i = 0; i < m; ++i) {
      if ((e[i] & kGroupFlag) && e[i] != kNoRoute) {
        e[i] = t8[(static_cast<uint32_t>(e[i] & ~kGroupFlag) << 8) | (dst_ips[base + i] & 0xff)];
      }
    }
    for (int i = 0; i < m; ++i) nh[base + i] = e[i];
  }
}

uint16_t NaiveRouteLookup(const std::vector<RouteTable::Route>& routes, uint32_t dst_ip) {
  int best_len = -1;
  uint16_t best = RouteTable::kNoRoute;
  for (const RouteTable::Route& r : routes) {
    if (r.len > 32) continue;
    if ((dst_ip & PrefixMask(r.len)) == r.prefix && r.len > best_len) {
      best_len = r.len;
      best = r.nh;
    }
  }
  return best;
}

}  // namespace pfc::tables
