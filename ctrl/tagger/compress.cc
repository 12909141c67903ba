// SPDX-License-Identifier: BSD-3-Clause
// Rule compression (Tagger §VII-C): a node's uncompressed tagging function
// as few TCAM-style rules as possible (see rules_file.h for the scheme).
#include <algorithm>
#include <map>
#include <tuple>

#include "ctrl/tagger/rules_file.h"

namespace pfc::tagger {
namespace {

// Groups the sets m[k] (k = 0..n-1) into products {keys} x set. With dc the
// pair (k, k) is don't-care, so m[k] may be read with or without bit k: each
// set takes whichever of the two forms more sets share.
std::map<uint64_t, uint64_t> Group(const uint64_t m[64], uint32_t n, bool dc) {
  std::map<uint64_t, uint64_t> out;  // set -> keys
  if (!dc) {
    for (uint32_t k = 0; k < n; ++k)
      if (m[k]) out[m[k]] |= uint64_t{1} << k;
    return out;
  }
  std::map<uint64_t, int> freq;
  for (uint32_t k = 0; k < n; ++k) {
    if (!m[k]) continue;
    ++freq[m[k] | uint64_t{1} << k];
    ++freq[m[k] & ~(uint64_t{1} << k)];
  }
  for (uint32_t k = 0; k < n; ++k) {
    if (!m[k]) continue;
    const uint64_t with = m[k] | uint64_t{1} << k, without = m[k] & ~(uint64_t{1} << k);
    const uint64_t pick = without && freq[without] >= freq[with] ? without : with;
    out[pick] |= uint64_t{1} << k;
  }
  return out;
}

// Covers relation rows[i] (out set of in-port i) with products I x O: by
// rows (in-ports sharing an out set) or by columns, whichever is smaller.
std::vector<std::pair<uint64_t, uint64_t>> Cover(const uint64_t rows[64], uint32_t nports,
                                                 bool dc) {
  uint64_t cols[64] = {};
  for (uint32_t i = 0; i < nports; ++i)
    for (uint64_t m = rows[i]; m; m &= m - 1) cols[__builtin_ctzll(m)] |= uint64_t{1} << i;
  const auto by_row = Group(rows, nports, dc);
  const auto by_col = Group(cols, nports, dc);
  std::vector<std::pair<uint64_t, uint64_t>> out;
  if (by_row.size() <= by_col.size())
    for (const auto& [row, ins] : by_row) out.push_back({ins, row});
  else
    for (const auto& [col, outs] : by_col) out.push_back({col, outs});
  return out;
}

// Joins rules that differ in exactly one of (tags, in, out): the union of two
// products sharing two factors is again a product.
void JointAggregate(std::vector<Rule>* rules) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (int field = 0; field < 3; ++field) {
      std::map<std::tuple<uint64_t, uint64_t, uint8_t, int32_t>, size_t> key_to;
      std::vector<Rule> merged;
      for (const Rule& r : *rules) {
        std::tuple<uint64_t, uint64_t, uint8_t, int32_t> key =
            field == 0   ? std::make_tuple(r.in, r.out, r.new_tag, r.priority)
            : field == 1 ? std::make_tuple(r.tags, r.out, r.new_tag, r.priority)
                         : std::make_tuple(r.tags, r.in, r.new_tag, r.priority);
        auto it = key_to.find(key);
        if (it == key_to.end()) {
          key_to.emplace(key, merged.size());
          merged.push_back(r);
          continue;
        }
        Rule& m = merged[it->second];
        if (field == 0)
          m.tags |= r.tags;
        else if (field == 1)
          m.in |= r.in;
        else
          m.out |= r.out;
        changed = true;
      }
      rules->swap(merged);
    }
  }
}

}  // namespace

namespace {

std::vector<Rule> CompressTags(const Topology& t, const TagRules& r, uint32_t node, bool dc) {
  const Node& n = t.node(node);
  const uint64_t all = AllPorts(n.num_ports);
  // tag -> new tag -> rows[in] = out set.
  std::map<uint8_t, std::map<uint8_t, std::vector<uint64_t>>> rel;
  for (uint32_t i = 0; i < n.num_ports; ++i)
    for (const RuleEntry& e : r.entries(n.first_port + i)) {
      auto& rows = rel[e.tag][e.new_tag];
      if (rows.empty()) rows.assign(64, 0);
      rows[i] |= e.outs;
    }
  std::vector<Rule> rules;
  for (auto& [tag, by_y] : rel) {
    const uint64_t tbit = uint64_t{1} << tag;
    // Plain: every new tag's (in, out) pairs as products, priority 0.
    std::vector<Rule> plain;
    for (const auto& [y, rows] : by_y)
      for (const auto& [ins, outs] : Cover(rows.data(), n.num_ports, dc))
        plain.push_back({tbit, ins, outs, y, 0});
    // Default + exceptions: "tag, any in, any out -> d" at priority 0 for the
    // most common new tag d, and every other result (lossy included) as
    // priority-1 products on top. Exact as well; kept when smaller.
    std::vector<uint64_t> lossy(64, 0);
    uint8_t d = 0;
    uint64_t best = 0;
    for (uint32_t i = 0; i < n.num_ports; ++i) {
      uint64_t used = 0;
      for (const auto& [y, rows] : by_y) used |= rows[i];
      lossy[i] = all & ~used & (dc ? ~(uint64_t{1} << i) : all);
    }
    for (const auto& [y, rows] : by_y) {
      uint64_t cnt = 0;
      for (uint32_t i = 0; i < n.num_ports; ++i)
        cnt += __builtin_popcountll(dc ? rows[i] & ~(uint64_t{1} << i) : rows[i]);
      if (cnt > best) best = cnt, d = y;
    }
    std::vector<Rule> exc{{tbit, all, all, d, 0}};
    by_y[kLossyTag] = lossy;  // lossy pairs are exceptions too
    for (const auto& [y, rows] : by_y) {
      if (y == d) continue;
      for (const auto& [ins, outs] : Cover(rows.data(), n.num_ports, dc))
        exc.push_back({tbit, ins, outs, y, 1});
    }
    auto& pick = exc.size() < plain.size() ? exc : plain;
    rules.insert(rules.end(), pick.begin(), pick.end());
  }
  JointAggregate(&rules);
  return rules;
}

// Exact rules from the don't-care ones: when every hairpin (in == out) of the
// node is lossy, compress as if hairpins were don't-care and put one
// top-priority "tags x {i} x {i} -> lossy" rule per port i on which those
// rules would let a hairpin stay lossless. On a Clos switch whose rules
// depend only on the directions of in and out ports, that is num_ports + a
// handful instead of a few rules per port and tag. Empty when not exact.
std::vector<Rule> HairpinExceptions(const Topology& t, const TagRules& r, uint32_t node) {
  const Node& n = t.node(node);
  for (uint32_t i = 0; i < n.num_ports; ++i)
    for (const RuleEntry& e : r.entries(n.first_port + i))
      if (((e.outs >> i) & 1) && e.new_tag != kLossyTag) return {};
  std::vector<Rule> rules = CompressTags(t, r, node, true);
  int32_t top = 0;
  for (const Rule& x : rules) top = std::max(top, x.priority + 1);
  uint64_t tags = 0;
  for (const Rule& x : rules) tags |= x.tags;
  std::vector<Rule> exc;
  for (uint32_t i = 0; i < n.num_ports; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    // Tags whose hairpin at i the rules might make lossless: rules of equal
    // priority may overlap on don't-care pairs, so any lossless one among
    // the highest-priority matches counts.
    uint64_t leak = 0;
    for (uint64_t tm = tags; tm; tm &= tm - 1) {
      const int tg = __builtin_ctzll(tm);
      int32_t prio = -1;
      bool lossless = false;
      for (const Rule& x : rules) {
        if (!((x.tags >> tg) & 1) || !(x.in & bit) || !(x.out & bit) || x.priority < prio) continue;
        if (x.priority > prio) prio = x.priority, lossless = false;
        lossless |= x.new_tag != kLossyTag;
      }
      if (lossless) leak |= uint64_t{1} << tg;
    }
    if (leak) exc.push_back({leak, bit, bit, kLossyTag, top});
  }
  rules.insert(rules.end(), exc.begin(), exc.end());
  return rules;
}

}  // namespace

std::vector<Rule> CompressNode(const Topology& t, const TagRules& r, uint32_t node, bool dc) {
  std::vector<Rule> rules = CompressTags(t, r, node, dc);
  if (!dc) {
    std::vector<Rule> alt = HairpinExceptions(t, r, node);
    if (!alt.empty() && alt.size() < rules.size()) rules.swap(alt);
  }
  // Higher priority first (the order a TCAM would hold them), then stable.
  std::sort(rules.begin(), rules.end(), [](const Rule& a, const Rule& b) {
    return std::make_tuple(-a.priority, a.tags, a.new_tag, a.in, a.out) <
           std::make_tuple(-b.priority, b.tags, b.new_tag, b.in, b.out);
  });
  return rules;
}

}  // namespace pfc::tagger
