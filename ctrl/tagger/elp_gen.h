// SPDX-License-Identifier: BSD-3-Clause
// ELP generators (Tagger §IV-A, §VI-B, §VIII-C): shortest paths (all, or up
// to K per pair), Clos up-down and k-bounce paths, random extra paths.
// Explicit paths use switch end points ("any host of that switch") unless
// the topology has relay hosts (BCube), where end points are the hosts.
// Each generator appends to elp->paths and fails with *err when it would
// produce more than max_paths paths. Deterministic for a seed; control thread.
#pragma once
#include <cstdint>
#include <string>

#include "ctrl/tagger/elp.h"
#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

// All shortest paths between every pair of end points (per_pair = 0), or the
// first per_pair of them in a seeded random order.
bool GenShortestPaths(const Topology& t, int per_pair, uint64_t seed, uint8_t cls, size_t max_paths,
                      Elp* elp, std::string* err);
// Clos: loop-free switch paths between ToRs with at most `bounces` bounces (a
// bounce: arrive from a higher layer, leave to a higher layer), at most
// 2 * bounces * (top layer - ToR layer) hops longer than the shortest path.
// bounces = 0 gives the shortest up-down (valley-free) paths.
bool GenClosPaths(const Topology& t, int bounces, uint8_t cls, size_t max_paths, Elp* elp,
                  std::string* err);
// The same ELP implicitly (elp.h ClosSpec, for class cls): every walk with at
// most `bounces` bounces, which includes all of GenClosPaths' paths (those
// are also loop-free and within the length slack). Verify() checks it without
// enumeration; fails like ClosWalks::Init, or when classes differ in bounces.
bool SetClosSpec(const Topology& t, int bounces, uint8_t cls, Elp* elp, std::string* err);
// Replaces an implicit Clos ELP by GenClosPaths' paths of each of its
// classes, for what needs explicit paths (greedy, brute force, analyze, ELP
// files). No-op without one.
bool ExpandClosSpec(const Topology& t, size_t max_paths, Elp* elp, std::string* err);
// n random loop-free paths between random end switches, no longer than
// max_hops switch-to-switch hops (0: the switch graph's diameter).
bool GenRandomPaths(const Topology& t, size_t n, int max_hops, uint64_t seed, uint8_t cls, Elp* elp,
                    std::string* err);

}  // namespace pfc::tagger
