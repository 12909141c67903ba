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
// can be; the order is cut into `parts` runs of about equal weight (a
// node's weight: its ports, the frames it handles scale with them).
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
// neighbours.
std::vector<uint16_t> PartitionNodes(const tagger::Topology& t, unsigned parts,
                                     const std::vector<std::pair<uint32_t, uint32_t>>& glue);

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
