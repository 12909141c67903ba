// SPDX-License-Identifier: BSD-3-Clause
// The routes of the implicit Clos ELP (elp.h ClosSpec) without enumerating
// them: which (ingress port, out port) steps, taken with b bounces already
// used, lie on some host-to-host walk of at most B bounces.
//
// A FatTree(32) with 2 bounces has far more loop-free paths than fit in
// memory (FatTree(8) already exceeds 5,000,000), but the set of walks is
// described by the topology's layers alone: a step from ingress port g out of
// local port o bounces when g faces a higher layer and o faces a higher layer
// (Tagger §IV-B). need(g) is the fewest further bounces with which a packet
// that entered on g can still reach a host (never leaving a switch by its
// ingress port); a step is on an ELP walk iff the bounces so far plus this
// step's plus need() at the next ingress stay within B. The verifier runs its
// dynamic program over (port, tag, bounces) states on top of this.
//
// Built once (control thread), read-only afterwards.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

class ClosWalks {
 public:
  // Fails with *err naming the node when a switch has no layer, when the
  // topology has relay hosts, or when bounces is negative.
  bool Init(const Topology& t, int bounces, std::string* err);
  int bounces() const { return bounces_; }
  // 1 when entering on global port g and leaving by local port o is a bounce.
  int Cost(uint32_t g, uint32_t o) const {
    return static_cast<int>(((from_above_[g >> 6] >> (g & 63)) & 1) &
                            ((up_[t_->port_node(g)] >> o) & 1));
  }
  // Whether that step, with `used` bounces before it, is on some ELP walk.
  bool OnWalk(uint32_t g, uint32_t o, int used) const;
  // Fewest further bounces from ingress g to a host (bounces() + 1: none).
  int Need(uint32_t g) const { return need_[g]; }

 private:
  const Topology* t_ = nullptr;
  int bounces_ = 0;
  std::vector<uint64_t> up_;          // per node: local ports facing a higher layer
  std::vector<uint64_t> from_above_;  // bit per global port: its far end is higher
  std::vector<uint8_t> need_;         // per global port
};

// The layer the Clos definitions use: hosts without one count as layer 0.
int ClosLayer(const Topology& t, uint32_t n);
// Checks the topology is a layered Clos with plain hosts (see Init).
bool CheckClosLayers(const Topology& t, const char* what, std::string* err);

}  // namespace pfc::tagger
