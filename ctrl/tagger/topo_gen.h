// SPDX-License-Identifier: BSD-3-Clause
// Generators for the topologies Tagger is evaluated on (Tagger §VIII-C):
// 2-layer leaf-spine Clos, 3-layer FatTree(k), F10's AB FatTree, Jellyfish
// (random regular switch graph) and BCube(n, k) with relaying servers.
//
// Each returns a finalized Topology or false with *err for impossible
// parameters (odd k, too many ports, more nodes than memory holds, ...),
// refused before anything is allocated. Deterministic for a given seed.
// Pure functions, any thread.
#pragma once
#include <cstdint>
#include <string>

#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

// What one generated node costs in memory, its share of the links and port
// lists included, measured (RSS less the program's own) on Tagger's
// Fig. 13 scale, jellyfish:10000:64:32 (330,000 nodes), with a margin.
inline constexpr long kGenBytesPerNode = 512;
// The most nodes (hosts and switches) a generator builds: as many as the
// memory available now holds (MemAvailable) at kGenBytesPerNode, so a
// topology that cannot fit is refused before anything is allocated and one
// that fits is built, whatever its size. A program may set a lower limit
// (the fabric fuzz target keeps each input well under a second);
// SetGenNodeLimit(0) goes back to the memory's.
long GenNodeLimit();
void SetGenNodeLimit(long nodes);

// tors ToRs (layer 1) each with hosts_per_tor hosts (layer 0), every ToR
// linked to every one of spines spines (layer 2). ToR ports: hosts, then spines.
bool GenLeafSpine(int tors, int spines, int hosts_per_tor, Topology* t, std::string* err);
// k-ary FatTree: k pods of k/2 ToRs + k/2 aggregation switches, (k/2)^2 cores,
// k/2 hosts per ToR. Layers: host 0, ToR 1, agg 2, core 3.
bool GenFatTree(int k, Topology* t, std::string* err);
// F10's AB FatTree: as GenFatTree, but odd pods wire aggregation j to cores
// j, j+k/2, j+k, ... (type B) instead of j*k/2 .. j*k/2+k/2-1 (type A).
bool GenF10(int k, Topology* t, std::string* err);
// Jellyfish: `switches` switches with `ports` ports, `switch_ports` of which
// form a random regular graph; the rest connect hosts. Switch ports 0..r-1
// face switches, r..ports-1 face hosts.
bool GenJellyfish(int switches, int ports, int switch_ports, uint64_t seed, Topology* t,
                  std::string* err);
// BCube(n, k): n^(k+1) servers (relay hosts) with k+1 ports, k+1 levels of
// n^k n-port switches; server port l is its level-l link.
bool GenBCube(int n, int k, Topology* t, std::string* err);

// A generator by spec: "jellyfish:N:PORTS:SWITCH_PORTS[:SEED]", "fattree:K",
// "f10:K", "leafspine:TORS:SPINES:HOSTS" or "bcube:N:K" (pfc-tagger
// --topo-gen, the fabric file's topology.gen).
bool GenTopoSpec(const std::string& spec, Topology* t, std::string* err);

}  // namespace pfc::tagger
