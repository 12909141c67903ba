// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/app/telemetry_cmd.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

const std::vector<std::string> kPorts = {"p0", "p1", "uplink", "1"};

TEST(PortParam, NameFirstThenIndex) {
  EXPECT_EQ(PortParam("p1", kPorts), 1);
  EXPECT_EQ(PortParam("uplink", kPorts), 2);
  EXPECT_EQ(PortParam("1", kPorts), 3);  // a port named "1" wins over index 1
  EXPECT_EQ(PortParam("0", kPorts), 0);
  EXPECT_EQ(PortParam("2", kPorts), 2);
  EXPECT_EQ(PortParam("002", kPorts), 2);
}

TEST(PortParam, NoSuchPort) {
  EXPECT_EQ(PortParam(nullptr, kPorts), -1);
  EXPECT_EQ(PortParam("", kPorts), -1);
  EXPECT_EQ(PortParam("4", kPorts), -1);
  EXPECT_EQ(PortParam("p9", kPorts), -1);
  EXPECT_EQ(PortParam("99999999999999999999999", kPorts), -1);
  EXPECT_EQ(PortParam("0", {}), -1);
}

// Found by fuzz_telemetry_cmd (corpus/telemetry_cmd/regress-*):
// strtol skipped leading white space and took a sign, so "\n2", " 2" and
// "+2" all read port 2.
TEST(PortParam, OnlyPlainDigitsAreAnIndex) {
  EXPECT_EQ(PortParam("\n2", kPorts), -1);
  EXPECT_EQ(PortParam(" 2", kPorts), -1);
  EXPECT_EQ(PortParam("+2", kPorts), -1);
  EXPECT_EQ(PortParam("-0", kPorts), -1);
  EXPECT_EQ(PortParam("2 ", kPorts), -1);
}

TEST(ReloadParam, TakesTheWholeParameter) {
  std::string path;
  EXPECT_FALSE(ReloadParam(nullptr, &path));
  EXPECT_FALSE(ReloadParam("", &path));
  ASSERT_TRUE(ReloadParam("/tmp/rules,v2.yaml", &path));
  EXPECT_EQ(path, "/tmp/rules,v2.yaml");
}

}  // namespace
}  // namespace pfc
