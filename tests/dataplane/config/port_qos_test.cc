// SPDX-License-Identifier: BSD-3-Clause
// A port's SONiC-named fields: `speed` as a bare number of Mb/s (SONiC's
// PORT table) beside rates with a unit, and `pfc_enable` (SONiC's
// PORT_QOS_MAP): which lossless priorities a port runs PFC on, what the
// buffer, the PFC generator settings and the errors make of it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "dataplane/config/config.h"

namespace pfc {
namespace {

namespace fs = std::filesystem;

class PortQosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ =
        (fs::path(::testing::TempDir()) / ("port_qos_test_" + std::to_string(getpid()) + ".yaml"))
            .string();
  }
  void TearDown() override { fs::remove(path_); }
  // Loads a config whose p0 has `p0` appended to its flow map and whose p1
  // has `p1`; "" when it loaded, else the error.
  std::string Load(
      const std::string& p0, const std::string& p1 = "", config::SwitchConfig* out = nullptr,
      const std::string& qos = "qos: { tag_map: { 24: 3, 26: 4 }, lossless: [3, 4] }\n") {
    text_ = Text(p0, p1, qos);
    std::ofstream(path_) << text_;
    config::SwitchConfig c;
    std::string err;
    if (!config::LoadConfig(path_, &c, &err)) return err;
    if (out) *out = c;
    return "";
  }
  static std::string Text(const std::string& p0, const std::string& p1, const std::string& qos) {
    return "ports:\n"
           "  - { name: p0, device: d0, ipv4: 10.0.1.1/24" +
           p0 +
           " }\n"
           "  - { name: p1, device: d1, ipv4: 10.0.2.1/24, speed: 10G" +
           p1 + " }\n" + qos;
  }
  // "<file>:<line>: <field>: expected" for the line holding `needle`.
  std::string At(const std::string& needle, const std::string& field) const {
    const size_t pos = text_.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    const int line = 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + pos, '\n'));
    return path_ + ":" + std::to_string(line) + ": " + field + ": expected";
  }

  std::string path_, text_;
};

#define EXPECT_HAS(err, text) \
  EXPECT_NE((err).find(text), std::string::npos) << "missing '" << (text) << "' in: " << (err)

TEST_F(PortQosTest, BareSpeedIsMbpsAsInSonic) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(", speed: 100000", "", &c), "");
  EXPECT_EQ(c.ports[0].speed_bps, 100'000'000'000ull) << "SONiC's 100000 is 100G";
  ASSERT_EQ(Load(", speed: \"25000\"", "", &c), "");
  EXPECT_EQ(c.ports[0].speed_bps, 25'000'000'000ull) << "quoted, as SONiC's JSON writes it";
  ASSERT_EQ(Load(", speed: 1000", "", &c), "");
  EXPECT_EQ(c.ports[0].speed_bps, 1'000'000'000ull) << "SONiC's smallest";
  ASSERT_EQ(Load(", speed: 1600000", "", &c), "");
  EXPECT_EQ(c.ports[0].speed_bps, 1'600'000'000'000ull) << "SONiC's largest, 1.6T";
  // The same headroom as the rate with a unit: the bare number is the
  // same speed, not 100,000 bits/s.
  config::SwitchConfig g;
  ASSERT_EQ(Load(", speed: 100G", "", &g), "");
  ASSERT_EQ(Load(", speed: 100000", "", &c), "");
  EXPECT_EQ(c.buffer.pg[0][3].headroom, g.buffer.pg[0][3].headroom);
}

TEST_F(PortQosTest, SpeedsWithAUnitAreBitsPerSecondAsBefore) {
  config::SwitchConfig c;
  for (const auto& [text, bps] :
       std::vector<std::pair<std::string, uint64_t>>{{"10G", 10'000'000'000ull},
                                                     {"2.5G", 2'500'000'000ull},
                                                     {"25000M", 25'000'000'000ull},
                                                     {"100M", 100'000'000ull},
                                                     {"1.6T", 1'600'000'000'000ull}}) {
    ASSERT_EQ(Load(", speed: " + text, "", &c), "") << text;
    EXPECT_EQ(c.ports[0].speed_bps, bps) << text;
  }
}

// Out of range, either way, fails at the speed's own line, naming the field:
// it used to fail as "headroom.port_bps = 100000" with no line.
TEST_F(PortQosTest, OutOfRangeSpeedNamesItsLine) {
  for (const std::string bad : {"999", "1600001", "10000000000", "0", "100K", "2T", "0.5M", "-10G",
                                "fast", "100000.5", "[10G]"}) {
    const std::string err = Load(", speed: " + bad);
    EXPECT_HAS(err, At("name: p0", "ports[0].speed")) << bad;
    EXPECT_HAS(err, "bare number of Mb/s") << bad;
  }
}

TEST_F(PortQosTest, PfcEnableDefaultsToEveryLosslessPriority) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(", speed: 10G", "", &c), "");
  for (const config::PortConfig& p : c.ports) {
    EXPECT_FALSE(p.has_pfc_enable);
    EXPECT_EQ(config::PortPfcMask(c, p), 0x18);
    EXPECT_EQ(config::PfcGenFor(c, p).lossless_mask, 0x18);
  }
  // Written out in full it is the same config as left out.
  config::SwitchConfig full;
  ASSERT_EQ(Load(", speed: 10G, pfc_enable: [3, 4]", "", &full), "");
  for (int q = 0; q < kNumPrio; q++) {
    EXPECT_EQ(full.buffer.pg[0][q].lossless, c.buffer.pg[0][q].lossless) << q;
    EXPECT_EQ(full.buffer.pg[0][q].headroom, c.buffer.pg[0][q].headroom) << q;
    EXPECT_EQ(full.buffer.pg[0][q].reserved, c.buffer.pg[0][q].reserved) << q;
  }
}

TEST_F(PortQosTest, PfcEnableSubsetMakesTheRestLossyOnThatPort) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(", speed: 10G, pfc_enable: [3]", ", pfc_enable: []", &c), "");
  EXPECT_EQ(config::PortPfcMask(c, c.ports[0]), 0x08);
  EXPECT_EQ(config::PortPfcMask(c, c.ports[1]), 0x00);
  EXPECT_EQ(config::PfcGenFor(c, c.ports[0]).lossless_mask, 0x08);
  EXPECT_EQ(config::PfcGenFor(c, c.ports[1]).lossless_mask, 0x00);
  EXPECT_EQ(c.tag_map.lossless_mask, 0x18) << "the switch-wide set is unchanged";
  const buffer::PgConfig& on = c.buffer.pg[0][3];
  EXPECT_TRUE(on.lossless);
  EXPECT_GT(on.headroom, 0u);
  EXPECT_EQ(on.reserved, 16u << 10) << "buffer.lossless's default reserved";
  // p0 priority 4 and p1 priorities 3, 4: lossy groups with buffer.lossy's
  // settings (reserved 0, dynamic alpha 1) and no headroom.
  for (const buffer::PgConfig* g : {&c.buffer.pg[0][4], &c.buffer.pg[1][3], &c.buffer.pg[1][4]}) {
    EXPECT_FALSE(g->lossless);
    EXPECT_EQ(g->headroom, 0u);
    EXPECT_EQ(g->xon_hysteresis, 0u);
    EXPECT_EQ(g->reserved, 0u);
    EXPECT_EQ(g->alpha, 1.0);
  }
}

TEST_F(PortQosTest, PfcEnableTakesSonicsStringForm) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(", speed: 10G, pfc_enable: \"3,4\"", ", pfc_enable: \"4\"", &c), "");
  EXPECT_EQ(config::PortPfcMask(c, c.ports[0]), 0x18);
  EXPECT_EQ(config::PortPfcMask(c, c.ports[1]), 0x10);
  ASSERT_EQ(Load(", speed: 10G, pfc_enable: \"\"", ", pfc_enable: \"3, 4\"", &c), "");
  EXPECT_TRUE(c.ports[0].has_pfc_enable);
  EXPECT_EQ(config::PortPfcMask(c, c.ports[0]), 0x00);
  EXPECT_EQ(config::PortPfcMask(c, c.ports[1]), 0x18);
}

// A priority outside qos.lossless, or not a priority: file, line, field.
TEST_F(PortQosTest, PfcEnableErrorsNameTheLine) {
  std::string err = Load(", speed: 10G", ", pfc_enable: [3, 5]");
  EXPECT_HAS(err, At("name: p1", "ports[1].pfc_enable") + " priorities of qos.lossless (3, 4)");
  err = Load(", speed: 10G, pfc_enable: \"3,6\"");
  EXPECT_HAS(err, At("name: p0", "ports[0].pfc_enable") + " priorities of qos.lossless (3, 4)");
  err = Load(", speed: 10G, pfc_enable: [3]", "", nullptr, "");
  EXPECT_HAS(err, At("name: p0", "ports[0].pfc_enable") + " priorities of qos.lossless (none)");
  EXPECT_HAS(Load(", speed: 10G, pfc_enable: [8]"), At("name: p0", "ports[0].pfc_enable[0]"));
  EXPECT_HAS(Load(", speed: 10G, pfc_enable: \"3;4\""), At("name: p0", "ports[0].pfc_enable"));
  EXPECT_HAS(Load(", speed: 10G, pfc_enable: [3, 3]"),
             At("name: p0", "ports[0].pfc_enable") + " each priority once");
  EXPECT_HAS(Load(", speed: 10G, pfc_enable: { 3: on }"), At("name: p0", "ports[0].pfc_enable"));
}

// A reload cannot change qos.lossless, so a port's pfc_enable stays a subset.
TEST_F(PortQosTest, ReloadKeepsThePortSets) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(", speed: 10G, pfc_enable: [4]", "", &c), "");
  const std::string upd = path_ + ".update.yaml";
  std::ofstream(upd) << "qos: { tag_map: { 24: 3, 26: 4, 10: 1 }, lossless: [3, 4] }\n";
  config::SwitchConfig after;
  std::string err;
  ASSERT_TRUE(config::LoadUpdate(upd, c, &after, &err)) << err;
  EXPECT_EQ(config::PortPfcMask(after, after.ports[0]), 0x10);
  EXPECT_EQ(config::PortPfcMask(after, after.ports[1]), 0x18);
  fs::remove(upd);
}

// headroom: auto pays the cell tax on the share of small frames the class
// says it carries (buffer.lossless.small_packets, percent; 100 by default).
TEST_F(PortQosTest, SmallPacketsScaleTheAutomaticHeadroom) {
  config::SwitchConfig worst, full;
  ASSERT_EQ(Load(", speed: 10G", "", &worst), "");
  const std::string qos = "qos: { tag_map: { 24: 3, 26: 4 }, lossless: [3, 4] }\n";
  ASSERT_EQ(Load(", speed: 10G", "", &full,
                 qos + "buffer: { total_bytes: 4M, lossless: { small_packets: 0 } }\n"),
            "");
  EXPECT_GT(worst.buffer.pg[0][3].headroom, full.buffer.pg[0][3].headroom);
  EXPECT_HAS(Load(", speed: 10G", "", nullptr,
                  qos + "buffer: { total_bytes: 4M, lossless: { small_packets: 120 } }\n"),
             "buffer.lossless.small_packets: expected");
}

}  // namespace
}  // namespace pfc
