// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/spec/cpu_plan.h"

#include <sched.h>

namespace pfc::emulator {

std::vector<unsigned> AllowedCpus() {
  std::vector<unsigned> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (unsigned c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

std::string LcoreMap(const std::vector<unsigned>& cpus, unsigned lcores, unsigned first) {
  std::string map;
  for (unsigned i = 0; i < lcores; i++) {
    if (i != 0) map += ',';
    map += std::to_string(i) + '@' + std::to_string(cpus[(first + i) % cpus.size()]);
  }
  return map;
}

}  // namespace pfc::emulator
