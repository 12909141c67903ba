// SPDX-License-Identifier: BSD-3-Clause
// Config loader cases found by tests/fuzz/fuzz_config.cc (each input is also
// in tests/fuzz/corpus/config/regress-*), loaded from memory through the
// loader's ReadTextFn as the fuzzer does.
#include <gtest/gtest.h>

#include <map>

#include "dataplane/config/config.h"

namespace pfc {
namespace {

// Loads `text` as /t/switch.yaml; *err holds the error on failure.
bool LoadText(const std::string& text, config::SwitchConfig* c, std::string* err) {
  const std::map<std::string, std::string> files = {{"/t/switch.yaml", text}};
  return config::LoadConfig("/t/switch.yaml", c, err,
                            [&](const std::string& path, std::string* out) {
                              auto it = files.find(path);
                              if (it == files.end()) return false;
                              *out = it->second;
                              return true;
                            });
}

TEST(ConfigLoad, LoadsFromMemory) {
  config::SwitchConfig c;
  std::string err;
  ASSERT_TRUE(
      LoadText("ports: [{ name: p0, device: d0, ipv4: 10.0.1.1/24, speed: 10G }]", &c, &err))
      << err;
  EXPECT_EQ(c.ports.size(), 1u);
  EXPECT_FALSE(
      LoadText("ports: [{ name: p0, device: d0, speed: 10G }]\ninclude: rules.yaml", &c, &err));
  EXPECT_NE(err.find("/t/switch.yaml:2: include: expected a readable rules file"),
            std::string::npos)
      << err;
}

// The runtime refuses a PFC generator that would refresh XOFF more often than
// once a microsecond (4096 quanta at 1 Tb/s = 2.1 us, refreshed at 25%);
// --check-config and `pfcctl load` used to accept such a config, and
// pfcswitch then stopped at start.
TEST(ConfigLoad, PfcRefreshTooFastForThePortSpeedIsAConfigError) {
  const std::string cfg =
      "ports: [{ name: fast, device: d0, ipv4: 10.0.1.1/24, speed: 1T }]\n"
      "pfc: { pause_quanta: 4096, refresh_fraction: 0.25 }\n";
  config::SwitchConfig c;
  std::string err;
  EXPECT_FALSE(LoadText(cfg, &c, &err));
  EXPECT_EQ(
      err.rfind("/t/switch.yaml: pfc.pause_quanta and pfc.refresh_fraction at port fast's speed",
                0),
      0u)
      << err;
  // The same settings at 10G refresh every 52 us: fine.
  EXPECT_TRUE(
      LoadText("ports: [{ name: p, device: d0, ipv4: 10.0.1.1/24, speed: 10G }]\n"
               "pfc: { pause_quanta: 4096, refresh_fraction: 0.25 }\n",
               &c, &err))
      << err;
}

// pfc.decide: poll (the default) or on_change, into every port's generator;
// anything else names the field and both choices.
TEST(ConfigLoad, PfcDecide) {
  const std::string port = "ports: [{ name: p, device: d0, ipv4: 10.0.1.1/24, speed: 10G }]\n";
  config::SwitchConfig c;
  std::string err;
  ASSERT_TRUE(LoadText(port, &c, &err)) << err;
  EXPECT_FALSE(config::PfcGenFor(c, c.ports[0]).on_change);
  ASSERT_TRUE(LoadText(port + "pfc: { decide: on_change }\n", &c, &err)) << err;
  EXPECT_TRUE(config::PfcGenFor(c, c.ports[0]).on_change);
  EXPECT_FALSE(LoadText(port + "pfc: { decide: edge }\n", &c, &err));
  EXPECT_NE(err.find("/t/switch.yaml:2: pfc.decide: expected poll (every look"), std::string::npos)
      << err;
  EXPECT_NE(err.find("or on_change"), std::string::npos) << err;
}

// Reading /dev/zero (a mistyped /pfcswitch/reload path) never ended; a FIFO
// would block the telemetry thread. Only regular files are read.
TEST(ConfigLoad, OnlyRegularFilesAreRead) {
  config::SwitchConfig base, next;
  std::string err;
  ASSERT_TRUE(
      LoadText("ports: [{ name: p0, device: d0, ipv4: 10.0.1.1/24, speed: 10G }]", &base, &err));
  EXPECT_FALSE(config::LoadUpdate("/dev/zero", base, &next, &err));
  EXPECT_EQ(err, "/dev/zero: cannot open file (expected a readable regular file)");
  EXPECT_FALSE(config::LoadConfig(::testing::TempDir(), &next, &err));
  EXPECT_NE(err.find("cannot open file"), std::string::npos) << err;
  std::string text;
  EXPECT_FALSE(config::ReadRegularFile("/dev/null", &text));
}

}  // namespace
}  // namespace pfc
