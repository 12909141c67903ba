// SPDX-License-Identifier: BSD-3-Clause
// Small yaml-cpp helpers shared by the config loaders: typed getters that
// throw ConfigError with "file:line: field: expected X (got 'Y')", and a
// strict key check so that a typo in a field name is an error, not a silent
// default. Control thread only; never used on the packet path.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pfc::config {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  // "file:line" of node n ("file" when it has no line), the start of every
  // message about it: errors (Fail, Need) and a loader's warnings.
  std::string Where(const YAML::Node& n) const;

  [[noreturn]] void Fail(const YAML::Node& n, const std::string& field,
                         const std::string& expected) const;
  // map[key] when present; otherwise fails at the line of `map` (a missing
  // node has no line of its own) with "field: expected X (missing)".
  YAML::Node Need(const YAML::Node& map, const char* key, const std::string& field,
                  const std::string& expected) const;
  // Rejects a key given twice in any map of the document (yaml-cpp keeps
  // both and map[key] silently returns the first). `path` names the node.
  void CheckUniqueKeys(const YAML::Node& n, const std::string& path) const;
  // Rejects keys of map `n` that are not in `allowed`.
  void CheckKeys(const YAML::Node& n, const std::string& field,
                 std::initializer_list<const char*> allowed) const;
  void CheckKeys(const YAML::Node& n, const std::string& field,
                 std::span<const char* const> allowed) const;
  void RequireMap(const YAML::Node& n, const std::string& field) const;
  void RequireSeq(const YAML::Node& n, const std::string& field) const;

  std::string Str(const YAML::Node& n, const std::string& field) const;
  int64_t Int(const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) const;
  double Real(const YAML::Node& n, const std::string& field, double lo, double hi) const;
  bool Bool(const YAML::Node& n, const std::string& field) const;
  uint64_t Rate(const YAML::Node& n, const std::string& field) const;  // bits/s
  uint64_t Bytes(const YAML::Node& n, const std::string& field, uint64_t lo, uint64_t hi) const;

 private:
  std::string file_;
};

// Parses one YAML document that must be a map (`expected` describes it)
// with no key given twice anywhere: a YAML syntax error, an empty file, a
// document that is no map or a key given twice throws ConfigError naming
// path:line. Every file the project reads through a Reader starts here.
YAML::Node ParseDocument(const std::string& path, const std::string& text,
                         const std::string& expected);

std::string Scalar(const YAML::Node& n);  // the node's text for messages
// `s` for a message: control bytes (NUL among them) as \xNN, since an
// exception's what() ends at a NUL and a terminal acts on the others.
std::string Printable(std::string_view s);
// 1-based line of `key` in `map` ("" if absent or unknown), for messages that
// point at a section rather than at one value.
std::string KeyLine(const YAML::Node& map, const std::string& key);

}  // namespace pfc::config
