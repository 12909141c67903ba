// SPDX-License-Identifier: BSD-3-Clause
// flows.csv, the receivers' throughput per time bin: one row per flow and
// bin, "t_ms,flow,gbps", both numbers as printf's "%.6f" writes them.
//
// Why not printf: a converted run of the RDMA simulator's files has tens of
// thousands of flows and hundreds of bins each, nearly all empty; one
// snprintf a row was ~16 million calls and the larger part of writing a
// run's results. Here a bin's time is formatted once for every flow, an
// empty bin's rate is a constant, and only the rest goes through
// std::to_chars, which the standard defines as printf's conversion in the
// "C" locale: the file is the same byte for byte.
//
// Pure code; the caller owns the stream.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pfc::emulator {

// Rows for `bins` bins of bin_ns each (bin b ends at start_ns + (b + 1)
// bin_ns), flow by flow in the order of `names`; bytes[i][k] is what flow
// i's receiver took in bin from[i] + k (bins outside, before from[i] or
// past the vector, are 0; a missing from[i] is 0). Writes the header too.
void WriteSeriesCsv(uint64_t bin_ns, uint64_t bins, const std::vector<std::string>& names,
                    const std::vector<std::vector<uint64_t>>& bytes,
                    const std::vector<uint64_t>& from, std::ostream& out, uint64_t start_ns = 0);

// One number as printf("%.6f", v) writes it, appended to *s.
void AppendFixed6(double v, std::string* s);

// The CSV writers gather rows in a string of about kCsvChunk bytes (reserve
// it) and write it to the stream as it fills: WriteChunk once a row has
// taken it within 512 bytes of that (a row is shorter), and once at the
// end with `last`.
inline constexpr size_t kCsvChunk = size_t{1} << 20;
void WriteChunk(std::string* buf, std::ostream& out, bool last = false);

}  // namespace pfc::emulator
