// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/telemetry_cmd.h"

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

// Several switches (pfcfabric): the name comes first. One switch (pfcswitch,
// or one part of a split fabric): the name may be given or left out.
TEST(SwitchParam, NameFirstWithSeveralOptionalWithOne) {
  std::string rest;
  const std::vector<std::string> many = {"S1", "S2"};
  EXPECT_EQ(SwitchParam("S2,H1", many, &rest), 1);
  EXPECT_EQ(rest, "H1");
  EXPECT_EQ(SwitchParam("S1", many, &rest), 0);
  EXPECT_EQ(rest, "");
  EXPECT_EQ(SwitchParam("H1", many, &rest), -1);
  EXPECT_EQ(SwitchParam(nullptr, many, &rest), -1);
  const std::vector<std::string> one = {"S1"};
  EXPECT_EQ(SwitchParam("S1,H1", one, &rest), 0);
  EXPECT_EQ(rest, "H1");
  EXPECT_EQ(SwitchParam("H1", one, &rest), 0);
  EXPECT_EQ(rest, "H1");
  EXPECT_EQ(SwitchParam(nullptr, one, &rest), 0);
  EXPECT_EQ(rest, "");
}

}  // namespace
}  // namespace pfc
