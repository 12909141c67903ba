// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/tables/static_neighbors.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace pfc::tables {
namespace {

std::string Dotted(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 0xff) + "." +
         std::to_string((ip >> 8) & 0xff) + "." + std::to_string(ip & 0xff);
}

}  // namespace

bool StaticNeighbors::Build(const std::vector<Entry>& entries, std::string* err) {
  // Sort indices, not entries, so a duplicate can name both config fields.
  std::vector<size_t> order(entries.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return entries[a].ip < entries[b].ip; });
  for (size_t k = 0; k < order.size(); k++) {
    const size_t i = order[k];
    const std::string f = "neighbors[" + std::to_string(i) + "].ip";
    if (entries[i].ip == 0) {
      *err = f + ": expected an IPv4 address other than 0.0.0.0";
      return false;
    }
    if (k > 0 && entries[order[k - 1]].ip == entries[i].ip) {
      *err = f + ": expected an address not already given (" + Dotted(entries[i].ip) +
             " is neighbors[" + std::to_string(order[k - 1]) + "] too)";
      return false;
    }
  }
  std::vector<uint32_t> ips;
  std::vector<std::array<uint8_t, 6>> macs;
  ips.reserve(order.size());
  macs.reserve(order.size());
  for (size_t i : order) {
    ips.push_back(entries[i].ip);
    macs.push_back(entries[i].mac);
  }
  ips_ = std::move(ips);
  macs_ = std::move(macs);
  return true;
}

bool StaticNeighbors::Lookup(uint32_t ip, uint8_t mac[6]) const {
  const auto it = std::lower_bound(ips_.begin(), ips_.end(), ip);
  if (it == ips_.end() || *it != ip) return false;
  std::memcpy(mac, macs_[static_cast<size_t>(it - ips_.begin())].data(), 6);
  return true;
}

bool StaticNeighbors::Contains(uint32_t ip) const {
  return std::binary_search(ips_.begin(), ips_.end(), ip);
}

}  // namespace pfc::tables
