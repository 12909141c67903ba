// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/tables_snapshot.h"

#include <cstring>

namespace pfc::sw {

namespace {

// Whether rewriting `tags` to new_tag queues some packet at a lossless
// priority other than its own.
bool Moves(TagMask tags, uint8_t new_tag, const tables::TagMap& tm) {
  const uint8_t to = tm.prio_of[new_tag & 63];
  if (!tm.IsLossless(to)) return false;
  for (int tag = 0; tag < kNumTags; tag++)
    if ((tags >> tag & 1) && tm.prio_of[tag] != to) return true;
  return false;
}

bool MovesIntoLossless(const tables::RewriteConfig& rw, const tables::TagMap& tm) {
  for (const tables::RewriteRule& r : rw.rules)
    if (Moves(r.tags, r.new_tag, tm)) return true;
  return !rw.unmatched_keeps_tag && Moves(kAnyTag, rw.default_tag, tm);
}

}  // namespace

std::unique_ptr<Tables> Tables::Build(const config::SwitchConfig& cfg, uint64_t generation,
                                      std::string* err) {
  auto t = std::make_unique<Tables>();
  t->generation = generation;
  t->tag_map = cfg.tag_map;
  if (!t->rewrite.Compile(cfg.rewrite, err)) return nullptr;
  if (!t->routes.Build(cfg.routes, cfg.next_hops, err)) return nullptr;
  std::vector<tables::StaticNeighbors::Entry> nbs;
  nbs.reserve(cfg.neighbors.size());
  for (const config::NeighborConfig& nb : cfg.neighbors) nbs.push_back({nb.ip, nb.mac});
  if (!t->neighbors.Build(nbs, err)) return nullptr;
  t->l2.Reserve(cfg.l2_table.size());
  for (const config::L2Entry& e : cfg.l2_table) t->l2.Insert(e.mac.data(), e.port);
  t->rule_count = cfg.rewrite.rules.size();
  t->moves_into_lossless = MovesIntoLossless(cfg.rewrite, cfg.tag_map);
  t->l3 = cfg.mode == config::SwitchConfig::Mode::kL3;
  t->verify_ip_checksum = cfg.verify_ip_checksum;
  t->hairpin_drop = cfg.hairpin_drop;
  t->ecmp_hash = cfg.ecmp_hash;
  t->ecmp_seed = cfg.ecmp_seed;
  t->honor_pause_8023x = cfg.pfc.honor_pause_8023x;
  t->burst = static_cast<uint16_t>(cfg.burst);
  t->cell_bytes = cfg.cell_bytes;
  t->cell_mask =
      (cfg.cell_bytes & (cfg.cell_bytes - 1)) == 0 ? cfg.cell_bytes - 1 : Tables::kCellDivide;
  if (cfg.ports.size() > kMaxPorts) {
    *err = "ports: expected at most " + std::to_string(kMaxPorts) + " ports";
    return nullptr;
  }
  for (size_t i = 0; i < cfg.ports.size(); i++) t->max_frame[i] = cfg.ports[i].mtu + 18;
  for (size_t i = 0; i < cfg.ecn.queue.size() && i < cfg.ports.size(); i++)
    for (int q = 0; q < kNumPrio; q++)
      if (cfg.ecn.queue[i][q] >= 0)
        t->ecn[i][q] = sched::RedQueue(cfg.ecn.profiles[cfg.ecn.queue[i][q]]);
  return t;
}

}  // namespace pfc::sw
