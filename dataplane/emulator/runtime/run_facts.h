// SPDX-License-Identifier: BSD-3-Clause
// What the results and the verdict read of a run (results.h, verdict.h),
// taken off one process's fabric and clock after Run, in a form that
// adds up: over MPI ranks each takes its own and rank 0 merges them
// (rank_results.h) before it writes the files one process would have.
// Switches are named by their index in the whole fabric
// (FabricPlan::all_switches), so the merged rows sort as one process's.
//
// The switches' own counters (results.json "switches") are not here: one
// switch's JSON at a time is written (results.cc) or sent (rank_results.cc).
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/common/types.h"
#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/runtime/clock.h"
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/emulator/runtime/recorder.h"

namespace pfc::emulator {

struct RunFacts {
  uint64_t end_ns = 0, rounds = 0;
  // The signal that ended the run before its duration ("SIGINT"; empty: it
  // ran to its end). Set by rank 0, which writes the results.
  std::string interrupted;
  // Frames the switches dropped, [on a lossless priority][reason].
  std::array<std::array<uint64_t, kNumDropReasons>, 2> drops{};
  uint64_t link_down = 0;    // lost with a link going down (ends' tx_down + rx_stale)
  uint64_t rank_nombuf = 0;  // lost between MPI ranks: no mbuf (Clock::rank_frames_dropped)
  uint64_t ring_full = 0;    // lost at a link end's full receive ring (EmuPortCounters)
  // Per flow of the file: results.json's object as far as it is known
  // here (the sender's keys where it runs, the receiver's where it does);
  // the receiver's bins from bin bin_from on (flows.csv; empty elsewhere);
  // the completion time of a sized flow where it is known (fct_here).
  std::vector<nlohmann::json> flows;
  std::vector<std::vector<uint64_t>> bins;
  std::vector<uint64_t> bin_from;
  std::vector<Fct> fct;
  std::vector<uint8_t> fct_here;
  nlohmann::json hosts = nlohmann::json::object();
  std::vector<std::pair<uint32_t, nlohmann::json>> pfcwd;  // (switch, event)
  // The timeline's lines, one per event applied (empty: applied elsewhere).
  std::vector<std::string> events;
  nlohmann::json dcfit_events = nlohmann::json::array();
  // The recorder's rows (PortSample::sw the switch's index in the whole
  // fabric) and its drop samples; whether link drops were sampled.
  std::vector<PortSample> rows;
  std::vector<DropSample> drop_rows;
  bool exact = true;
  // The switches whose state is here, by index in the whole fabric.
  std::vector<uint8_t> switch_here;
  uint64_t pool_mbufs = 0;  // the frames' pool's mbufs at the end (timing.json)
  // Its mbufs in use at the end and its share of one process's pool
  // (Fabric::pool_share): every switch's pool_in_use and pool_size over MPI
  // ranks, where each rank has a pool of its own.
  uint64_t pool_in_use = 0, pool_share = 0;
  // monitor.qlen's samples (QlenMonitor::Row, sw the index in the whole
  // fabric).
  std::vector<QlenMonitor::Row> qlen;
  // Each process's peak resident set when its facts were taken (KB; one
  // entry a rank, in rank order): timing.json's peak_rss_mb.
  std::vector<uint64_t> peak_rss_kb;
};

// This process's facts after `run` ran `fab` (SettleFacts before use).
RunFacts CollectFacts(const Fabric& fab, const Clock& run);

// The whole fabric's switches as the facts name them: the plan's list, or
// (a plan KeepLocal never saw) its switches.
std::vector<FabricPlan::SwitchNames> AllSwitches(const FabricPlan& plan);

// Lossless drops (not a routing loop's victims, nor what DCFIT or the storm
// watchdog chose: PFC_DROP_REASONS) and drops of one reason.
uint64_t LosslessDrops(const RunFacts& f);
uint64_t DropsOf(const RunFacts& f, DropReason r);

// For MPI: the facts as bytes (CBOR) and back, and `from` added to `into`
// (rank 0, in rank order); Settle after the last merge (rows in one
// process's order, the events' lines in place).
std::string PackFacts(const RunFacts& f);
RunFacts UnpackFacts(const std::string& bytes);
void MergeFacts(RunFacts* into, RunFacts&& from);
void SettleFacts(RunFacts* f);

}  // namespace pfc::emulator
