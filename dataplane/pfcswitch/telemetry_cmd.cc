// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/telemetry_cmd.h"

namespace pfc {

int PortParam(const char* params, const std::vector<std::string>& names) {
  if (!params || !*params) return -1;
  for (size_t i = 0; i < names.size(); i++)
    if (names[i] == params) return static_cast<int>(i);
  // Digits only: strtol would also take " 2", "\n2" or "+2" for port 2.
  size_t v = 0;
  for (const char* p = params; *p; ++p) {
    if (*p < '0' || *p > '9') return -1;
    v = v * 10 + static_cast<size_t>(*p - '0');
    if (v >= names.size()) v = names.size();  // saturate: no overflow, stays out of range
  }
  return v < names.size() ? static_cast<int>(v) : -1;
}

bool ReloadParam(const char* params, std::string* path) {
  if (!params || !*params) return false;
  *path = params;
  return true;
}

int SwitchParam(const char* params, const std::vector<std::string>& switches, std::string* rest) {
  const std::string p = params != nullptr ? params : "";
  const size_t comma = p.find(',');
  const std::string name = p.substr(0, comma);
  if (switches.size() == 1 && name != switches[0]) {
    *rest = p;
    return 0;
  }
  *rest = comma == std::string::npos ? "" : p.substr(comma + 1);
  for (size_t i = 0; i < switches.size(); i++) {
    if (switches[i] == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace pfc
