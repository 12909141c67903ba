// SPDX-License-Identifier: BSD-3-Clause
// ns/packet of RouteTable lookups (DIR-24-8) over route set sizes:
// BM_RouteLookup is the scalar Lookup the ingress stage calls once per
// packet; BM_RouteLookupBurst the batch form, which the pipeline does not
// use, for comparison. A quarter of the routes are longer than /24 (tbl8 path); the
// destinations are drawn from the routes so most lookups hit. Items = packets.
#include <benchmark/benchmark.h>

#include <random>
#include <set>
#include <vector>

#include "dataplane/tables/route_table.h"

namespace pfc {
namespace {

constexpr int kPackets = 4096;

struct Setup {
  tables::RouteTable table;
  std::vector<uint32_t> dst;
};

void Build(int num_routes, Setup* s) {
  std::mt19937_64 rng(7);
  std::vector<tables::RouteTable::Route> routes;
  std::set<std::pair<uint32_t, uint8_t>> seen;
  routes.push_back({0, 0, 0});
  while (static_cast<int>(routes.size()) < num_routes) {
    const uint8_t len = static_cast<uint8_t>(rng() % 4 == 0 ? 25 + rng() % 8 : 8 + rng() % 17);
    const uint32_t prefix = static_cast<uint32_t>(rng()) & (~uint32_t{0} << (32 - len));
    if (!seen.emplace(prefix, len).second) continue;
    routes.push_back({prefix, len, static_cast<uint16_t>(rng() % 64)});
  }
  std::vector<tables::NextHop> hops(64);
  std::string err;
  if (!s->table.Build(routes, hops, &err)) std::abort();
  for (int i = 0; i < kPackets; ++i) {
    const auto& r = routes[rng() % routes.size()];
    const uint32_t host = r.len == 32 ? 0 : static_cast<uint32_t>(rng()) & (~uint32_t{0} >> r.len);
    s->dst.push_back(r.prefix | host);
  }
}

void BM_RouteLookup(benchmark::State& state) {
  Setup s;
  Build(static_cast<int>(state.range(0)), &s);
  size_t pos = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.table.Lookup(s.dst[pos]));
    pos = (pos + 1) & (kPackets - 1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RouteLookup)->ArgName("routes")->RangeMultiplier(10)->Range(10, 100000);

void BM_RouteLookupBurst(benchmark::State& state) {
  Setup s;
  Build(static_cast<int>(state.range(0)), &s);
  uint16_t nh[kMaxBurst];
  size_t pos = 0;
  for (auto _ : state) {
    s.table.LookupBurst(&s.dst[pos], nh, kMaxBurst);
    benchmark::DoNotOptimize(nh);
    benchmark::ClobberMemory();
    pos = (pos + kMaxBurst) & (kPackets - 1);
  }
  state.SetItemsProcessed(state.iterations() * kMaxBurst);
}
BENCHMARK(BM_RouteLookupBurst)->ArgName("routes")->RangeMultiplier(10)->Range(10, 100000);

}  // namespace
}  // namespace pfc

BENCHMARK_MAIN();
