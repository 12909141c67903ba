// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/app/telemetry_cmd.h"

#include <cstdlib>

namespace pfc {

int PortParam(const char* params, const std::vector<std::string>& names) {
  if (!params || !*params) return -1;
  for (size_t i = 0; i < names.size(); i++)
    if (names[i] == params) return static_cast<int>(i);
  char* end;
  long v = std::strtol(params, &end, 10);
  if (*end || v < 0 || v >= static_cast<long>(names.size())) return -1;
  return static_cast<int>(v);
}

bool ReloadParam(const char* params, std::string* path) {
  if (!params || !*params) return false;
  *path = params;
  return true;
}

}  // namespace pfc
