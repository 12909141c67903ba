// SPDX-License-Identifier: BSD-3-Clause
// A 0/1 switch read from pfcfabric's environment (PFCFABRIC_HUGE_PAGES,
// PFCFABRIC_TIME_ORDER, PFCFABRIC_EVERY_PORT): unset, 0 or 1, anything else
// refused before the run with what each value means, never read as one of
// them.
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>

namespace pfc::emulator {

// Unset, "0" or "1"; otherwise false and err says what `name` takes.
inline bool EnvSwitchOk(const char* name, const char* off, const char* on, std::string* err) {
  const char* v = std::getenv(name);
  if (v == nullptr || std::strcmp(v, "0") == 0 || std::strcmp(v, "1") == 0) return true;
  *err = std::string(name) + ": expected 0 (" + off + ") or 1 (" + on + ") (got '" + v + "')";
  return false;
}

// Whether `name` is set to `value` ("0" or "1").
inline bool EnvSwitchIs(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

}  // namespace pfc::emulator
