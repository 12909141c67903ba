// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the parameter handling of the /pfcswitch/* telemetry
// commands (dataplane/pfcswitch/telemetry_cmd.h). The input is one request line as
// a client sends it ("/pfcswitch/port_stats,p1"); it is split the way DPDK
// 22.11's telemetry thread does before calling a command's callback
// (strtok: leading commas skipped, cut at the next comma, no text after it =
// NULL params). Checks, aborting on a
// violation:
//  * port_stats resolves a port name to its index, a plain decimal index
//    (digits only) below the port count to itself, and anything else to -1;
//    a port whose name is a number is found by its name first;
//  * reload takes any non-empty parameter as the path, verbatim.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dataplane/pfcswitch/telemetry_cmd.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

// Port "1" is port 3's name, so "1" must mean port 3, not index 1.
const std::vector<std::string> kPorts = {"p0", "uplink-1", "p 2", "1", "p0,x"};

bool AllDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

void CheckPort(const char* params) {
  const int r = pfc::pfcswitch::PortParam(params, kPorts);
  FUZZ_CHECK(r >= -1 && r < static_cast<int>(kPorts.size()));
  if (!params) {
    FUZZ_CHECK(r == -1);
    return;
  }
  const std::string p(params);
  for (size_t i = 0; i < kPorts.size(); i++)
    if (kPorts[i] == p) {
      FUZZ_CHECK(r == static_cast<int>(i));
      return;
    }
  if (!AllDigits(p)) {
    FUZZ_CHECK(r == -1);
    return;
  }
  uint64_t v = 0;  // saturates: any long number is out of range
  for (char ch : p) v = std::min<uint64_t>(v * 10 + (ch - '0'), 1'000'000);
  FUZZ_CHECK(r == (v < kPorts.size() ? static_cast<int>(v) : -1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The request as DPDK holds it: a C string (stops at a NUL).
  std::string line(reinterpret_cast<const char*>(data), size);
  line = line.c_str();
  line.erase(0, line.find_first_not_of(','));  // strtok skips leading commas
  const size_t comma = line.find(',');
  const std::string cmd = line.substr(0, comma);
  const std::string rest = comma == std::string::npos ? "" : line.substr(comma + 1);
  const char* params = rest.empty() ? nullptr : rest.c_str();

  if (cmd == "/pfcswitch/port_stats") {
    CheckPort(params);
  } else if (cmd == "/pfcswitch/reload") {
    std::string path;
    const bool ok = pfc::pfcswitch::ReloadParam(params, &path);
    FUZZ_CHECK(ok == (params != nullptr));
    if (ok) FUZZ_CHECK(path == rest);
  } else {
    // Other commands take no parameters; still exercise the parsers on
    // whatever follows the comma.
    CheckPort(params);
    std::string path;
    pfc::pfcswitch::ReloadParam(params, &path);
  }
  // The empty string is not a parameter either.
  FUZZ_CHECK(pfc::pfcswitch::PortParam("", kPorts) == -1);
  std::string path;
  FUZZ_CHECK(!pfc::pfcswitch::ReloadParam("", &path));
  return 0;
}
