// SPDX-License-Identifier: BSD-3-Clause
// flows.csv's writer against printf, which it must match byte for byte.
#include "dataplane/emulator/model/series_csv.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sstream>

namespace pfc::emulator {
namespace {

std::string Printf6(double v) {
  char b[512];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}

std::string Fixed6(double v) {
  std::string s;
  AppendFixed6(v, &s);
  return s;
}

TEST(SeriesCsv, NumbersAsPrintf) {
  // Ties at the sixth decimal (exact in binary) round as printf does, to even.
  for (double v : {0.0, 1.0, 0.0078125, 0.0234375, 2.5e-7, 1.5e-6, 0.5, 1e-7, 123456789.123456,
                   1e300, 4e9, 99.9999995, 0.1 + 0.2})
    EXPECT_EQ(Fixed6(v), Printf6(v)) << v;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; i++) {
    // Rates as the writer computes them: bytes * 8 / bin_ns.
    const uint64_t bytes = rng() % 100'000'000;
    const uint64_t bin = 1000 + rng() % 10'000'000'000;
    const double v = static_cast<double>(bytes) * 8.0 / static_cast<double>(bin);
    ASSERT_EQ(Fixed6(v), Printf6(v)) << bytes << " / " << bin;
  }
}

// The rows the writer replaced: one snprintf each.
std::string Reference(uint64_t bin_ns, uint64_t bins, const std::vector<std::string>& names,
                      const std::vector<std::vector<uint64_t>>& bytes) {
  std::string s = "t_ms,flow,gbps\n";
  for (size_t i = 0; i < names.size(); i++) {
    for (uint64_t b = 0; b < bins; b++) {
      const uint64_t n = b < bytes[i].size() ? bytes[i][b] : 0;
      char line[160];
      std::snprintf(line, sizeof line, "%.6f,%s,%.6f\n", (b + 1) * bin_ns / 1e6, names[i].c_str(),
                    n * 8.0 / bin_ns);
      s += line;
    }
  }
  return s;
}

TEST(SeriesCsv, RowsAsPrintf) {
  std::mt19937_64 rng(3);
  for (uint64_t bin_ns : {1000ull, 4'200'000ull, 333'333ull, 10'000'000ull}) {
    const uint64_t bins = 1 + rng() % 700;
    std::vector<std::string> names;
    std::vector<std::vector<uint64_t>> bytes;
    for (int f = 0; f < 40; f++) {
      names.push_back("f" + std::to_string(f));
      // Some flows saw nothing, some stop early, most bins empty.
      std::vector<uint64_t> v(f % 5 == 0 ? 0 : rng() % (bins + 1));
      for (uint64_t& x : v) x = rng() % 4 == 0 ? rng() % 5'000'000 : 0;
      bytes.push_back(std::move(v));
    }
    // The writer's input: each flow's bins from its first non-empty one,
    // as the receivers keep them.
    std::vector<std::vector<uint64_t>> kept(bytes.size());
    std::vector<uint64_t> from(bytes.size(), 0);
    for (size_t f = 0; f < bytes.size(); f++) {
      size_t first = 0;
      while (first < bytes[f].size() && bytes[f][first] == 0) first++;
      if (first == bytes[f].size()) continue;
      from[f] = first;
      kept[f].assign(bytes[f].begin() + static_cast<std::ptrdiff_t>(first), bytes[f].end());
    }
    std::ostringstream out;
    WriteSeriesCsv(bin_ns, bins, names, kept, from, out);
    ASSERT_EQ(out.str(), Reference(bin_ns, bins, names, bytes)) << bin_ns;
    // Dense from bin 0, as before: the same file.
    std::ostringstream dense;
    WriteSeriesCsv(bin_ns, bins, names, bytes, {}, dense);
    ASSERT_EQ(dense.str(), out.str());
  }
}

TEST(SeriesCsv, LargerThanOneWrite) {
  // More rows than the writer's buffer holds: written in pieces, in order.
  std::vector<std::string> names{"a", "bb"};
  std::vector<std::vector<uint64_t>> bytes{std::vector<uint64_t>(60000, 1250), {}};
  std::ostringstream out;
  WriteSeriesCsv(1000, 60000, names, bytes, {}, out);
  EXPECT_EQ(out.str(), Reference(1000, 60000, names, bytes));
}

}  // namespace
}  // namespace pfc::emulator
