// SPDX-License-Identifier: BSD-3-Clause
// A model's parameters declared once, as ns-3's attribute tables are: each
// is one entry naming its fabric-file key, its kind and range, what it is
// (and the RDMA simulator's name for it), and the member of the model's
// parameter struct that holds it, whose initializer is its default. The
// fabric file's parser (spec/nic_sections.cc), the reference docs' table
// (ParamsTable, checked against docs/reference/fabric-file.md by the spec
// tests) and the defaults all come from there.
//
// Pure: no YAML here; the spec layer reads a section through the table.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <variant>

namespace pfc::emulator {

enum class ParamKind : uint8_t {
  kRate,       // bits/s, written with a unit (50M, 25G)
  kInterval,   // a time > 0, in ns (1us, 900us)
  kTimeOrOff,  // a time in ns, or 0: off
  kReal,       // lo..hi
  kInt,        // an integer lo..hi
  kBool,
  kBytes,  // lo..hi bytes, written with a unit (10M) or not
};

template <typename S>
using ParamField = std::variant<uint64_t S::*, uint32_t S::*, uint8_t S::*, double S::*, bool S::*>;

template <typename S>
struct Param {
  const char* key;
  ParamKind kind;
  double lo, hi;      // kReal, kInt, kBytes
  const char* about;  // what it is, and the simulator's name for it
  ParamField<S> field;
};

// The value of p in s, as a double (exact for every kind used).
template <typename S>
double ParamValue(const Param<S>& p, const S& s) {
  return std::visit([&](auto m) { return static_cast<double>(s.*m); }, p.field);
}

// How the docs and messages write a value of p's kind: 50M, 900us, 0.5, 7.
std::string ParamText(ParamKind kind, double v);
// "rate", "time > 0", "time, 0 off", "0..1", "bool", "bytes".
std::string ParamKindText(ParamKind kind, double lo, double hi);

// The reference docs' table of a section: | key | type | default | meaning |.
template <typename S>
std::string ParamsTable(std::span<const Param<S>> params) {
  const S defaults{};
  std::string t = "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const Param<S>& p : params)
    t += std::string("| `") + p.key + "` | " + ParamKindText(p.kind, p.lo, p.hi) + " | " +
         ParamText(p.kind, ParamValue(p, defaults)) + " | " + p.about + " |\n";
  return t;
}

}  // namespace pfc::emulator
