// SPDX-License-Identifier: BSD-3-Clause
// Everything the packet path reads from the config, as one immutable
// snapshot: the tag map, rewrite table, routes, static neighbours, static L2
// table, and the scalar settings the stages use (mode, burst, checksum
// check, hairpin drop, cell size, PAUSE handling, per-port frame size). The
// control thread builds a whole new Tables, validates it, and publishes it
// with one release store (Switch::Publish); workers load the pointer once
// per poll round (WorkerCtx::t) and report quiescence to an rte_rcu_qsbr,
// after which the old snapshot is freed. A packet therefore sees either the
// old or the new settings, never a mix, and no stage reads Switch::cfg.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/tables/l2_table.h"
#include "dataplane/tables/rewrite_table.h"
#include "dataplane/tables/route_table.h"
#include "dataplane/tables/static_neighbors.h"
#include "dataplane/tables/tag_map.h"

namespace pfc::sw {

struct Tables {
  uint64_t generation = 0;
  tables::TagMap tag_map;
  tables::RewriteTable rewrite;
  tables::RouteTable routes;
  tables::StaticNeighbors neighbors;  // configured; learnt ones are in Switch::neighbors
  tables::StaticL2Table l2;           // static MAC -> port (switch.mode l2)
  size_t rule_count = 0;
  // Some rewrite (a rule, or the unmatched default) can queue a packet at a
  // lossless priority other than the one it came in on: DCFIT then looks at
  // each packet it counts (dcfit_stage.h DcfitTracks); else all are counted.
  bool moves_into_lossless = false;

  // Scalar settings of the packet path (config.h has their meaning).
  bool l3 = true;                                                  // switch.mode
  bool verify_ip_checksum = false;                                 // switch.verify_ip_checksum
  bool hairpin_drop = false;                                       // switch.hairpin_drop
  tables::EcmpHashAlgo ecmp_hash = tables::EcmpHashAlgo::kCrc32c;  // switch.ecmp_hash_*
  uint32_t ecmp_seed = 0;
  bool honor_pause_8023x = false;  // pfc.honor_pause_8023x
  uint16_t burst = kMaxBurst;      // switch.burst
  uint32_t cell_bytes = 1;         // buffer.cell_bytes
  // cell_bytes - 1 when a power of two (0 for 1-byte cells: nothing to
  // round), else kCellDivide: ingress rounds with a mask, not a division.
  static constexpr uint32_t kCellDivide = UINT32_MAX;
  uint32_t cell_mask = 0;
  // ports[i].mtu + 18 (Ethernet header, 802.1Q tag, no FCS): the frame size
  // the egress stage divides the shaper's byte budget by.
  std::array<uint32_t, kMaxPorts> max_frame{};
  // ECN marking by egress (port, priority) (ecn section; off where no
  // profile applies). Read only when Switch::ecn is set.
  std::array<std::array<sched::RedQueue, kNumPrio>, kMaxPorts> ecn{};

  // Builds every table from a validated config. Returns nullptr with *err
  // naming the config field on failure (which Validate() should already have
  // caught, except a neighbour address given twice).
  static std::unique_ptr<Tables> Build(const config::SwitchConfig& cfg, uint64_t generation,
                                       std::string* err);
  int L2Lookup(const uint8_t mac[6]) const { return l2.Lookup(mac); }  // port or -1
};

}  // namespace pfc::sw
