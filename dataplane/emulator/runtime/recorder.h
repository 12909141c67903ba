// SPDX-License-Identifier: BSD-3-Clause
// Time series of an emulated fabric, one row per (bin, switch, port,
// priority) for the lossless priorities and the lossy one: whether the
// port's egress is paused by its peer, whether it holds its peer paused,
// ingress buffer occupancy, and bytes transmitted in the bin. Flow rates come
// from the receiving hosts' own per-flow bins (emulator::FlowRx). And one row per
// bin of the frames lost in it over the whole fabric, counted as the
// verdict's "lost" counts them (drops.csv), for a loss-over-time plot.
//
// Reads the fabric through its read-only view (fabric.h). Written by the
// thread that runs the clock (the virtual clock's main thread at a
// boundary, or the real clock's main thread); read when results are
// written, after the run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/emulator/port/emu_port.h"
#include "dataplane/emulator/runtime/fabric.h"
#include "dataplane/switch/switch.h"

namespace pfc::emulator {

struct PortSample {
  uint64_t t_ns;
  uint16_t sw, port;
  uint8_t prio;
  uint8_t paused, pausing;
  uint64_t buffer_bytes;
  uint64_t tx_bytes;  // since the previous sample
  uint64_t span_ns;   // since the previous sample (a bin, or more when late)
};

// Frames dropped since the previous sample: by the switches on lossless and
// on lossy priorities (every reason), and by links that were down (on the
// wire or sent then: EmuPortCounters rx_stale + tx_down).
struct DropSample {
  uint64_t t_ns;
  uint64_t lossless, lossy, link_down;
};

class Recorder {
 public:
  // Every switch of fab, a sample every file's bin. exact: read pause
  // state from the ports' owner state (the virtual clock, whose thread
  // owns it at a sample), and the link ends' drops at each sample;
  // otherwise pause state from the published counters, and no link drops
  // (on the real clock the link ends' owners are the workers).
  void Init(const Fabric& fab, bool exact);
  uint64_t next_ns() const { return next_ns_; }
  // Takes the samples due by now: on the virtual clock one per bin boundary
  // passed (the clock stops at each); on the real clock one, at the last
  // boundary passed, spanning every bin since the previous sample (a control
  // loop held up, e.g. by a rules reload, leaves a gap, not copies of now).
  void Sample(uint64_t now_ns);
  // What it took (results.h writes them: ports.csv, drops.csv), and
  // whether the links' drops were among it.
  const std::vector<PortSample>& rows() const { return rows_; }
  const std::vector<DropSample>& drops() const { return drops_; }
  bool exact() const { return exact_; }

 private:
  std::vector<const sw::Switch*> sw_;
  uint64_t bin_ns_ = 1'000'000;
  // fabric.series_start: its first sample, at start_ns_ (when not 0), is
  // the baseline that the first bin's counts are taken from; it writes no
  // row.
  uint64_t start_ns_ = 0;
  uint64_t next_ns_ = 0;
  uint64_t last_ns_ = 0;  // time of the previous sample
  bool exact_ = true;
  std::vector<uint64_t> last_tx_;  // per (switch, port, prio), flattened
  std::vector<PortSample> rows_;
  std::vector<const EmuPort*> links_;
  DropSample total_{};  // the counters' totals at the previous sample
  std::vector<DropSample> drops_;
};

}  // namespace pfc::emulator
