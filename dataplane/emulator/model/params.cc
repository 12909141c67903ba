// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/params.h"

#include <cmath>
#include <cstdio>

namespace pfc::emulator {
namespace {

// v / unit when that is whole, with the unit's suffix.
bool Whole(double v, double unit, const char* suffix, std::string* out) {
  if (v < unit || std::fmod(v, unit) != 0) return false;
  char b[48];
  std::snprintf(b, sizeof b, "%.0f%s", v / unit, suffix);
  *out = b;
  return true;
}

std::string Plain(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

}  // namespace

std::string ParamText(ParamKind kind, double v) {
  std::string s;
  switch (kind) {
    case ParamKind::kRate:
      if (Whole(v, 1e9, "G", &s) || Whole(v, 1e6, "M", &s) || Whole(v, 1e3, "K", &s)) return s;
      return Plain(v);
    case ParamKind::kTimeOrOff:
      if (v == 0) return "0";
      [[fallthrough]];
    case ParamKind::kInterval:
      if (Whole(v, 1e9, "s", &s) || Whole(v, 1e6, "ms", &s) || Whole(v, 1e3, "us", &s)) return s;
      return Plain(v) + "ns";
    case ParamKind::kBool:
      return v != 0 ? "true" : "false";
    case ParamKind::kBytes:
    case ParamKind::kReal:
    case ParamKind::kInt:
      return Plain(v);
  }
  return Plain(v);
}

std::string ParamKindText(ParamKind kind, double lo, double hi) {
  switch (kind) {
    case ParamKind::kRate:
      return "rate";
    case ParamKind::kInterval:
      return "time > 0";
    case ParamKind::kTimeOrOff:
      return "time, 0 off";
    case ParamKind::kBool:
      return "bool";
    case ParamKind::kBytes:
      return "bytes";
    case ParamKind::kReal:
    case ParamKind::kInt:
      return Plain(lo) + ".." + Plain(hi);
  }
  return "";
}

}  // namespace pfc::emulator
