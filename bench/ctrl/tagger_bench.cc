// SPDX-License-Identifier: BSD-3-Clause
// Google Benchmarks of the Tagger generator on Jellyfish (64 ports, 32 to
// switches, destination-tree ELP), swept over the switch count: greedy
// tagging (items = switch-level ELP paths, S * (S - 1)), compression (items
// = switches) and verification (items = ELP paths). The full-size Table V
// and scale runs are bench/ctrl/table5.sh and bench/tagger/scale.sh.
#include <benchmark/benchmark.h>

#include "ctrl/tagger/greedy.h"
#include "ctrl/tagger/rules_file.h"
#include "ctrl/tagger/topo_gen.h"
#include "ctrl/tagger/verify.h"

namespace pfc::tagger {
namespace {

struct Net {
  Topology t;
  Elp elp;
  DestTrees trees;
  explicit Net(int n) {
    std::string err;
    GenJellyfish(n, 64, 32, 1, &t, &err);
    elp.trees = {true, 1, 1};
    trees.Build(t, 1);
  }
};

void BM_GreedyTrees(benchmark::State& state) {
  Net net(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    GreedyResult g = RunGreedy(net.t, net.elp, &net.trees, nullptr, state.range(1));
    benchmark::DoNotOptimize(g.bumps);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * (state.range(0) - 1));
}
BENCHMARK(BM_GreedyTrees)->ArgsProduct({{100, 200, 400}, {0, 64}})->Unit(benchmark::kMillisecond);

void BM_Compress(benchmark::State& state) {
  Net net(static_cast<int>(state.range(0)));
  const GreedyResult g = RunGreedy(net.t, net.elp, &net.trees, nullptr, 64);
  for (auto _ : state)
    for (uint32_t n = 0; n < net.t.num_nodes(); ++n)
      if (net.t.is_switch(n)) benchmark::DoNotOptimize(CompressNode(net.t, g.rules, n, false));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Compress)->Arg(100)->Arg(400)->Unit(benchmark::kMillisecond);

void BM_Verify(benchmark::State& state) {
  Net net(static_cast<int>(state.range(0)));
  const GreedyResult g = RunGreedy(net.t, net.elp, &net.trees, nullptr, 64);
  const int max_tag = Summarize(net.t, g.rules).max_tag;
  std::vector<NodeRules> by_node(net.t.num_nodes());
  for (uint32_t n = 0; n < net.t.num_nodes(); ++n)
    if (net.t.is_switch(n))
      by_node[n] = MakeNodeRules(CompressNode(net.t, g.rules, n, false), max_tag);
  for (auto _ : state) {
    VerifyReport r = Verify(net.t, net.elp, &net.trees, by_node, {});
    if (!r.ok) state.SkipWithError("verification failed");
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * (state.range(0) - 1));
}
BENCHMARK(BM_Verify)->Arg(100)->Arg(400)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pfc::tagger

BENCHMARK_MAIN();
