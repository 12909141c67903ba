// SPDX-License-Identifier: BSD-3-Clause
// What a run leaves behind in the file's out_dir, from the fabric's
// read-only view and what the clock recorded: results.json (with the
// run's verdict, verdict.h), flows.csv, ports.csv and drops.csv (the
// recorder's), fct.csv when some flow is sized, and timing.json (the
// run's wall time, the start-up before it and the mbufs the pool grew
// to: the wall-clock facts apart, so the rest is byte-identical across
// runs). On the clock's thread, after Run.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/runtime/run_facts.h"
#include "dataplane/emulator/runtime/window_times.h"

namespace pfc::emulator {

// One switch's entry of results.json's "switches": its counters
// (StatsJson) and its mechanisms' own (MechanismState::ReportCounters:
// DCFIT's detector's).
nlohmann::json SwitchResults(const SwitchRun& s);
// This process's switches in name order (JSON objects sort their keys).
std::vector<const SwitchRun*> SwitchesByName(const Fabric& fab);

// results.json's switches, in name order: entry(i) makes names[i]'s JSON
// when it is written (over MPI ranks rank 0 receives it then).
struct SwitchEntries {
  std::vector<std::string> names;
  std::function<nlohmann::json(size_t)> entry;
};
SwitchEntries LocalSwitchEntries(const Fabric& fab);

// What the run took of the real clock and the machine, for timing.json
// (never results.json, which stays byte-identical across runs).
struct RunTiming {
  double wall_seconds = 0;             // the run
  double cpu_seconds = 0;              // the run's CPU time, every thread of the process
  double startup_seconds = 0;          // process start to the run's first step
  bool malloc_huge_pages = false;      // the heap on transparent huge pages (huge_pages.h)
  uint64_t entity_window_ns = kNever;  // Clock::entity_window_ns
  WindowTimes threads;                 // Clock::window_times (--threads)
};

// The files, from the settled facts (run_facts.h) and the switches' entries;
// `all` names the fabric's switches by the facts' index (AllSwitches).
// Takes the facts: each flow's object moves into results.json's rather than
// being copied (a copy of 30,000 flows' objects was a tenth of the peak RSS).
bool WriteResults(const FabricSpec& spec, const std::vector<FabricPlan::SwitchNames>& all,
                  RunFacts&& facts, const SwitchEntries& switches, const RunTiming& timing,
                  const nlohmann::json& verdict, std::string* err);

}  // namespace pfc::emulator
