// SPDX-License-Identifier: BSD-3-Clause
// A plain-text table as SONiC's CLI prints them (python tabulate's "simple"
// format): a header, a line of dashes under each column, columns two spaces
// apart, numeric columns right-aligned and text left-aligned. Pure; pfcctl's
// views (views.h) build one per matrix.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pfc::pfcctl {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  // A row of as many cells as the header has (missing cells print empty).
  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  size_t rows() const { return rows_.size(); }
  // The table, each line ending in '\n'.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A counter as a cell: an integer as it is, a rate (a double, pfcctl -i)
// with one decimal. Anything else (missing) prints "N/A", as SONiC does.
std::string Cell(const nlohmann::json& v);

}  // namespace pfc::pfcctl
