// SPDX-License-Identifier: BSD-3-Clause
// PFC per-port work: the generator's poll over 8 priority levels (done after
// every rx burst), and classifying a received MAC control frame then
// applying it to the pause timers (done per PFC frame). Items = polls /
// frames.
#include <benchmark/benchmark.h>

#include "dataplane/pfc/pause_timer.h"
#include "dataplane/pfc/pfc_frame.h"
#include "dataplane/pfc/pfc_generator.h"

namespace pfc {
namespace {

void BM_GeneratorPoll(benchmark::State& state) {
  PfcGenerator g;
  PfcGenConfig c;
  c.lossless_mask = 0b0001'1000;
  c.port_bps = 10'000'000'000;
  std::string err;
  if (!g.Configure(c, &err)) {
    state.SkipWithError(err.c_str());
    return;
  }
  std::array<PgLevel, 8> lv{};
  for (auto& l : lv) l = {1000, 4000, 2000};
  uint64_t now = 0, frames = 0;
  for (auto _ : state) {
    now += 500;
    // Priority 3 oscillates across XOFF/XON every 4096 polls: mostly quiet
    // polls, as in a real run, with a frame now and then.
    lv[3].occupancy = (now >> 11) & 1 ? 5000 : 1000;
    PauseRequest r;
    if (g.Poll(lv, now, &r)) {
      g.MarkSent(r, now);
      ++frames;
    }
  }
  benchmark::DoNotOptimize(frames);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GeneratorPoll);

void BM_ParseAndApply(benchmark::State& state) {
  PauseRequest r;
  r.class_enable = 0b0001'1000;
  r.quanta[3] = r.quanta[4] = 0xffff;
  uint8_t frame[kPfcFrameLen];
  BuildPfcFrame({2, 0, 0, 0, 0, 1}, r, frame, sizeof frame);
  PauseTimer t;
  uint64_t now = 0;
  for (auto _ : state) {
    PauseRequest got;
    now += 1000;
    if (ParseMacControl(frame, sizeof frame, &got) == MacCtlKind::kPfc)
      t.OnFrame(got, now, 10'000'000'000);
    benchmark::DoNotOptimize(t.PausedMask(now));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseAndApply);

}  // namespace
}  // namespace pfc

BENCHMARK_MAIN();
