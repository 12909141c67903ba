// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/tag_rules.h"

namespace pfc::tagger {

bool TagRules::Add(uint32_t g, uint8_t tag, uint8_t new_tag, uint64_t outs) {
  auto& v = by_port_[g];
  for (const auto& e : v)
    if (e.tag == tag && e.new_tag != new_tag && (e.outs & outs)) return false;
  for (auto& e : v)
    if (e.tag == tag && e.new_tag == new_tag) {
      e.outs |= outs;
      return true;
    }
  if (outs) v.push_back({tag, new_tag, outs});
  return true;
}

uint8_t TagRules::Lookup(uint32_t g, uint8_t tag, uint32_t out) const {
  for (const auto& e : by_port_[g])
    if (e.tag == tag && ((e.outs >> out) & 1)) return e.new_tag;
  return kLossyTag;
}

uint64_t TagRules::Triples() const {
  uint64_t n = 0;
  for (const auto& v : by_port_)
    for (const auto& e : v) n += __builtin_popcountll(e.outs);
  return n;
}

TagSummary Summarize(const Topology& t, const TagRules& r) {
  TagSummary s;
  uint64_t at_fwd = 0, all = 0;
  for (uint32_t g = 0; g < r.num_ports(); ++g) {
    const uint32_t a = t.port_node(g);
    for (const auto& e : r.entries(g)) {
      if (t.forwards(a)) at_fwd |= uint64_t{1} << e.tag;
      all |= uint64_t{1} << e.tag | uint64_t{1} << e.new_tag;
      // The new tag reaches the neighbour's ingress: count it there when the
      // neighbour forwards (it must queue and rewrite it).
      for (uint64_t m = e.outs; m; m &= m - 1) {
        const uint32_t o = static_cast<uint32_t>(__builtin_ctzll(m));
        if (t.forwards(t.neighbor(t.gport(a, o)))) at_fwd |= uint64_t{1} << e.new_tag;
      }
      s.triples += __builtin_popcountll(e.outs);
    }
  }
  at_fwd &= ~uint64_t{1};
  all &= ~uint64_t{1};
  s.priorities = __builtin_popcountll(at_fwd);
  s.tags_total = __builtin_popcountll(all);
  s.max_tag = all ? 63 - __builtin_clzll(all) : 0;
  return s;
}

}  // namespace pfc::tagger
