// SPDX-License-Identifier: BSD-3-Clause
// How much memory the machine has for us and how much we hold, from
// /proc: what the fabric emulator checks before it runs a fabric that
// could not fit (the OOM killer would otherwise end it mid-run), and caps
// its mbuf pool's growth with. Header-only, no DPDK; any thread.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace pfc {

// MemAvailable (bytes) in a /proc/meminfo text ("MemAvailable:  123 kB"),
// 0 when it has none.
inline uint64_t ParseMemAvailable(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string key, unit;
  uint64_t kb = 0;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

// The kernel's estimate of what can be allocated without swapping (bytes),
// 0 when unknown.
inline uint64_t MemAvailableBytes() {
  std::ifstream f("/proc/meminfo");
  std::stringstream s;
  s << f.rdbuf();
  return ParseMemAvailable(s.str());
}

// This process's resident set (bytes), 0 when unknown.
inline uint64_t ResidentBytes() {
  unsigned long long size = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

}  // namespace pfc
