// SPDX-License-Identifier: BSD-3-Clause
// Buffer accounting cost per packet: one rx burst of 32 admitted through an
// IngressBatch, then released through a ReleaseBatch, as the ingress and
// egress stages do. Swept over how many priority groups a burst touches
// (1, 2, 8) and lossy vs lossless groups. Items = packets.
#include <benchmark/benchmark.h>

#include <random>

#include "dataplane/buffer/accountant.h"

namespace pfc {
namespace {

buffer::BufferConfig Config(bool lossless) {
  buffer::BufferConfig c;
  c.total_bytes = 16 << 20;
  c.num_ports = 4;
  for (int p = 0; p < 4; ++p) {
    for (int q = 0; q < kNumPrio; ++q) {
      buffer::PgConfig& g = c.pg[p][q];
      g.reserved = 4096;
      g.static_limit = 0;  // dynamic: the most work per decision
      g.alpha = 1.0;
      if (lossless) {
        g.lossless = true;
        g.headroom = 20000;
        g.xon_hysteresis = 3000;
      }
    }
  }
  return c;
}

void BM_AdmitRelease(benchmark::State& state) {
  const int prios = static_cast<int>(state.range(0));
  const bool lossless = state.range(1) != 0;
  buffer::BufferAccountant a;
  std::string err;
  if (!a.Configure(Config(lossless), &err)) {
    state.SkipWithError(err.c_str());
    return;
  }
  std::mt19937 rng(1);
  uint8_t prio[kMaxBurst];
  uint32_t len[kMaxBurst];
  for (int i = 0; i < kMaxBurst; ++i) {
    prio[i] = static_cast<uint8_t>(rng() % prios);
    len[i] = 64 + rng() % 1437;
  }
  uint64_t admitted = 0;
  for (auto _ : state) {
    bool ok[kMaxBurst];
    {
      buffer::IngressBatch in(a, 1);
      DropReason why;
      for (int i = 0; i < kMaxBurst; ++i) ok[i] = in.Admit(prio[i], len[i], &why);
    }
    buffer::ReleaseBatch out(a);
    for (int i = 0; i < kMaxBurst; ++i)
      if (ok[i]) {
        out.Add(1, prio[i], len[i]);
        ++admitted;
      }
  }
  if (admitted != static_cast<uint64_t>(state.iterations()) * kMaxBurst)
    state.SkipWithError("a packet was refused: the benchmark measures the admit path");
  state.SetItemsProcessed(state.iterations() * kMaxBurst);
}
BENCHMARK(BM_AdmitRelease)->ArgNames({"prios", "lossless"})->ArgsProduct({{1, 2, 8}, {0, 1}});

// Admission only, against a buffer held at a steady level: the ingress
// stage's share of the cost. The releases happen outside the timed region.
void BM_AdmitOnly(benchmark::State& state) {
  const int prios = static_cast<int>(state.range(0));
  buffer::BufferAccountant a;
  std::string err;
  if (!a.Configure(Config(false), &err)) {
    state.SkipWithError(err.c_str());
    return;
  }
  std::mt19937 rng(1);
  uint8_t prio[kMaxBurst];
  for (int i = 0; i < kMaxBurst; ++i) prio[i] = static_cast<uint8_t>(rng() % prios);
  int bursts = 0;
  for (auto _ : state) {
    buffer::IngressBatch in(a, 2);
    DropReason why;
    for (int i = 0; i < kMaxBurst; ++i) benchmark::DoNotOptimize(in.Admit(prio[i], 64, &why));
    in.Flush();
    if (++bursts == 64) {  // every 64 bursts: give the bytes back, untimed
      state.PauseTiming();
      for (int q = 0; q < kNumPrio; ++q) a.Apply(2, q, -static_cast<int64_t>(a.occupancy(2, q)));
      bursts = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations() * kMaxBurst);
}
BENCHMARK(BM_AdmitOnly)->ArgName("prios")->Arg(1)->Arg(8);

}  // namespace
}  // namespace pfc

BENCHMARK_MAIN();
