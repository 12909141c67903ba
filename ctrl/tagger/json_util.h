// SPDX-License-Identifier: BSD-3-Clause
// JSON input helper shared by the topology and ELP readers (control code).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace pfc::tagger {

// Parses `text`; on a syntax error sets *err to "<file>: not valid JSON: ...".
inline bool ParseJsonText(const std::string& text, const std::string& file, nlohmann::json* j,
                          std::string* err) {
  try {
    *j = nlohmann::json::parse(text);
    return true;
  } catch (const nlohmann::json::parse_error& e) {
    *err = file + ": not valid JSON: " + e.what();
    return false;
  }
}

}  // namespace pfc::tagger
