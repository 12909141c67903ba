// SPDX-License-Identifier: BSD-3-Clause
// The configured (static) neighbours: IPv4 -> MAC from the config's
// `neighbors` section. Immutable once built and part of the published
// Tables snapshot (switch/tables_snapshot.h), so a reload replaces the whole
// set in one store: a neighbour removed from the file is gone, a failed
// reload leaves the old set. Workers consult it before the ARP cache
// (neighbor_table.h), so a forged ARP reply cannot redirect a configured next
// hop. Sorted, looked up by binary search: the set is small, and the ingress
// stage memoises the last next hop of a burst. Pure code.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pfc::tables {

class StaticNeighbors {
 public:
  struct Entry {
    uint32_t ip;
    std::array<uint8_t, 6> mac;
  };
  // Builds the set. False with *err naming the field ("neighbors[i].ip")
  // when an address is 0 or given twice; the set is then unchanged.
  bool Build(const std::vector<Entry>& entries, std::string* err);
  // Copies the MAC and returns true when ip is configured.
  bool Lookup(uint32_t ip, uint8_t mac[6]) const;
  bool Contains(uint32_t ip) const;
  size_t size() const { return ips_.size(); }

 private:
  std::vector<uint32_t> ips_;                 // sorted
  std::vector<std::array<uint8_t, 6>> macs_;  // macs_[i] belongs to ips_[i]
};

}  // namespace pfc::tables
