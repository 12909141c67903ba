// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/tables/static_neighbors.h"

#include <algorithm>
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
  // Twice the entries or more, so that a probe meets an empty slot soon;
  // the slot count, a power of two, must fit the 32-bit mask.
  constexpr size_t kMaxEntries = size_t{1} << 30;
  if (order.size() > kMaxEntries) {
    *err = "neighbors: " + std::to_string(order.size()) + " entries, expected at most " +
           std::to_string(kMaxEntries);
    return false;
  }
  uint32_t cap = 1;
  while (cap < 2 * order.size()) cap <<= 1;
  std::vector<Slot> slots(cap);
  for (const Entry& e : entries) {
    uint32_t k = Home(e.ip, cap - 1);
    while (slots[k].ip != 0) k = (k + 1) & (cap - 1);
    slots[k] = {e.ip, e.mac};
  }
  slots_ = std::move(slots);
  mask_ = cap - 1;
  size_ = entries.size();
  return true;
}

}  // namespace pfc::tables
