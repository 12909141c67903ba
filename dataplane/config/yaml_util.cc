// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/config/yaml_util.h"

#include <cmath>
#include <map>
#include <set>

#include "dataplane/config/config.h"

namespace pfc::config {

YAML::Node ParseDocument(const std::string& path, const std::string& text,
                         const std::string& expected) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax: " + e.msg);
  }
  Reader rd(path);
  // An empty (or comment-only) file parses to a null node without a line.
  if (root.IsNull() && root.Mark().line < 0)
    throw ConfigError(path + ":1: (document): expected " + expected + " (got an empty file)");
  if (!root.IsMap()) rd.Fail(root, "(document)", expected);
  rd.CheckUniqueKeys(root, "");
  return root;
}

std::string Printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b != 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out;
}

std::string Scalar(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsScalar()) return "'" + Printable(n.Scalar()) + "'";
  // The length matters when a list of a fixed size was expected.
  if (n.IsSequence()) return "a list of " + std::to_string(n.size());
  return "a map";
}

std::string KeyLine(const YAML::Node& map, const std::string& key) {
  if (!map.IsMap()) return "";
  for (const auto& kv : map)
    if (kv.first.IsScalar() && kv.first.Scalar() == key && kv.first.Mark().line >= 0)
      return std::to_string(kv.first.Mark().line + 1);
  return "";
}

std::string Reader::Where(const YAML::Node& n) const {
  if (n.IsDefined() && n.Mark().line >= 0) return file_ + ":" + std::to_string(n.Mark().line + 1);
  return file_;
}

void Reader::Fail(const YAML::Node& n, const std::string& field,
                  const std::string& expected) const {
  throw ConfigError(Where(n) + ": " + field + ": expected " + expected + " (got " + Scalar(n) +
                    ")");
}

YAML::Node Reader::Need(const YAML::Node& map, const char* key, const std::string& field,
                        const std::string& expected) const {
  if (map.IsMap() && map[key]) return map[key];
  throw ConfigError(Where(map) + ": " + field + ": expected " + expected + " (missing)");
}

void Reader::CheckUniqueKeys(const YAML::Node& n, const std::string& path) const {
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); i++)
      CheckUniqueKeys(n[i], path + "[" + std::to_string(i) + "]");
    return;
  }
  if (!n.IsMap()) return;
  std::map<std::string, int> first_line;  // key -> 1-based line of its first use
  for (const auto& kv : n) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "(complex key)";
    const std::string field = path.empty() ? key : path + "." + key;
    const int line = kv.first.Mark().line + 1;
    auto [it, fresh] = first_line.emplace(key, line);
    if (!fresh)
      throw ConfigError(file_ + ":" + std::to_string(line) + ": " + field +
                        ": expected each key once " + "in a map (already given at line " +
                        std::to_string(it->second) + ")");
    CheckUniqueKeys(kv.second, field);
  }
}

void Reader::CheckKeys(const YAML::Node& n, const std::string& field,
                       std::initializer_list<const char*> allowed) const {
  CheckKeys(n, field, std::span<const char* const>(allowed.begin(), allowed.size()));
}

void Reader::CheckKeys(const YAML::Node& n, const std::string& field,
                       std::span<const char* const> allowed) const {
  RequireMap(n, field);
  std::set<std::string> ok(allowed.begin(), allowed.end());
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    if (!ok.count(key)) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      std::string where = file_;
      if (kv.first.Mark().line >= 0) where += ":" + std::to_string(kv.first.Mark().line + 1);
      throw ConfigError(where + ": " + (field.empty() ? "" : field + ".") + Printable(key) +
                        ": unknown field (expected one of: " + list + ")");
    }
  }
}

void Reader::RequireMap(const YAML::Node& n, const std::string& field) const {
  if (!n.IsMap()) Fail(n, field, "a map");
}
void Reader::RequireSeq(const YAML::Node& n, const std::string& field) const {
  if (!n.IsSequence()) Fail(n, field, "a list");
}

std::string Reader::Str(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar() || n.Scalar().empty()) Fail(n, field, "a non-empty string");
  // A name or a path never holds a NUL byte; kept, it would cut every
  // message that quotes the value (what() ends at it) and the file name a
  // path reaches.
  if (n.Scalar().find('\0') != std::string::npos) Fail(n, field, "a string without a NUL byte");
  return n.Scalar();
}

int64_t Reader::Int(const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) const {
  std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (!n.IsScalar()) Fail(n, field, range);
  const std::string& s = n.Scalar();
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &pos, 0);
  } catch (...) {
    Fail(n, field, range);
  }
  if (pos != s.size() || v < lo || v > hi) Fail(n, field, range);
  return v;
}

double Reader::Real(const YAML::Node& n, const std::string& field, double lo, double hi) const {
  std::string range = "a number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (!n.IsScalar()) Fail(n, field, range);
  const std::string& s = n.Scalar();
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (...) {
    Fail(n, field, range);
  }
  if (pos != s.size() || !std::isfinite(v) || v < lo || v > hi) Fail(n, field, range);
  return v;
}

bool Reader::Bool(const YAML::Node& n, const std::string& field) const {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  Fail(n, field, "true or false");
}

uint64_t Reader::Rate(const YAML::Node& n, const std::string& field) const {
  uint64_t v = 0;
  if (!n.IsScalar() || !ParseRate(n.Scalar(), &v) || v < 1000 || v > 1'000'000'000'000ull)
    Fail(n, field, "a rate in bits/s such as 10G, 2.5G or 100M (1K..1T)");
  return v;
}

uint64_t Reader::Bytes(const YAML::Node& n, const std::string& field, uint64_t lo,
                       uint64_t hi) const {
  uint64_t v = 0;
  if (!n.IsScalar() || !ParseBytes(n.Scalar(), &v) || v < lo || v > hi)
    Fail(n, field,
         "a size in bytes such as 16K or 4M, from " + std::to_string(lo) + " to " +
             std::to_string(hi));
  return v;
}

}  // namespace pfc::config
