// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/clos_walks.h"

#include <algorithm>

namespace pfc::tagger {

int ClosLayer(const Topology& t, uint32_t n) {
  return t.node(n).layer < 0 && !t.is_switch(n) ? 0 : t.node(n).layer;
}

bool CheckClosLayers(const Topology& t, const char* what, std::string* err) {
  bool hosts = false;
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    if (t.is_switch(n) && t.node(n).layer < 0) {
      *err = std::string(what) + ": switch '" + t.node(n).name +
             "' has no layer (set \"layer\" in the topology)";
      return false;
    }
    hosts |= t.is_switch(n) && t.has_hosts(n);
  }
  if (t.has_relays() || !hosts) {
    *err = std::string(what) + ": expected a Clos topology of switches with layers and plain hosts";
    return false;
  }
  return true;
}

bool ClosWalks::Init(const Topology& t, int bounces, std::string* err) {
  if (bounces < 0 || bounces > 62) {
    *err = "clos walks: bounces: expected 0..62";
    return false;
  }
  if (!CheckClosLayers(t, "clos walks", err)) return false;
  t_ = &t;
  bounces_ = bounces;
  up_.assign(t.num_nodes(), 0);
  from_above_.assign((t.num_ports() + 63) / 64, 0);
  for (uint32_t a = 0; a < t.num_nodes(); ++a) {
    const Node& na = t.node(a);
    for (uint32_t i = 0; i < na.num_ports; ++i) {
      const uint32_t g = na.first_port + i;
      if (ClosLayer(t, t.neighbor(g)) > ClosLayer(t, a)) {
        up_[a] |= uint64_t{1} << i;
        from_above_[g >> 6] |= uint64_t{1} << (g & 63);
      }
    }
  }
  // need(g) as a fixed point of need(g) = min over o != in of Cost(g, o) +
  // (o faces a host ? 0 : need(peer of o)); values capped at bounces + 1, so
  // relaxation ends after at most (bounces + 2) * diameter rounds.
  const auto none = static_cast<uint8_t>(bounces + 1);
  need_.assign(t.num_ports(), none);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t g = 0; g < t.num_ports(); ++g) {
      const uint32_t a = t.port_node(g);
      if (!t.forwards(a)) continue;
      const uint32_t in = t.local(g);
      uint8_t best = need_[g];
      for (uint32_t o = 0; o < t.node(a).num_ports && best; ++o) {
        if (o == in) continue;
        const uint32_t w = t.peer(t.gport(a, o));
        const int c = Cost(g, o) + (t.forwards(t.port_node(w)) ? need_[w] : 0);
        best = static_cast<uint8_t>(std::min<int>(best, c));
      }
      if (best < need_[g]) need_[g] = best, changed = true;
    }
  }
  return true;
}

bool ClosWalks::OnWalk(uint32_t g, uint32_t o, int used) const {
  const uint32_t a = t_->port_node(g);
  if (o == t_->local(g)) return false;
  const int b = used + Cost(g, o);
  if (b > bounces_) return false;
  const uint32_t w = t_->peer(t_->gport(a, o));
  return !t_->forwards(t_->port_node(w)) || b + need_[w] <= bounces_;
}

}  // namespace pfc::tagger
