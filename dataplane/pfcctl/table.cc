// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcctl/table.h"

#include <algorithm>
#include <cstdio>

namespace pfc::pfcctl {
namespace {

// Digits, with at most a sign, a decimal point and a '/' between two
// numbers ("3/3", pfcwd's detected/restored): right-aligned.
bool Numeric(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '/';
  });
}

}  // namespace

std::string Table::Render() const {
  const size_t cols = header_.size();
  std::vector<size_t> width(cols);
  std::vector<bool> right(cols, true);
  for (size_t c = 0; c < cols; c++) {
    width[c] = header_[c].size();
    for (const auto& r : rows_) {
      const std::string cell = c < r.size() ? r[c] : "";
      width[c] = std::max(width[c], cell.size());
      if (!Numeric(cell)) right[c] = false;
    }
    if (rows_.empty()) right[c] = c > 0;
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t c = 0; c < cols; c++) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - cell.size(), ' ');
      if (c > 0) l += "  ";
      l += right[c] ? pad + cell : cell + pad;
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(header_);
  std::vector<std::string> dashes;
  for (size_t c = 0; c < cols; c++) dashes.push_back(std::string(width[c], '-'));
  line(dashes);
  for (const auto& r : rows_) line(r);
  return out;
}

std::string Cell(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.1f", v.get<double>());
    return buf;
  }
  return "N/A";
}

}  // namespace pfc::pfcctl
