// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/tables_snapshot.h"

#include <cstring>

namespace pfc {

std::unique_ptr<Tables> Tables::Build(const SwitchConfig& cfg, uint64_t generation,
                                      std::string* err) {
  auto t = std::make_unique<Tables>();
  t->generation = generation;
  t->tag_map = cfg.tag_map;
  if (!t->rewrite.Compile(cfg.rewrite, err)) return nullptr;
  if (!t->routes.Build(cfg.routes, cfg.next_hops, err)) return nullptr;
  t->l2 = cfg.l2_table;
  t->rule_count = cfg.rewrite.rules.size();
  return t;
}

int Tables::L2Lookup(const uint8_t mac[6]) const {
  for (const auto& e : l2)
    if (std::memcmp(e.mac.data(), mac, 6) == 0) return e.port;
  return -1;
}

}  // namespace pfc
