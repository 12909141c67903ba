// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/capture.h"

namespace pfc::pfcswitch {

std::string CaptureUnavailableReason(const std::vector<std::string>& eal_args) {
  for (const auto& a : eal_args) {
    if (a == "--no-shconf" || a == "--in-memory")
      return "EAL " + a + " turns off the shared config dpdk-dumpcap attaches to";
    if (a == "--no-huge")
      return "EAL --no-huge memory cannot be mapped by a secondary process in DPDK 22.11 "
             "(give the switch hugepages)";
  }
  return "";
}

}  // namespace pfc::pfcswitch
