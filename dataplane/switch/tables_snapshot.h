// SPDX-License-Identifier: BSD-3-Clause
// The immutable set of lookup tables a worker uses for one burst: tag map,
// rewrite table, routes, static L2 table. The control thread builds a whole
// new Tables, validates it, and publishes it with one release store
// (Runtime::Publish); workers load the pointer once per poll round and report
// quiescence to an rte_rcu_qsbr, after which the old snapshot is freed. A
// packet therefore sees either the old or the new table set, never a mix.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/tables/rewrite_table.h"
#include "dataplane/tables/route_table.h"
#include "dataplane/tables/tag_map.h"

namespace pfc {

struct Tables {
  uint64_t generation = 0;
  TagMap tag_map;
  RewriteTable rewrite;
  RouteTable routes;
  std::vector<L2Entry> l2;  // static, small: scanned (L2 mode is a test aid)
  size_t rule_count = 0;

  // Builds every table from a validated config. Returns nullptr with *err on
  // failure (which Validate() should already have caught).
  static std::unique_ptr<Tables> Build(const SwitchConfig& cfg, uint64_t generation,
                                       std::string* err);
  int L2Lookup(const uint8_t mac[6]) const;  // port or -1
};

}  // namespace pfc
