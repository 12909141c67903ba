// SPDX-License-Identifier: BSD-3-Clause
// ns/packet of RewriteTable lookups over table sizes: BM_RewriteLookup is
// the scalar Lookup the ingress stage calls once per packet (a burst of 32
// packets per iteration, as a stage sees them); BM_RewriteLookupBurst the
// batch form, which the pipeline does not use, for comparison. Rule sets are
// generated like Tagger's output for Table V (Jellyfish, up to 64 ports, at
// most 4 lossless priorities): a few tags, each rule a single tag with an
// in-port SET (the §VII-C compression) and one or a few out-ports, new tag =
// tag or tag+1, plus some wildcard catch-alls. Packets carry mostly rule
// tags, some unmapped ones, random in/out ports.
// Args: {ports, rules}. Items = packets.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "dataplane/tables/rewrite_table.h"

namespace pfc {
namespace {

constexpr int kTags = 8;
constexpr int kPackets = 4096;  // a power of two, cycled through in bursts

tables::RewriteConfig TaggerLikeRules(int ports, int rules, std::mt19937_64& rng) {
  tables::RewriteConfig cfg;
  cfg.num_ports = static_cast<uint16_t>(ports);
  cfg.default_tag = 0;
  const PortMask valid = ports == 64 ? kAnyPort : (PortMask{1} << ports) - 1;
  for (int r = 0; r < rules; ++r) {
    tables::RewriteRule rule;
    const int tag = 1 + static_cast<int>(rng() % (kTags - 1));
    rule.tags = TagMask{1} << tag;
    PortMask in = rng() & rng() & valid;  // ~quarter of the ports
    if (in == 0) in = PortMask{1} << (rng() % ports);
    rule.in_ports = in;
    rule.out_ports = rng() % 4 == 0 ? (rng() & valid) | 1 : PortMask{1} << (rng() % ports);
    rule.new_tag = static_cast<uint8_t>(rng() % 2 ? tag : tag + 1);
    rule.priority = static_cast<int32_t>(rng() % 3);
    cfg.rules.push_back(rule);
  }
  // Tagger keeps a tag on shortest-path hops with one wildcard rule per tag.
  for (int tag = 1; tag < kTags; ++tag) {
    cfg.rules.push_back({TagMask{1} << tag, kAnyPort, kAnyPort, static_cast<uint8_t>(tag), -1});
  }
  return cfg;
}

struct Workload {
  std::vector<uint8_t> tags;
  std::vector<PortId> in, out;
};

Workload Packets(int ports, std::mt19937_64& rng) {
  Workload w;
  for (int i = 0; i < kPackets; ++i) {
    w.tags.push_back(static_cast<uint8_t>(rng() % 10 == 0 ? 20 + rng() % 40 : rng() % kTags));
    w.in.push_back(static_cast<PortId>(rng() % ports));
    w.out.push_back(static_cast<PortId>(rng() % ports));
  }
  return w;
}

// Times `burst(table, w, pos, out_tags)` (the lookups of kMaxBurst packets
// from w at pos) over the Tagger-like rule set for the benchmark's
// {ports, rules}. Items = packets.
template <typename Burst>
void TimeBursts(benchmark::State& state, Burst burst) {
  const int ports = static_cast<int>(state.range(0));
  const int rules = static_cast<int>(state.range(1));
  std::mt19937_64 rng(42);
  const tables::RewriteConfig cfg = TaggerLikeRules(ports, rules, rng);
  tables::RewriteTable table;
  std::string err;
  if (!table.Compile(cfg, &err)) {
    state.SkipWithError(err.c_str());
    return;
  }
  const Workload w = Packets(ports, rng);
  uint8_t out_tags[kMaxBurst];
  size_t pos = 0;
  for (auto _ : state) {
    burst(table, w, pos, out_tags);
    benchmark::DoNotOptimize(out_tags);
    benchmark::ClobberMemory();
    pos = (pos + kMaxBurst) & (kPackets - 1);
  }
  state.SetItemsProcessed(state.iterations() * kMaxBurst);
  state.counters["rows"] = table.rows();
  state.counters["KiB"] = static_cast<double>(table.bytes()) / 1024;
  state.counters["ns/pkt"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kMaxBurst),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RewriteLookup(benchmark::State& state) {
  TimeBursts(state, [](const tables::RewriteTable& t, const Workload& w, size_t pos, uint8_t* out) {
    for (int i = 0; i < kMaxBurst; i++)
      out[i] = t.Lookup(w.tags[pos + i], w.in[pos + i], w.out[pos + i]);
  });
}
BENCHMARK(BM_RewriteLookup)
    ->ArgNames({"ports", "rules"})
    ->ArgsProduct({{4, 16, 32, 64}, {8, 64, 128, 512}});

void BM_RewriteLookupBurst(benchmark::State& state) {
  TimeBursts(state, [](const tables::RewriteTable& t, const Workload& w, size_t pos, uint8_t* out) {
    t.LookupBurst(&w.tags[pos], &w.in[pos], &w.out[pos], out, kMaxBurst);
  });
}
BENCHMARK(BM_RewriteLookupBurst)
    ->ArgNames({"ports", "rules"})
    ->ArgsProduct({{4, 16, 32, 64}, {8, 64, 128, 512}});

// The naive TCAM-order scan, for scale (what the compilation buys).
void BM_RewriteNaive(benchmark::State& state) {
  const int ports = static_cast<int>(state.range(0));
  const int rules = static_cast<int>(state.range(1));
  std::mt19937_64 rng(42);
  const tables::RewriteConfig cfg = TaggerLikeRules(ports, rules, rng);
  const Workload w = Packets(ports, rng);
  size_t pos = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tables::NaiveRewriteLookup(cfg, w.tags[pos], w.in[pos], w.out[pos]));
    pos = (pos + 1) & (kPackets - 1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RewriteNaive)->ArgNames({"ports", "rules"})->ArgsProduct({{64}, {128}});

// Control-plane cost of Compile() (a rule update), for scale. Items = rules.
void BM_RewriteCompile(benchmark::State& state) {
  const int ports = static_cast<int>(state.range(0));
  const int rules = static_cast<int>(state.range(1));
  std::mt19937_64 rng(42);
  const tables::RewriteConfig cfg = TaggerLikeRules(ports, rules, rng);
  std::string err;
  for (auto _ : state) {
    tables::RewriteTable table;
    if (!table.Compile(cfg, &err)) state.SkipWithError(err.c_str());
    benchmark::DoNotOptimize(table);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(cfg.rules.size()));
}
BENCHMARK(BM_RewriteCompile)
    ->ArgNames({"ports", "rules"})
    ->ArgsProduct({{64}, {128, 512}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pfc

BENCHMARK_MAIN();
