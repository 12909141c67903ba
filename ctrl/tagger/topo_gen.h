// SPDX-License-Identifier: BSD-3-Clause
// Generators for the topologies Tagger is evaluated on (Tagger §VIII-C):
// 2-layer leaf-spine Clos, 3-layer FatTree(k), F10's AB FatTree, Jellyfish
// (random regular switch graph) and BCube(n, k) with relaying servers.
//
// Each returns a finalized Topology or false with *err for impossible
// parameters (odd k, too many ports, more than kMaxGenNodes nodes, ...),
// refused before anything is allocated. Deterministic for a given seed.
// Pure functions, any thread.
#pragma once
#include <cstdint>
#include <string>

#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

// The most nodes (hosts and switches) a generator builds: 100 times the
// largest fabric the emulator is measured on (bench/fabric_scale.sh), far
// beyond what pfc-tagger's ELP walks use, and built in well under a second.
// Before, the fabric loader built whatever it was asked for: "bcube:2:18"
// (5.5 million nodes) took 14 s and 1.4 GB, "bcube:4:8" (851,968) 13 s on a
// loaded machine (both found by the fabric fuzz target, under ASan), and a
// Jellyfish of 10^8 switches was tried.
inline constexpr long kMaxGenNodes = 100'000;

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
