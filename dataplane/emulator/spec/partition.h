// SPDX-License-Identifier: BSD-3-Clause
// Splitting a fabric over the virtual clock's threads (VirtualClock::Run):
// which partition runs each node. Conservative parallel discrete-event
// simulation: partitions run independently up to the next window boundary,
// and a window is no longer than the shortest delay of a link between two
// partitions (the lookahead), so nothing one partition sends can reach
// another within the window. What the split decides is therefore only
// speed: the partitions' shares of the work (balance) and the links cut
// (each cut link's delay bounds the window).
//
// The split: nodes that must stay together (a host with its switch, both
// ends of a captured link) form groups; groups are ordered breadth first
// over the links from node 0, so a partition is a connected region where it
// can be; the order is cut into `parts` runs of about equal weight. A
// node's weight is the work the fabric's flows are expected to give it
// (NodeWork), its ports where they give none.
//
// Pure: no DPDK, unit-tested in tests/dataplane/emulator/spec.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ctrl/tagger/topology.h"
#include "dataplane/config/config.h"
#include "dataplane/emulator/spec/fabric_spec.h"

namespace pfc::emulator {

// part[n] for every node n of t, in 0..parts-1 (every part non-empty when
// there are at least `parts` groups). `glue`: node pairs that must share a
// partition, besides every host (a node that is not a switch) with its
// neighbours. `work`: each node's expected work (NodeWork), added to its
// ports + 1; empty: the ports alone.
std::vector<uint16_t> PartitionNodes(const tagger::Topology& t, unsigned parts,
                                     const std::vector<std::pair<uint32_t, uint32_t>>& glue,
                                     const std::vector<uint64_t>& work = {});

// The work spec's flows are expected to give each node of spec.topo, in
// switch transmissions: every flow's frames (its bytes, or its rate over its
// time in the run, in 1,000-byte frames) and, for an RC flow, as many ACKs
// back, routed over the shortest paths and spread evenly over equal-cost
// next hops, as ECMP spreads flows on average. A frame counts once at each
// switch it leaves and twice at each host end (sending or receiving one
// costs a host about two switch transmissions: on the HPCC simulator's
// fat-tree the two threads' busy seconds fit 0.31 s per million switch
// transmissions and 0.62 s per million host frames). An estimate for the
// split only: the results do not depend on it.
std::vector<uint64_t> NodeWork(const FabricSpec& spec);

// mpirun -np `ranks`: splits the fabric into ranks x spec->threads
// partitions (PartitionNodes, the captured links' ends together) and
// records them (spec->parts) and this rank's switches (spec->here: rank r
// runs partitions r x threads to r x threads + threads - 1). False with
// *err when the fabric cannot be split so (devices, the real clock, --here;
// a fabric with fewer switch groups than partitions).
bool PlaceRanks(unsigned ranks, unsigned rank, FabricSpec* spec, std::string* err);

// Whether spec.threads partitions (times spec.ranks) can give the one-thread run's results:
// not with DCFIT on a switch
// (configs, parallel to plan's switches: the fabric's DCFIT report follows
// a loop through every switch's state at the moment one is found). False
// with *err naming the file, the option and why.
bool CheckThreads(const FabricSpec& spec, const std::vector<std::string>& switch_names,
                  const std::vector<config::SwitchConfig>& configs, std::string* err);

}  // namespace pfc::emulator
