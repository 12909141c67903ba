// SPDX-License-Identifier: BSD-3-Clause
// PFC per-port work: the generation step the PFC stage runs for every
// owned port every poll round (threshold reads, Observe, Collect), and
// classifying a received MAC control frame then applying it to the pause
// timers (done per PFC frame). Items = rounds / frames.
#include <benchmark/benchmark.h>

#include "dataplane/buffer/accountant.h"
#include "dataplane/pause/pause_timer.h"
#include "dataplane/pause/pfc_frame.h"
#include "dataplane/pause/pfc_generator.h"

namespace pfc {
namespace {

// What PfcGenerate (stages/pfc_stage.cc) does for one port each poll
// round: for each lossless priority read the buffer accountant's occupancy
// and XOFF/XON thresholds and Observe() them, then Collect() and, when a
// frame is due, MarkSent(). Building and sending the frame are not timed
// (they cost an mbuf and a device call, once per state change). Every
// 2048 rounds priority 3 is filled past XOFF or drained (one accountant
// update, amortised), so most rounds are quiet, as in a real run.
void BM_PfcGenerateRound(benchmark::State& state) {
  constexpr uint8_t kLossless = 0b0001'1000;  // priorities 3 and 4
  buffer::BufferConfig bc;
  bc.total_bytes = 1 << 20;
  bc.num_ports = 1;
  for (int q = 0; q < kNumPrio; ++q) {
    buffer::PgConfig& g = bc.pg[0][q];
    g.static_limit = 32 << 10;
    g.lossless = (kLossless >> q) & 1;
    if (g.lossless) {
      g.headroom = 16 << 10;
      g.xon_hysteresis = 4 << 10;
    }
  }
  buffer::BufferAccountant acct;
  pause::PfcGenerator g;
  pause::PfcGenConfig c;
  c.lossless_mask = kLossless;
  c.port_bps = 10'000'000'000;
  std::string err;
  if (!acct.Configure(bc, &err) || !g.Configure(c, &err)) {
    state.SkipWithError(err.c_str());
    return;
  }
  constexpr uint32_t kFill = 40 << 10;  // past XOFF (32 KiB), within headroom
  uint64_t now = 0, rounds = 0, frames = 0;
  bool full = false;
  for (auto _ : state) {
    now += 500;  // a round every 0.5 us
    if (((++rounds >> 11) & 1) != full) {
      full = !full;
      if (full) {
        buffer::IngressBatch in(acct, 0);
        DropReason why;
        for (uint32_t b = 0; b < kFill; b += 1024) in.Admit(3, 1024, &why);
      } else {
        buffer::ReleaseBatch out(acct);
        out.Add(0, 3, static_cast<uint32_t>(acct.occupancy(0, 3)));
      }
    }
    for (int q = 0; q < kNumPrio; q++) {
      if (!((kLossless >> q) & 1)) continue;
      g.Observe(q, acct.occupancy(0, q), acct.XoffThreshold(0, q), acct.XonThreshold(0, q));
    }
    pause::PauseRequest r;
    if (g.Collect(now, &r)) {
      g.MarkSent(r, now);
      ++frames;
    }
  }
  if (state.iterations() > 8192 && frames == 0)
    state.SkipWithError("no frame was due: the benchmark must cross XOFF/XON");
  state.counters["frames"] = static_cast<double>(frames);  // total, not a rate
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PfcGenerateRound);

void BM_ParseAndApply(benchmark::State& state) {
  pause::PauseRequest r;
  r.class_enable = 0b0001'1000;
  r.quanta[3] = r.quanta[4] = 0xffff;
  uint8_t frame[pause::kPfcFrameLen];
  pause::BuildPfcFrame({2, 0, 0, 0, 0, 1}, r, frame, sizeof frame);
  pause::PauseTimer t;
  uint64_t now = 0;
  for (auto _ : state) {
    pause::PauseRequest got;
    now += 1000;
    if (pause::ParseMacControl(frame, sizeof frame, &got) == pause::MacCtlKind::kPfc)
      t.OnFrame(got, now, 10'000'000'000);
    benchmark::DoNotOptimize(t.PausedMask(now));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseAndApply);

}  // namespace
}  // namespace pfc

BENCHMARK_MAIN();
