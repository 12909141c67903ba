// SPDX-License-Identifier: BSD-3-Clause
// Expected lossless paths (ELP, Tagger §IV-A): the routes the operator wants
// lossless, given explicitly or as destination-rooted shortest-path trees.
//
// An explicit path is a node list. Its end points are hosts, or a switch,
// which is shorthand for "any host attached to that switch" (so one switch
// path stands for all host pairs of its end switches; a one-switch path [s]
// means host -> s -> another host of s). Intermediate nodes must forward
// (switches, or hosts marked relay). Paths must follow links and be
// loop-free. The class (1..63) is the application class; its packets enter
// the network with tag = class (§VI-A).
//
// Tree ELP (as for Table V): for every switch d with hosts, a shortest-path
// spanning tree of the switch graph rooted at d (ties broken by a hash of
// seed, d and the node: deterministic, thread independent); the ELP is every
// tree path from any host of any switch to any host of d.
//
// Built by the control thread; read-only afterwards (parallel readers).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

struct Path {
  uint8_t cls = 1;
  std::vector<uint32_t> nodes;
};

struct TreeSpec {
  bool enabled = false;
  uint64_t seed = 1;
  uint8_t cls = 1;
};

// Implicit Clos ELP (§IV-B): every walk from a host over switches to a host
// that never leaves a switch by its ingress port and bounces (arrives from a
// higher layer, leaves to a higher layer) at most `bounces` times, for each
// class in `classes` (bit c = class c). Never enumerated: the verifier walks
// it as a dynamic program over (ingress port, tag, bounces) states
// (clos_walks.h). Needs layers on every switch and no relay hosts.
struct ClosSpec {
  bool enabled = false;
  int bounces = 0;
  uint64_t classes = 0;
};

struct Elp {
  std::vector<Path> paths;
  TreeSpec trees;
  ClosSpec clos;
};

// One forwarding step of a path: at `node`, a packet enters on local port
// `in` and leaves on local port `out`; -1 means "each host port of the node"
// (switch shorthand end points).
struct Hop {
  uint32_t node;
  int8_t in;
  int8_t out;
};

// Validates path p of an ELP against t; on error names `file` and
// "paths[i].nodes[j]" with what was expected.
bool ValidatePath(const Topology& t, const Path& p, size_t index, const std::string& file,
                  std::string* err);
// Forwarding steps of a validated path (first = first forwarding node).
std::vector<Hop> PathHops(const Topology& t, const Path& p);

// File format (JSON):
//   { "paths": [ {"class": 1, "nodes": ["h0", "s0", "s3", "h7"]} ],
//     "trees": {"seed": 7, "class": 1} }          // optional
bool LoadElp(const std::string& path, const Topology& t, Elp* elp, std::string* err);
bool ParseElpJson(const std::string& text, const std::string& file, const Topology& t, Elp* elp,
                  std::string* err);
bool SaveElp(const Topology& t, const Elp& elp, const std::string& path, std::string* err);

// Destination-rooted shortest-path trees over the switch graph (see above).
// next(d, a) = local port of switch a toward its parent in the tree of
// destination d (both as switch indices), or kNoParent at the root and for
// unreachable switches. One byte per (d, a): S^2 bytes in total.
class DestTrees {
 public:
  static constexpr uint8_t kNoParent = 0xff;
  // Builds all trees in parallel (TBB). Only for topologies without relays.
  void Build(const Topology& t, uint64_t seed);
  uint32_t size() const { return static_cast<uint32_t>(sw_.size()); }
  uint32_t node_of(uint32_t s) const { return sw_[s]; }
  uint32_t index_of(uint32_t node) const { return idx_[node]; }
  uint8_t next(uint32_t d, uint32_t a) const { return next_[size_t{d} * sw_.size() + a]; }
  // Switch indices with hosts (tree roots and path sources).
  const std::vector<uint32_t>& ends() const { return ends_; }
  // Longest tree path in switch hops over all trees.
  int max_depth() const { return max_depth_; }

 private:
  std::vector<uint32_t> sw_, idx_, ends_;
  std::vector<uint8_t> next_;
  int max_depth_ = 0;
};

// BFS distances (in hops) from switch index d over the switch graph; 0xff =
// unreachable. Uses the same switch indexing as DestTrees.
void SwitchDistances(const Topology& t, const std::vector<uint32_t>& idx_of_node,
                     const std::vector<uint32_t>& switches, uint32_t d, std::vector<uint8_t>* dist);

}  // namespace pfc::tagger
