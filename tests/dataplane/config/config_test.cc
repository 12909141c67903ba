// SPDX-License-Identifier: BSD-3-Clause
// The config loader on YAML strings: mistakes it used to accept (a key given
// twice, overlapping subnets, ports named like indexes) and errors that must
// name the file and the line (missing fields, a `via` off its link, an empty
// file, a section in both a file and its include), absolute paths, and
// route tables larger than the route table's next-hop limit.
#include "dataplane/config/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace pfc {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, so relative paths and includes can be tried.
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("config_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  // Loads `text` as sw.yaml; returns the error ("" when it loaded).
  std::string Load(const std::string& text, config::SwitchConfig* out = nullptr) {
    config::SwitchConfig c;
    std::string err;
    const std::string p = Write("sw.yaml", text);
    if (config::LoadConfig(p, &c, &err)) {
      if (out) *out = c;
      return "";
    }
    return err;
  }
  // "<dir>/sw.yaml:<line of needle>:" — where an error must point.
  std::string At(const std::string& text, const std::string& needle,
                 const std::string& file = "sw.yaml") {
    size_t pos = text.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
    return (dir_ / file).string() + ":" + std::to_string(line) + ":";
  }

  fs::path dir_;
};

const std::string kPorts =
    "ports:\n"
    "  - name: p0\n"
    "    device: net_af_packet0\n"
    "    ipv4: 10.0.1.1/24\n"
    "    speed: 10G\n"
    "  - name: p1\n"
    "    device: net_af_packet1\n"
    "    ipv4: 10.0.2.1/24\n"
    "    speed: 10G\n";

#define EXPECT_HAS(err, text) \
  EXPECT_NE((err).find(text), std::string::npos) << "missing '" << (text) << "' in: " << (err)

TEST_F(ConfigTest, GoodConfigLoads) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts, &c), "");
  EXPECT_EQ(c.ports.size(), 2u);
}

// switch.rx_interrupts and interrupt_sleep_ms: defaults, values, range errors.
TEST_F(ConfigTest, RxInterruptSettings) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts, &c), "");
  EXPECT_TRUE(c.rx_interrupts);  // the default: vhost ports wake an idle worker
  EXPECT_EQ(c.interrupt_sleep_ms, 10u);
  ASSERT_EQ(Load(kPorts + "switch: { rx_interrupts: false, interrupt_sleep_ms: 250 }\n", &c), "");
  EXPECT_FALSE(c.rx_interrupts);
  EXPECT_EQ(c.interrupt_sleep_ms, 250u);
  EXPECT_HAS(Load(kPorts + "switch: { interrupt_sleep_ms: 0 }\n"), "switch.interrupt_sleep_ms");
  EXPECT_HAS(Load(kPorts + "switch: { interrupt_sleep_ms: 5000 }\n"), "switch.interrupt_sleep_ms");
  EXPECT_HAS(Load(kPorts + "switch: { rx_interrupts: sometimes }\n"), "switch.rx_interrupts");
}

// The dcfit section: defaults, every field, and errors naming file, line
// and field (DCFIT needs one worker and a lossless priority).
TEST_F(ConfigTest, DcfitSection) {
  const std::string qos = "qos: { tag_map: { 24: 3 }, lossless: [3] }\n";
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts, &c), "");
  EXPECT_FALSE(c.dcfit.enabled);
  EXPECT_FALSE(c.dcfit.recovery_break);
  EXPECT_EQ(c.dcfit.check_timeout_ns, 1'000'000u);
  EXPECT_EQ(c.dcfit.switch_id, -1);
  ASSERT_EQ(Load(kPorts + qos +
                     "dcfit: { enabled: true, recovery: break, check_timeout: 250us, "
                     "switch_id: 12 }\n",
                 &c),
            "");
  EXPECT_TRUE(c.dcfit.enabled);
  EXPECT_TRUE(c.dcfit.recovery_break);
  EXPECT_EQ(c.dcfit.check_timeout_ns, 250'000u);
  EXPECT_EQ(c.dcfit.switch_id, 12);
  const std::string bad_rec = kPorts + qos + "dcfit: { enabled: true, recovery: drop }\n";
  EXPECT_HAS(Load(bad_rec), At(bad_rec, "dcfit:") + " dcfit.recovery: expected detect or break");
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { check_timeout: 5 parsecs }\n"),
             "dcfit.check_timeout: expected a duration such as 500us or 1ms");
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { check_timeout: 20s }\n"), "dcfit.check_timeout");
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { switch_id: 70000 }\n"), "dcfit.switch_id");
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { enable: true }\n"), "dcfit");
  // Several workers share the switch's DCFIT state (sharded counts, a lock).
  EXPECT_TRUE(Load(kPorts + qos + "switch: { workers: 2 }\ndcfit: { enabled: true }\n").empty());
  EXPECT_HAS(Load(kPorts + "dcfit: { enabled: true }\n"),
             "dcfit.enabled: expected a lossless priority");
}

// buffer.lossless_by_speed: a port of that speed takes those lossless
// settings over buffer.lossless's (here alpha, as the HPCC simulator gives
// faster ports a larger share); other ports and the lossy groups keep theirs.
TEST_F(ConfigTest, LosslessBufferBySpeed) {
  std::string mixed = kPorts;
  mixed.replace(mixed.rfind("speed: 10G"), 10, "speed: 40G");  // p1
  const std::string qos = "qos: { tag_map: { 24: 3 }, lossless: [3] }\n";
  config::SwitchConfig c;
  ASSERT_EQ(Load(mixed + qos +
                     "buffer: { lossless: { reserved: 4K, alpha: 0.125, xon_hysteresis: 3K },\n"
                     "          lossless_by_speed: { 40G: { alpha: 0.5 } } }\n",
                 &c),
            "");
  EXPECT_DOUBLE_EQ(c.buffer.pg[0][3].alpha, 0.125);
  EXPECT_DOUBLE_EQ(c.buffer.pg[1][3].alpha, 0.5);
  EXPECT_EQ(c.buffer.pg[1][3].reserved, 4096u) << "the rest from buffer.lossless";
  EXPECT_EQ(c.buffer.pg[1][3].xon_hysteresis, 3072u);
  EXPECT_DOUBLE_EQ(c.buffer.pg[1][0].alpha, 1.0) << "a lossy group keeps buffer.lossy's";
  const std::string twice = mixed + qos + "buffer: { lossless_by_speed: { 40G: {}, 40000: {} } }\n";
  EXPECT_HAS(Load(twice), "buffer.lossless_by_speed.40000: expected a speed not already given");
  EXPECT_HAS(Load(mixed + qos + "buffer: { lossless_by_speed: { fast: { alpha: 1 } } }\n"),
             "buffer.lossless_by_speed.fast: expected a speed such as 100G");
  EXPECT_HAS(Load(mixed + qos + "buffer: { lossless_by_speed: { 40G: { limit: 1M } } }\n"),
             "limit");
}

// Initial-trigger handling: defaults, both forms of rate_limit, errors.
TEST_F(ConfigTest, DcfitTriggerHandling) {
  const std::string qos = "qos: { tag_map: { 24: 3 }, lossless: [3] }\n";
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts, &c), "");
  EXPECT_FALSE(c.dcfit.trigger_handling);
  EXPECT_EQ(c.dcfit.hold_ns, 10'000'000u);
  EXPECT_DOUBLE_EQ(c.dcfit.rate_limit_fraction, 0.5);
  EXPECT_EQ(c.dcfit.rate_limit_bps, 0u);
  ASSERT_EQ(Load(kPorts + qos +
                     "dcfit: { enabled: true, recovery: break, trigger_handling: true, "
                     "hold_time: 2ms, rate_limit: 0.25 }\n",
                 &c),
            "");
  EXPECT_TRUE(c.dcfit.trigger_handling);
  EXPECT_EQ(c.dcfit.hold_ns, 2'000'000u);
  EXPECT_DOUBLE_EQ(c.dcfit.rate_limit_fraction, 0.25);
  EXPECT_EQ(c.dcfit.rate_limit_bps, 0u);
  ASSERT_EQ(Load(kPorts + qos + "dcfit: { rate_limit: 5G }\n", &c), "");
  EXPECT_EQ(c.dcfit.rate_limit_bps, 5'000'000'000u);
  const std::string want = "dcfit.rate_limit: expected a fraction of the egress port's line rate";
  const std::string frac = kPorts + qos + "dcfit: { rate_limit: 1.5 }\n";
  EXPECT_HAS(Load(frac), At(frac, "dcfit:") + " " + want);
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { rate_limit: 0 }\n"), want);
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { rate_limit: 5 parsecs }\n"), want);
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { hold_time: 0 }\n"), "dcfit.hold_time: expected");
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { trigger_handling: maybe }\n"),
             "dcfit.trigger_handling: expected true or false");
  EXPECT_HAS(Load(kPorts + qos + "dcfit: { enabled: true, trigger_handling: true }\n"),
             "dcfit.trigger_handling: expected recovery: break");
}

// The pfc_watchdog section: defaults (off, 500 us, 10 ms, drop), every field,
// per-port overrides over the section's values, and errors naming file,
// line and field.
TEST_F(ConfigTest, PfcWatchdogSection) {
  const std::string qos = "qos: { tag_map: { 24: 3 }, lossless: [3] }\n";
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts, &c), "");
  for (PortId p : {0, 1}) {
    const pause::PfcwdConfig& s = config::PfcWatchdogFor(c, p);
    EXPECT_FALSE(s.enabled);
    EXPECT_EQ(s.detect_ns, 500'000u);
    EXPECT_EQ(s.restore_ns, 10'000'000u);
    EXPECT_EQ(s.action, pause::PfcwdAction::kDrop);
  }
  ASSERT_EQ(Load(kPorts + qos +
                     "pfc_watchdog:\n"
                     "  enabled: true\n"
                     "  detect_time: 200us\n"
                     "  restore_time: 5ms\n"
                     "  action: forward\n"
                     "  ports:\n"
                     "    - { name: p1, action: alert, detect_time: 2ms }\n",
                 &c),
            "");
  const pause::PfcwdConfig& p0 = config::PfcWatchdogFor(c, 0);
  EXPECT_TRUE(p0.enabled);
  EXPECT_EQ(p0.detect_ns, 200'000u);
  EXPECT_EQ(p0.restore_ns, 5'000'000u);
  EXPECT_EQ(p0.action, pause::PfcwdAction::kForward);
  const pause::PfcwdConfig& p1 = config::PfcWatchdogFor(c, 1);
  EXPECT_TRUE(p1.enabled) << "inherited from the section";
  EXPECT_EQ(p1.detect_ns, 2'000'000u);
  EXPECT_EQ(p1.restore_ns, 5'000'000u);
  EXPECT_EQ(p1.action, pause::PfcwdAction::kAlert);
  ASSERT_EQ(Load(kPorts + qos + "pfc_watchdog: { ports: [ { name: p0, enabled: true } ] }\n", &c),
            "");
  EXPECT_TRUE(config::PfcWatchdogFor(c, 0).enabled);
  EXPECT_FALSE(config::PfcWatchdogFor(c, 1).enabled);

  const std::string bad_act = kPorts + qos + "pfc_watchdog:\n  action: shout\n";
  EXPECT_HAS(Load(bad_act),
             At(bad_act, "  action:") + " pfc_watchdog.action: expected drop, forward or alert");
  const std::pair<const char*, const char*> bad[] = {
      {"{ detect_time: soon }", "pfc_watchdog.detect_time: expected a duration such as 500us"},
      {"{ restore_time: 500ns }", "pfc_watchdog.restore_time: expected a duration"},
      {"{ ports: [ { name: p0 }, { name: p0 } ] }",
       "pfc_watchdog.ports[1].name: expected each port once"},
      {"{ ports: [ { action: drop } ] }",
       "pfc_watchdog.ports[0].name: expected a port name from 'ports' (missing)"},
      {"{ ports: [ { name: p0, detect: 1ms } ] }", "pfc_watchdog.ports[0]"},
      {"{ enable: true }", "pfc_watchdog"},
  };
  for (const auto& [section, want] : bad)
    EXPECT_HAS(Load(kPorts + qos + "pfc_watchdog: " + section + "\n"), want);
  const std::string bad_port = kPorts + qos + "pfc_watchdog:\n  ports:\n    - { name: p7 }\n";
  EXPECT_HAS(Load(bad_port),
             At(bad_port, "    - {") + " pfc_watchdog.ports[0].name: expected a port name");
  EXPECT_HAS(Load(kPorts + "pfc_watchdog: { enabled: true }\n"),
             "pfc_watchdog.enabled: expected a lossless priority");
}

// The ecn section: SONiC's WRED profile fields, queues by port and
// priority (later entries win, "*" or no ports = every port), the seed, and
// errors with lines for each field.
TEST_F(ConfigTest, EcnSection) {
  const std::string ecn =
      "ecn:\n"
      "  seed: 9\n"
      "  profiles:\n"
      "    AZURE_LOSSLESS: { green_min_threshold: 50K, green_max_threshold: 200K,\n"
      "                      green_drop_probability: 5 }\n"
      "    STEP: { green_min_threshold: 30000, green_max_threshold: 30000,\n"
      "            green_drop_probability: 0, mark_at: dequeue }\n"
      "  queues:\n"
      "    - { priorities: [3, 4], profile: AZURE_LOSSLESS }\n"
      "    - { ports: [p1], priorities: [4], profile: STEP }\n";
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts + ecn, &c), "");
  EXPECT_EQ(c.ecn.seed, 9u);
  ASSERT_EQ(c.ecn.profiles.size(), 2u);
  EXPECT_EQ(c.ecn.profiles[0].name, "AZURE_LOSSLESS");
  EXPECT_EQ(c.ecn.profiles[0].min_bytes, 50u << 10);
  EXPECT_EQ(c.ecn.profiles[0].max_bytes, 200u << 10);
  EXPECT_DOUBLE_EQ(c.ecn.profiles[0].max_prob, 0.05);
  EXPECT_FALSE(c.ecn.profiles[0].at_dequeue) << "enqueue unless the profile says";
  EXPECT_TRUE(c.ecn.profiles[1].at_dequeue);
  ASSERT_EQ(c.ecn.queue.size(), 2u);
  EXPECT_EQ(c.ecn.queue[0][3], 0);
  EXPECT_EQ(c.ecn.queue[0][4], 0);
  EXPECT_EQ(c.ecn.queue[1][4], 1) << "the later entry wins";
  EXPECT_EQ(c.ecn.queue[1][0], -1);
  EXPECT_TRUE(c.ecn.any());
  ASSERT_EQ(Load(kPorts, &c), "");
  EXPECT_FALSE(c.ecn.any()) << "no section, no marking";
  // A queue entry by port speed (p0 10G, p1 made 25G): thresholds per link
  // rate.
  std::string mixed = kPorts;
  mixed.replace(mixed.rfind("speed: 10G"), 10, "speed: 25G");
  ASSERT_EQ(Load(mixed + "ecn:\n"
                         "  profiles:\n"
                         "    SLOW: { green_min_threshold: 10K, green_max_threshold: 40K, "
                         "green_drop_probability: 20 }\n"
                         "    FAST: { green_min_threshold: 25K, green_max_threshold: 100K, "
                         "green_drop_probability: 20 }\n"
                         "  queues:\n"
                         "    - { speed: 10G, priorities: [3], profile: SLOW }\n"
                         "    - { speed: 25000, priorities: [3], profile: FAST }\n",
                 &c),
            "");
  EXPECT_EQ(c.ecn.queue[0][3], 0);
  EXPECT_EQ(c.ecn.queue[1][3], 1);

  const std::string prof =
      "  profiles: { P: { green_min_threshold: 1K, green_max_threshold: 2K, "
      "green_drop_probability: 1 } }\n";
  const std::pair<std::string, const char*> bad[] = {
      {"  profiles: { P: { green_min_threshold: 2K, green_max_threshold: 1K, "
       "green_drop_probability: 1 } }\n  queues: []\n",
       "ecn.profiles.P.green_max_threshold: expected at least green_min_threshold (2048 bytes)"},
      {"  profiles: { P: { green_min_threshold: 1K, green_max_threshold: 2K, "
       "green_drop_probability: 150 } }\n  queues: []\n",
       "ecn.profiles.P.green_drop_probability: expected"},
      {"  profiles: { P: { green_min_threshold: 1K, green_drop_probability: 1 } }\n  queues: []\n",
       "ecn.profiles.P.green_max_threshold: expected bytes of queue where every ECN-capable packet "
       "is marked (missing)"},
      {"  profiles: { P: { green_min_threshold: 1K, green_max_threshold: 2K, "
       "green_drop_probability: 1, yellow_max_threshold: 1 } }\n  queues: []\n",
       "yellow_max_threshold"},
      {"  profiles: { P: { green_min_threshold: 1K, green_max_threshold: 2K, "
       "green_drop_probability: 1, mark_at: egress } }\n  queues: []\n",
       "ecn.profiles.P.mark_at: expected enqueue (the bytes ahead of the packet) or dequeue"},
      {prof + "  queues: [ { priorities: [3], profile: Q } ]\n",
       "ecn.queues[0].profile: expected a profile from ecn.profiles"},
      {prof + "  queues: [ { priorities: [8], profile: P } ]\n", "ecn.queues[0].priorities[0]"},
      {prof + "  queues: [ { ports: [p9], priorities: [3], profile: P } ]\n",
       "ecn.queues[0].ports[0]: expected a port name"},
      {prof + "  queues: [ { profile: P } ]\n", "ecn.queues[0].priorities: expected"},
      {prof + "  queues: [ { speed: fast, priorities: [3], profile: P } ]\n",
       "ecn.queues[0].speed: expected a speed such as 100G"},
      {prof, "ecn.queues: expected a list of {ports, priorities, profile} (missing)"},
  };
  for (const auto& [section, want] : bad) {
    const std::string text = kPorts + "ecn:\n" + section;
    const std::string err = Load(text);
    EXPECT_HAS(err, want);
    EXPECT_HAS(err, (dir_ / "sw.yaml").string() + ":1");  // every error has a line (1x)
  }
}

// Section int: priorities as a mask, insert and multi; garbage and a port
// whose speed no INT record can name refused with the field.
TEST_F(ConfigTest, IntSection) {
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts + "int: { priorities: [3, 5], insert: false, multi: 4 }\n", &c), "");
  EXPECT_EQ(c.telemetry.prios, 0x28);
  EXPECT_FALSE(c.telemetry.insert);
  EXPECT_EQ(c.telemetry.multi, 4u);
  EXPECT_FALSE(c.telemetry.pint()) << "HPCC-PINT off without int.pint";
  ASSERT_EQ(
      Load(kPorts + "int: { priorities: [3], pint: { log_base: 1.05, rtt: 12240 }, seed: 9 }\n",
           &c),
      "");
  EXPECT_TRUE(c.telemetry.pint());
  EXPECT_EQ(c.telemetry.pint_log_base, 1.05);
  EXPECT_EQ(c.telemetry.pint_rtt_ns, 12'240u) << "a plain number is nanoseconds";
  EXPECT_EQ(c.telemetry.seed, 9u);
  ASSERT_EQ(Load(kPorts, &c), "");
  EXPECT_FALSE(c.telemetry.any()) << "off without the section";
  const std::pair<std::string, const char*> bad[] = {
      {"int: { priorities: [8] }\n", "int.priorities[0]: expected"},
      {"int: { priorities: [] }\n", "int.priorities: expected at least one egress priority"},
      {"int: { insert: true }\n", "int.priorities: expected a list of egress priorities 0..7"},
      {"int: { priorities: [3], multi: 0 }\n", "int.multi: expected"},
      {"int: { priorities: [3], multi: many }\n", "int.multi: expected"},
      {"int: { priorities: [3], insert: maybe }\n", "int.insert: expected"},
      {"int: { priorities: [3], hops: 5 }\n", "hops"},
      {"int: [3]\n", "int: expected"},
      {"int: { priorities: [3], pint: { rtt: 9us } }\n", "int.pint.log_base: expected a number"},
      {"int: { priorities: [3], pint: { log_base: 1.0001, rtt: 9us } }\n",
       "int.pint.log_base: expected"},
      {"int: { priorities: [3], pint: { log_base: 1.01 } }\n", "int.pint.rtt: expected a duration"},
      {"int: { priorities: [3], pint: { log_base: 1.01, rtt: 1ns } }\n", "int.pint.rtt: expected"},
      {"int: { priorities: [3], pint: { log_base: 1.01, rtt: 9us, eps: 1 } }\n", "eps"},
      {"int: { priorities: [3], seed: -1 }\n", "int.seed: expected"},
  };
  for (const auto& [section, want] : bad) {
    const std::string err = Load(kPorts + section);
    EXPECT_HAS(err, want);
    EXPECT_HAS(err, (dir_ / "sw.yaml").string() + ":");
  }
  std::string slow = kPorts;
  slow.replace(slow.find("speed: 10G"), 10, "speed: 1G");
  EXPECT_HAS(Load(slow + "int: { priorities: [3] }\n"),
             "int: expected ports whose speed an INT record can name");
  EXPECT_HAS(Load(slow + "int: { priorities: [3] }\n"), "port p0 has speed 1000M");
}

TEST_F(ConfigTest, KeyGivenTwiceNamesTheKeyAndBothLines) {
  std::string text = kPorts;
  text.replace(text.find("    speed: 10G\n"), 0, "    speed: 25G\n");  // p0 now has speed twice
  const std::string err = Load(text);
  const size_t second = text.find("    speed: 10G\n");
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + second, '\n'));
  EXPECT_HAS(err, (dir_ / "sw.yaml").string() + ":" + std::to_string(line) + ": ports[0].speed");
  EXPECT_HAS(err, "already given at line " + std::to_string(line - 1));
}

TEST_F(ConfigTest, KeyGivenTwiceAtTopLevelAndInFlowMaps) {
  EXPECT_HAS(Load(kPorts + "switch: { mode: l3, mode: l2 }\n"),
             "switch.mode: expected each key once");
  EXPECT_HAS(Load(kPorts + "pfc: { pause_quanta: 100 }\npfc: { pause_quanta: 200 }\n"),
             "pfc: expected each key once");
  // Two spellings of one number are one tag.
  EXPECT_HAS(Load(kPorts + "qos: { tag_map: { 24: 3, 0x18: 4 }, lossless: [3] }\n"),
             "a tag not already mapped");
}

TEST_F(ConfigTest, OverlappingSubnetsAreRejected) {
  std::string text = kPorts;
  text.replace(text.find("10.0.2.1/24"), 11, "10.0.0.1/16");
  const std::string err = Load(text);
  EXPECT_HAS(err, At(text, "10.0.0.1/16") + " ports[1].ipv4");
  EXPECT_HAS(err, "port p0's 10.0.1.1/24");
  // Same subnet, same length.
  text = kPorts;
  text.replace(text.find("10.0.2.1/24"), 11, "10.0.1.2/24");
  EXPECT_HAS(Load(text), "ports[1].ipv4: expected a subnet apart from port p0");
  // Adjacent /25s do not overlap.
  text = kPorts;
  text.replace(text.find("10.0.1.1/24"), 11, "10.0.1.1/25");
  text.replace(text.find("10.0.2.1/24"), 11, "10.0.1.129/25");
  EXPECT_EQ(Load(text), "");
}

TEST_F(ConfigTest, PortNamesThatReadAsIndexesAreRejected) {
  for (const char* name : {"0", "1", "\"1\"", "007"}) {
    std::string text = kPorts;
    text.replace(text.find("name: p1"), 8, std::string("name: ") + name);
    const std::string err = Load(text);
    EXPECT_HAS(err, At(text, std::string("name: ") + name) + " ports[1].name");
    EXPECT_HAS(err, "not a number");
  }
  // Digits inside a name are fine, and an index still picks the port.
  std::string text = kPorts;
  text.replace(text.find("name: p1"), 8, "name: 1g");
  config::SwitchConfig c;
  ASSERT_EQ(
      Load(text + "rewrite: { rules: [ { tag: \"*\", in: [1], out: [0], new_tag: 5 } ] }\n", &c),
      "");
  EXPECT_EQ(c.rewrite.rules[0].in_ports, PortMask{2});
}

TEST_F(ConfigTest, MissingFieldNamesTheLineOfItsMap) {
  std::string text = kPorts;
  text.erase(text.find("    device: net_af_packet1\n"), 27);
  std::string err = Load(text);
  EXPECT_HAS(err, At(text, "  - name: p1") + " ports[1].device: expected");
  EXPECT_HAS(err, "(missing)");

  text = kPorts;
  text.erase(text.find("    speed: 10G\n"), 15);
  EXPECT_HAS(Load(text), At(text, "  - name: p0") + " ports[0].speed: expected the link speed");

  text = kPorts;
  text.erase(text.find("    ipv4: 10.0.2.1/24\n"), 22);
  EXPECT_HAS(Load(text), At(text, "  - name: p1") + " ports[1].ipv4: expected an address");

  text = kPorts;
  text.erase(text.find("  - name: p0\n"), 13);
  text.replace(text.find("    device: net_af_packet0"), 4, "  - ");
  EXPECT_HAS(Load(text), At(text, "  - device: net_af_packet0") + " ports[0].name: expected");

  text = "switch:\n  mode: l3\n";
  EXPECT_HAS(Load(text), (dir_ / "sw.yaml").string() + ":1: ports: expected a list");

  text = kPorts + "rewrite:\n  rules:\n    - tag: 3\n      in: [p0]\n";
  EXPECT_HAS(Load(text), At(text, "    - tag: 3") + " rewrite.rules[0].new_tag: expected the tag");
  // A rule's tag is never implied ("any tag" would make lossy packets
  // lossless): written "*" it is any tag, left out it is an error.
  text = kPorts + "rewrite:\n  rules:\n    - in: [p0]\n      new_tag: 5\n";
  EXPECT_HAS(Load(text), At(text, "    - in: [p0]") +
                             " rewrite.rules[0].tag: expected a tag 0..63, a list of tags, or "
                             "\"*\" for any tag");
  {
    config::SwitchConfig c;
    ASSERT_EQ(Load(kPorts + "rewrite: { rules: [ { tag: \"*\", new_tag: 5 } ] }\n", &c), "");
    EXPECT_EQ(c.rewrite.rules[0].tags, kAnyTag);
    EXPECT_EQ(c.rewrite.rules[0].in_ports, kAnyPort);  // in/out left out: any port
  }

  text = kPorts + "routes:\n  - prefix: 10.9.0.0/16\n";
  EXPECT_HAS(Load(text), At(text, "  - prefix") + " routes[0].port: expected");

  text = kPorts + "neighbors:\n  - ip: 10.0.1.5\n    port: p0\n";
  EXPECT_HAS(Load(text), At(text, "  - ip: 10.0.1.5") + " neighbors[0].mac: expected");
}

TEST_F(ConfigTest, ViaOutsideTheSubnetNamesItsLine) {
  const std::string text =
      kPorts + "routes:\n  - prefix: 10.9.0.0/16\n    port: p1\n    via: 10.0.1.9\n";
  const std::string err = Load(text);
  EXPECT_HAS(err, At(text, "    via: 10.0.1.9") + " routes[0].via");
  EXPECT_HAS(err, "inside port p1's subnet 10.0.2.0/24");
  EXPECT_EQ(Load(kPorts + "routes:\n  - { prefix: 10.9.0.0/16, port: p1, via: 10.0.2.9 }\n"), "");
}

TEST_F(ConfigTest, EmptyFileSaysSoAtLineOne) {
  for (const char* text : {"", "# nothing but a comment\n", "\n\n"}) {
    const std::string err = Load(text);
    EXPECT_HAS(err, (dir_ / "sw.yaml").string() + ":1:");
    EXPECT_HAS(err, "empty file");
  }
}

TEST_F(ConfigTest, SectionInFileAndIncludeNamesBothPlaces) {
  const std::string rules = "# rules\nqos:\n  tag_map: { 24: 3 }\n";
  Write("rules.yaml", rules);
  const std::string text = kPorts + "include: rules.yaml\nqos:\n  lossless: [3]\n";
  const std::string err = Load(text);
  EXPECT_HAS(err, At(text, "qos:") + " qos");
  EXPECT_HAS(err, (dir_ / "rules.yaml").string() + ":2");
  // And says which to keep: Tagger's rules carry the tag map they need.
  EXPECT_HAS(err, "remove it from this file; the rules file's qos is the tag map its rules were");
  EXPECT_HAS(err, "pfc-tagger tag --plan");
}

TEST_F(ConfigTest, ListOfTheWrongLengthSaysItsLength) {
  std::string text = kPorts;
  text.replace(text.find("    speed: 10G\n"), 0,
               "    scheduler: { mode: dwrr, quantum: [1500, 1500, 1500, 1500, 1500] }\n");
  const std::string err = Load(text);
  EXPECT_HAS(err, "ports[0].scheduler.quantum: expected a list of 8 byte counts (got a list of 5)");
}

TEST_F(ConfigTest, PathsAreRecordedAbsolute) {
  Write("rules.yaml", "rewrite: { rules: [ { tag: \"*\", in: [p0], out: [p1], new_tag: 7 } ] }\n");
  Write("sw.yaml", kPorts + "include: rules.yaml\n");
  const fs::path old = fs::current_path();
  fs::current_path(dir_);
  config::SwitchConfig c;
  std::string err;
  const bool ok = config::LoadConfig("sw.yaml", &c, &err);
  fs::current_path(old);
  ASSERT_TRUE(ok) << err;
  EXPECT_EQ(c.path, (dir_ / "sw.yaml").string());
  EXPECT_EQ(c.include_path, (dir_ / "rules.yaml").string());
  // What pfcctl does: re-read the running config from elsewhere.
  config::SwitchConfig again;
  ASSERT_TRUE(config::LoadConfig(c.path, &again, &err)) << err;
  EXPECT_EQ(again.rewrite.rules.size(), 1u);
}

// `n` routes, route k for the k-th /24 from 20.0.0.0 via gateway k % 4 (two
// gateways on each port).
std::string ManyRoutes(int n) {
  std::string t = "routes:\n";
  for (int k = 0; k < n; k++) {
    const int port = k % 4 / 2;
    t += "  - { prefix: " + std::to_string(20 + (k >> 16)) + "." + std::to_string((k >> 8) & 255) +
         "." + std::to_string(k & 255) + ".0/24, port: p" + std::to_string(port) + ", via: 10.0." +
         std::to_string(port + 1) + "." + std::to_string(2 + k % 2) + " }\n";
  }
  return t;
}

// 100,000 routes over 4 gateways used to need 100,002 next hops (one per
// route plus the two connected subnets), above the route table's 32,768.
TEST_F(ConfigTest, RoutesOverTheSameNextHopShareIt) {
  constexpr int kRoutes = 100000;
  config::SwitchConfig c;
  ASSERT_EQ(Load(kPorts + ManyRoutes(kRoutes), &c), "");
  ASSERT_EQ(c.routes.size(), kRoutes + 2u);  // + the two connected subnets
  ASSERT_EQ(c.next_hops.size(), 6u);         // 4 gateways + 2 connected
  tables::RouteTable rt;
  std::string err;
  ASSERT_TRUE(rt.Build(c.routes, c.next_hops, &err)) << err;
  for (int k : {0, 1, 2, 3, 12345, kRoutes - 1}) {
    const uint32_t dst = (20u << 24) | (static_cast<uint32_t>(k) << 8) | 7;
    const uint16_t nh = rt.Lookup(dst);
    ASSERT_NE(nh, tables::RouteTable::kNoRoute) << k;
    const int port = k % 4 / 2;
    EXPECT_EQ(rt.next_hop(nh).port, port) << k;
    EXPECT_EQ(rt.next_hop(nh).gateway, (10u << 24) | ((port + 1u) << 8) | (2u + k % 2)) << k;
  }
  // Connected subnets share nothing with gateways on the same port.
  const uint16_t conn = rt.Lookup((10u << 24) | (1u << 8) | 9);
  ASSERT_NE(conn, tables::RouteTable::kNoRoute);
  EXPECT_EQ(rt.next_hop(conn).port, 0);
  EXPECT_EQ(rt.next_hop(conn).gateway, 0u);

  // A rules update (pfcctl load) goes through the same loader; more routes
  // than the next-hop limit prove it there (fewer than above: YAML parsing
  // is most of this test's time).
  constexpr int kUpdateRoutes = tables::RouteTable::kMaxNextHops + 1000;
  const std::string upd = Write("upd.yaml", ManyRoutes(kUpdateRoutes));
  config::SwitchConfig updated;
  ASSERT_TRUE(config::LoadUpdate(upd, c, &updated, &err)) << err;
  EXPECT_EQ(updated.routes.size(), kUpdateRoutes + 2u);
  EXPECT_EQ(updated.next_hops.size(), 6u);
}

// What is still refused is more distinct next hops than the table holds,
// named at the route that needs one too many.
TEST_F(ConfigTest, TooManyDistinctNextHopsNamesTheRoute) {
  std::string text =
      "ports:\n  - { name: p0, device: net_af_packet0, ipv4: 10.1.0.1/16, speed: 10G }\nroutes:\n";
  for (int k = 0; k <= tables::RouteTable::kMaxNextHops; k++)
    text += "  - { prefix: 20." + std::to_string(k >> 8) + "." + std::to_string(k & 255) +
            ".0/24, port: p0, via: 10.1." + std::to_string((k + 2) >> 8) + "." +
            std::to_string((k + 2) & 255) + " }\n";
  const std::string err = Load(text);
  EXPECT_HAS(err, At(text, "prefix: 20.128.0.0/24") +
                      " routes[32768]: expected at most 32768 distinct next hops");
}

TEST_F(ConfigTest, DuplicatePrefixNamesTheFirstRoute) {
  const std::string text =
      kPorts +
      "routes:\n  - { prefix: 10.9.0.0/16, port: p0 }\n  - { prefix: 10.8.0.0/16, port: p0 }\n" +
      "  - { prefix: 10.9.0.0/16, port: p1 }\n";
  EXPECT_HAS(Load(text),
             At(text, "  - { prefix: 10.9.0.0/16, port: p1 }") +
                 " routes[2].prefix: expected a prefix not already routed (routes[0] routes it)");
}

// Generated routes and neighbours (the fabric emulator's) load to the same
// config as the same tables in YAML, and get the same checks.
TEST_F(ConfigTest, GeneratedTablesLoadLikeTheirYaml) {
  const std::string tables =
      "routes:\n  - { prefix: 20.0.0.0/24, port: p0, via: 10.0.1.2 }\n"
      "  - { prefix: 20.0.1.0/24, port: p1, via: 10.0.2.3 }\n  - { prefix: 30.0.0.0/8, port: p1 }\n"
      "  - { prefix: 40.0.0.0/8, next_hops: [{port: p0, via: 10.0.1.2}, {port: p1, via: "
      "10.0.2.3}] }\n"
      "neighbors:\n  - { ip: 10.0.1.2, mac: 02:00:00:00:00:07, port: p0 }\n";
  config::SwitchConfig parsed;
  ASSERT_EQ(Load(kPorts + tables, &parsed), "");
  config::GeneratedTables gen;
  gen.routes = {{0x14000000, 24, {{0, 0x0a000102}}},
                {0x14000100, 24, {{1, 0x0a000203}}},
                {0x1e000000, 8, {{1, 0}}},
                {0x28000000, 8, {{0, 0x0a000102}, {1, 0x0a000203}}}};
  gen.neighbors = {{0x0a000102, {2, 0, 0, 0, 0, 7}, 0}};
  const std::string p = Write("gen.yaml", kPorts);
  config::SwitchConfig c;
  std::string err;
  ASSERT_TRUE(config::LoadConfig(p, gen, &c, &err)) << err;
  ASSERT_EQ(c.routes.size(), parsed.routes.size());
  for (size_t i = 0; i < c.routes.size(); i++) {
    EXPECT_EQ(c.routes[i].prefix, parsed.routes[i].prefix) << i;
    EXPECT_EQ(c.routes[i].len, parsed.routes[i].len) << i;
    EXPECT_EQ(c.next_hops[c.routes[i].nh].port, parsed.next_hops[parsed.routes[i].nh].port) << i;
    EXPECT_EQ(c.next_hops[c.routes[i].nh].gateway, parsed.next_hops[parsed.routes[i].nh].gateway)
        << i;
    EXPECT_EQ(c.next_hops[c.routes[i].nh].group, parsed.next_hops[parsed.routes[i].nh].group) << i;
  }
  // The ECMP route's two next hops are consecutive entries after a group
  // head of 2; its members are not merged with the single routes' entries.
  const tables::NextHop* g = &c.next_hops[c.routes[3].nh];
  ASSERT_EQ(g[0].group, 2);
  EXPECT_EQ(g[0].port, 0);
  EXPECT_EQ(g[1].port, 1);
  EXPECT_EQ(g[1].gateway, 0x0a000203u);
  ASSERT_EQ(c.neighbors.size(), 1u);
  EXPECT_EQ(c.neighbors[0].ip, parsed.neighbors[0].ip);
  EXPECT_EQ(c.neighbors[0].mac, parsed.neighbors[0].mac);
  EXPECT_EQ(c.neighbors[0].port, parsed.neighbors[0].port);

  auto refused = [&](const config::GeneratedTables& g) {
    config::SwitchConfig x;
    std::string e;
    EXPECT_FALSE(config::LoadConfig(p, g, &x, &e));
    return e;
  };
  config::GeneratedTables bad = gen;
  bad.routes[1].next_hops[0].port = 2;  // two ports: p0, p1
  EXPECT_HAS(refused(bad),
             p + ": routes[1].port: expected a port name from 'ports' or an index 0..1");
  bad = gen;
  bad.routes[2].prefix |= 1;
  EXPECT_HAS(refused(bad),
             p + ": routes[2].prefix: expected a network like 10.0.9.0/24 with no host bits set");
  bad = gen;
  bad.routes[0].next_hops[0].gateway = 0x0a000202;  // on p1's link, not p0's
  EXPECT_HAS(refused(bad), p + ": routes[0].via: expected a gateway inside port p0's subnet");
  bad = gen;
  bad.routes[3].next_hops[1].gateway = 0x0a000109;  // on p0's link, not p1's
  EXPECT_HAS(refused(bad),
             p + ": routes[3].next_hops[1].via: expected a gateway inside port p1's subnet");
  bad = gen;
  bad.routes[3].next_hops[1] = bad.routes[3].next_hops[0];
  EXPECT_HAS(refused(bad), p + ": routes[3].next_hops[1]: expected a next hop (port, via) not "
                               "already in this route's next_hops");
  bad = gen;
  bad.routes.push_back(gen.routes[0]);
  EXPECT_HAS(refused(bad), "routes[4].prefix: expected a prefix not already routed (routes[0]");
  bad = gen;
  bad.neighbors[0].mac[0] = 1;
  EXPECT_HAS(refused(bad), p + ": neighbors[0].mac: expected a unicast MAC address");
  // The file gives no tables of its own then.
  const std::string both = Write("both.yaml", kPorts + tables);
  config::SwitchConfig x;
  EXPECT_FALSE(config::LoadConfig(both, gen, &x, &err));
  EXPECT_HAS(err, both + ":" + std::to_string(1 + std::count(kPorts.begin(), kPorts.end(), '\n')) +
                      ": routes: expected none here (the generator gives them)");
}

}  // namespace
}  // namespace pfc

#include "dataplane/config/sections.h"

namespace pfc {
namespace {

// Next hops already in a config (an ECMP group, a single) index as they
// were made: a single route over the group head's (port, via) gets its
// own entry, since sharing the head would spread it too; the same group
// again is found.
// A route listing one next hop is named by its list when wrong.
TEST_F(ConfigTest, OneListedNextHopIsNamedAsListed) {
  const std::string t =
      kPorts + "routes:\n  - { prefix: 20.0.0.0/24, next_hops: [{port: p0, via: 10.0.2.9}] }\n";
  EXPECT_HAS(Load(t), "routes[0].next_hops[0].via: expected a gateway inside port p0's subnet");
}

TEST(NextHopIndexTest, GroupEntriesAreNotSharedWithSingleRoutes) {
  config::SwitchConfig c;
  c.next_hops = {{0, 0x0a000102, 2}, {1, 0x0a000203, 1}, {1, 0, 1}};
  config::sections::NextHopIndex idx(&c);
  EXPECT_EQ(idx.Add({0, 0x0a000102, 1}), 3);  // new, not the head 0
  EXPECT_EQ(idx.Add({1, 0, 1}), 2);           // the existing single
  EXPECT_EQ(idx.AddGroup({{0, 0x0a000102, 1}, {1, 0x0a000203, 1}}), 0);
  EXPECT_EQ(c.next_hops.size(), 4u);
  EXPECT_EQ(c.next_hops[3].group, 1);
}

}  // namespace
}  // namespace pfc
