// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/schemes.h"

#include "ctrl/tagger/clos_walks.h"

namespace pfc::tagger {

bool BruteForceTags(const Topology& t, const Elp& elp, TagRules* out, std::string* err) {
  if (elp.trees.enabled) {
    *err = "brute force (algorithm 1) takes explicit paths only; expand the trees or use greedy";
    return false;
  }
  *out = TagRules(t.num_ports());
  for (size_t p = 0; p < elp.paths.size(); ++p) {
    const auto hops = PathHops(t, elp.paths[p]);
    int tag = elp.paths[p].cls;
    if (tag + static_cast<int>(hops.size()) > kMaxTag) {
      *err = "paths[" + std::to_string(p) + "] needs tag " + std::to_string(tag + hops.size()) +
             " > 63 under algorithm 1";
      return false;
    }
    for (const Hop& h : hops) {
      const uint64_t outs = h.out < 0 ? t.host_mask(h.node) : uint64_t{1} << h.out;
      const auto nt = static_cast<uint8_t>(tag + 1);
      if (h.in < 0) {
        for (uint64_t m = t.host_mask(h.node); m; m &= m - 1) {
          const uint32_t hp = static_cast<uint32_t>(__builtin_ctzll(m));
          out->Add(t.gport(h.node, hp), static_cast<uint8_t>(tag), nt, outs & ~(uint64_t{1} << hp));
        }
      } else {
        out->Add(t.gport(h.node, h.in), static_cast<uint8_t>(tag), nt,
                 outs & ~(uint64_t{1} << h.in));
      }
      ++tag;
    }
  }
  return true;
}

bool ClosBounceTags(const Topology& t, int classes, int bounces, TagRules* out, std::string* err) {
  if (classes < 1 || bounces < 0 || classes + bounces > kMaxTag) {
    *err = "clos scheme: expected classes >= 1, bounces >= 0 and classes + bounces <= 63";
    return false;
  }
  for (uint32_t n = 0; n < t.num_nodes(); ++n)
    if (t.forwards(n) && t.node(n).layer < 0) {
      *err =
          "clos scheme: node '" + t.node(n).name + "' has no layer (set \"layer\" in the topology)";
      return false;
    }
  const int max_tag = classes + bounces;
  *out = TagRules(t.num_ports());
  for (uint32_t a = 0; a < t.num_nodes(); ++a) {
    if (!t.forwards(a)) continue;
    const Node& na = t.node(a);
    uint64_t up = 0;
    for (uint32_t i = 0; i < na.num_ports; ++i)
      if (ClosLayer(t, t.neighbor(na.first_port + i)) > na.layer) up |= uint64_t{1} << i;
    const uint64_t all = na.num_ports == 64 ? ~uint64_t{0} : (uint64_t{1} << na.num_ports) - 1;
    for (uint32_t i = 0; i < na.num_ports; ++i) {
      const uint64_t self = uint64_t{1} << i;
      const bool from_above = (up >> i) & 1;
      // Hairpins (out == in) are never on a loop-free path: leave them lossy.
      const uint64_t keep = (from_above ? all & ~up : all) & ~self;
      const uint64_t bounce = (from_above ? up : 0) & ~self;
      // Hosts only send their class tags 1..classes.
      const bool from_host = !t.forwards(t.neighbor(na.first_port + i));
      const int top = from_host ? classes : max_tag;
      for (int tag = 1; tag <= top; ++tag) {
        out->Add(na.first_port + i, static_cast<uint8_t>(tag), static_cast<uint8_t>(tag), keep);
        if (tag < max_tag)
          out->Add(na.first_port + i, static_cast<uint8_t>(tag), static_cast<uint8_t>(tag + 1),
                   bounce);
      }
    }
  }
  return true;
}

}  // namespace pfc::tagger
