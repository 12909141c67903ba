// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/capture.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

TEST(CaptureUnavailableReason, SharedConfigWithHugepagesCanCapture) {
  EXPECT_EQ(pfcswitch::CaptureUnavailableReason({}), "");
  EXPECT_EQ(pfcswitch::CaptureUnavailableReason({"-l", "0,1", "-m", "128", "--file-prefix", "sw1",
                                                 "--vdev", "net_af_packet0,iface=veth0"}),
            "");
}

TEST(CaptureUnavailableReason, NamesTheArgumentThatPreventsIt) {
  EXPECT_EQ(pfcswitch::CaptureUnavailableReason({"-l", "0", "--no-shconf"}),
            "EAL --no-shconf turns off the shared config dpdk-dumpcap attaches to");
  EXPECT_EQ(pfcswitch::CaptureUnavailableReason({"--in-memory"}),
            "EAL --in-memory turns off the shared config dpdk-dumpcap attaches to");
  EXPECT_EQ(pfcswitch::CaptureUnavailableReason({"--no-huge", "-m", "256"}),
            "EAL --no-huge memory cannot be mapped by a secondary process in DPDK 22.11 "
            "(give the switch hugepages)");
  // The first one given is named.
  EXPECT_EQ(pfcswitch::CaptureUnavailableReason({"--no-huge", "--no-shconf"}).substr(0, 13),
            "EAL --no-huge");
}

TEST(CaptureUnavailableReason, OnlyWholeArgumentsCount) {
  // A vdev argument or a prefix that merely contains the words does not.
  EXPECT_EQ(pfcswitch::CaptureUnavailableReason(
                {"--file-prefix", "no-huge", "--vdev", "net_null0,x=--no-shconf"}),
            "");
}

}  // namespace
}  // namespace pfc
