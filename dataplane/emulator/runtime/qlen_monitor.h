// SPDX-License-Identifier: BSD-3-Clause
// Queue lengths as the HPCC simulator's monitor takes them (its
// QLEN_MON_START/END, scratch/third.cc monitor_buffer): every switch
// port's egress queue bytes, every priority together, sampled every
// interval from start to end inclusive, each sample counted in its
// 1,000-byte bucket (monitor.qlen in the fabric file, FabricSpec::qlen_mon).
//
// On the virtual clock a switch's queues change only in its own rounds, so
// no event is needed at every instant: before each round the instants
// since the switch's previous one are counted at once, at the lengths that
// round left (a sample at time t sees every round at times <= t), and the
// instants after its last round at the end. A port's bytes are its queues'
// depths the switch keeps (stages/ecn_stage.h: every queue with INT on, the
// ECN-profiled ones otherwise).
//
// Threads: switch i's state is written only by the thread that runs it
// (BeforeRound); Finish and Rows on the clock's thread after the run.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "dataplane/emulator/runtime/fabric.h"

namespace pfc::emulator {

class QlenMonitor {
 public:
  // Off unless the file asks (monitor.qlen).
  void Init(const Fabric& fab);
  bool on() const { return interval_ != 0; }

  // Before switch i's round at `now`.
  void BeforeRound(uint32_t i, const stages::WorkerCtx& ctx, uint64_t now) {
    Sw& s = *sw_[i];
    if (s.mark < now && s.mark <= end_) Count(s, ctx, now);
  }
  // After the run, whose last instant was `last`: the instants up to it.
  void Finish(const Fabric& fab, uint64_t last);

  // Samples by (switch index here, port, bucket of 1,000 bytes), the
  // non-zero ones, in that order.
  struct Row {
    uint32_t sw;
    uint16_t port;
    uint32_t kb;
    uint64_t samples;
  };
  std::vector<Row> Rows() const;

 private:
  struct alignas(64) Sw {
    uint64_t mark = 0;                        // the next instant not yet counted
    std::vector<std::vector<uint64_t>> hist;  // [port][kb]
  };
  // The instants in [mark, min(before, end + 1)) at the lengths now.
  void Count(Sw& s, const stages::WorkerCtx& ctx, uint64_t before);

  std::vector<std::unique_ptr<Sw>> sw_;
  uint64_t start_ = 0, end_ = 0, interval_ = 0;
};

}  // namespace pfc::emulator
