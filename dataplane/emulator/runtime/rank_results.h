// SPDX-License-Identifier: BSD-3-Clause
// Results of a run over MPI ranks (ranks.h), gathered by rank 0, which
// writes the files one process would have (results.h), byte for byte: each
// rank sends rank 0 its facts (run_facts.h), then its switches' entries of
// results.json one at a time in name order, which rank 0 takes as it
// writes them (a large fabric's counters never whole in one process).
#pragma once
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/runtime/ranks.h"
#include "dataplane/emulator/runtime/results.h"
#include "dataplane/emulator/runtime/run_facts.h"

namespace pfc::emulator {

// A rank other than 0: its facts, its captures' files and its switches'
// entries to rank 0.
void SendResults(Fabric& fab, const RunFacts& facts, const Ranks& ranks);
// Rank 0: every other rank's facts merged into *facts, in rank order
// (SettleFacts after), then the captures other ranks wrote, written where
// one process would have (false with *err naming a file it cannot write).
void GatherFacts(RunFacts* facts, const Ranks& ranks);
bool GatherCaptures(const Fabric& fab, const Ranks& ranks, std::string* err);
// Rank 0: every switch of the fabric in name order, its entry made here or
// received from the rank that runs it (spec.parts) when it is written; the
// pool's figures in each (one pool per process) the whole fabric's (facts,
// merged).
SwitchEntries GatheredSwitchEntries(const Fabric& fab, const RunFacts& facts, const Ranks& ranks);

}  // namespace pfc::emulator
