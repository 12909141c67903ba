// SPDX-License-Identifier: BSD-3-Clause
// pfcfabric's restart under malloc's huge pages (huge_pages.h).
#include "dataplane/emulator/runtime/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "dataplane/emulator/runtime/env_switch.h"

namespace pfc::emulator {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
// Set for the second start: the caller's GLIBC_TUNABLES ("-" for unset),
// to put back.
constexpr const char* kRestarted = "PFCFABRIC_HUGE_PAGES_RESTARTED";

bool ThpNever() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  // The selected mode is bracketed: "always [madvise] never".
  return !std::getline(f, s) || s.find("[never]") != std::string::npos;
}

}  // namespace

bool HugePagesSettingOk(std::string* err) {
  return EnvSwitchOk("PFCFABRIC_HUGE_PAGES", "the heap on 4 KB pages",
                     "on transparent huge pages, the default", err);
}

bool RestartWithHugePages(char** argv) {
  if (const char* was = std::getenv(kRestarted)) {
    if (std::strcmp(was, "-") == 0)
      unsetenv("GLIBC_TUNABLES");
    else
      setenv("GLIBC_TUNABLES", was, 1);
    unsetenv(kRestarted);
    return true;
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr)
    return std::strstr(tunables, "glibc.malloc.hugetlb=0") == nullptr;
  if (EnvSwitchIs("PFCFABRIC_HUGE_PAGES", "0")) return false;
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return false;
  if (ThpNever()) return false;
  const std::string was = tunables != nullptr ? tunables : "-";
  const std::string now =
      tunables != nullptr && *tunables != '\0' ? was + ":" + kTunable : std::string(kTunable);
  setenv(kRestarted, was.c_str(), 1);
  setenv("GLIBC_TUNABLES", now.c_str(), 1);
  execv("/proc/self/exe", argv);
  // Still here: the exec failed; run as we are, the environment put back.
  unsetenv(kRestarted);
  if (tunables != nullptr)
    setenv("GLIBC_TUNABLES", was.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
  return false;
}

}  // namespace pfc::emulator
