// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/series_csv.h"

#include <charconv>

namespace pfc::emulator {

void AppendFixed6(double v, std::string* s) {
  char buf[400];  // the longest double in fixed notation, 6 decimals, fits
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 6);
  s->append(buf, r.ptr);
}

void WriteChunk(std::string* buf, std::ostream& out, bool last) {
  if (!last && buf->size() < kCsvChunk - 512) return;
  out.write(buf->data(), static_cast<std::streamsize>(buf->size()));
  buf->clear();
}

void WriteSeriesCsv(uint64_t bin_ns, uint64_t bins, const std::vector<std::string>& names,
                    const std::vector<std::vector<uint64_t>>& bytes,
                    const std::vector<uint64_t>& from, std::ostream& out, uint64_t start_ns) {
  out << "t_ms,flow,gbps\n";
  if (bin_ns == 0) return;
  std::vector<std::string> t(bins);  // each bin's end, with its comma
  for (uint64_t b = 0; b < bins; b++) {
    AppendFixed6(static_cast<double>(start_ns + (b + 1) * bin_ns) / 1e6, &t[b]);
    t[b] += ',';
  }
  static const std::vector<uint64_t> kNone;
  std::string buf;
  buf.reserve(kCsvChunk);
  for (size_t i = 0; i < names.size(); i++) {
    const std::vector<uint64_t>& rx = i < bytes.size() ? bytes[i] : kNone;
    const uint64_t b0 = i < from.size() ? from[i] : 0;
    for (uint64_t b = 0; b < bins; b++) {
      buf += t[b];
      buf += names[i];
      const uint64_t n = b >= b0 && b - b0 < rx.size() ? rx[b - b0] : 0;
      if (n == 0) {
        buf += ",0.000000\n";
      } else {
        buf += ',';
        AppendFixed6(static_cast<double>(n) * 8.0 / static_cast<double>(bin_ns), &buf);
        buf += '\n';
      }
      WriteChunk(&buf, out);
    }
  }
  WriteChunk(&buf, out, true);
}

}  // namespace pfc::emulator
