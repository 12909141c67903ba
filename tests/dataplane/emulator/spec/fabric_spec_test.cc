// SPDX-License-Identifier: BSD-3-Clause
// The fabric file: a complete valid file (Tagger's Fig. 2 testbed), every
// validation error naming file, line and field, and the plan it yields
// (unique addresses, shortest-path routes that reach every host,
// deterministic ECMP, generated configs the switch's own loader accepts).
#include "dataplane/emulator/spec/fabric_spec.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/partition.h"

namespace pfc::emulator {
namespace {
namespace fs = std::filesystem;

#ifndef PFC_SOURCE_ROOT
#error "PFC_SOURCE_ROOT must name the source tree"
#endif
const std::string kFig2Topo = std::string(PFC_SOURCE_ROOT) + "/configs/fabric/clos-fig2.topo.yaml";

class FabricFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fabric-spec-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  // A valid Fig. 2 file with `extra` appended (sections or list items).
  std::string Fig2(const std::string& extra) {
    return Write("fab.yaml", "fabric: { clock: virtual, duration: 100ms, bin: 1ms, out: " +
                                 (dir_ / "out").string() +
                                 " }\n"
                                 "include: " +
                                 kFig2Topo +
                                 "\n"
                                 "links: { rate: 40G, delay: 1us }\n" +
                                 extra);
  }
  std::string LoadErr(const std::string& path) {
    FabricSpec s;
    std::string err;
    EXPECT_FALSE(LoadFabric(path, &s, &err));
    return err;
  }
  fs::path dir_;
};

TEST_F(FabricFile, LoadsTheFig2TestbedWithFlowsAndEvents) {
  const std::string p = Fig2(
      "flows:\n"
      "  - { name: green, from: H9, to: H1, dscp: 24, prio: 3, start: 0 }\n"
      "  - { name: blue, from: H5, to: H13, dscp: 24, prio: 3, rate: 10G, ttl: 16, start: 20ms, "
      "stop: 80ms, ecn: ect0 }\n"
      "events:\n"
      "  - { at: 30ms, flow: blue, action: stop }\n"
      "  - { at: 10ms, link: [L2, T1], state: down }\n"
      "  - { at: 10ms, route: { switch: L1, to: H15, via: T1 } }\n"
      "  - { at: 5ms, host: H3, storm: [3] }\n"
      "hosts:\n"
      "  - { name: H16, device: net_af_packet0 }\n");
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(p, &s, &err)) << err;
  EXPECT_EQ(s.topo.Switches().size(), 10u);
  EXPECT_EQ(s.topo.num_nodes(), 26u);
  EXPECT_EQ(s.duration_ns, 100'000'000u);
  EXPECT_EQ(s.link_rate_bps, 40'000'000'000u);
  ASSERT_EQ(s.flows.size(), 2u);
  EXPECT_EQ(s.flows[1].rate_bps, 10'000'000'000u);
  EXPECT_EQ(s.flows[0].ttl, 64u);  // the default
  EXPECT_EQ(s.flows[1].ttl, 16u);
  EXPECT_EQ(s.flows[0].ecn, 0u);  // Not-ECT unless asked
  EXPECT_EQ(s.flows[1].ecn, 2u);  // ECT(0)
  EXPECT_EQ(s.flows[1].start_ns, 20'000'000u);
  ASSERT_EQ(s.events.size(), 4u);
  EXPECT_EQ(s.events[0].at_ns, 5'000'000u);  // sorted by time, stable
  EXPECT_EQ(s.events[1].kind, EventSpec::Kind::kLink);
  EXPECT_EQ(s.events[2].kind, EventSpec::Kind::kRoute);
  EXPECT_EQ(s.events[3].kind, EventSpec::Kind::kFlow);
  EXPECT_EQ(s.host(s.topo.Find("H16"))->device, "net_af_packet0");
  EXPECT_EQ(s.host(s.topo.Find("H3"))->storm_prios, 0u);  // the event sets it, not the file
  EXPECT_EQ(s.topo.node(s.topo.Find("S1")).layer, 3);
}

TEST_F(FabricFile, GeneratedTopology) {
  const std::string p =
      Write("g.yaml", "fabric: { duration: 1ms }\ntopology: { gen: 'fattree:4' }\n");
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(p, &s, &err)) << err;
  EXPECT_EQ(s.topo.Switches().size(), 20u);
}

struct BadCase {
  const char* extra;
  const char* expect;  // substring of the error
};

TEST_F(FabricFile, RejectsMistakesNamingFileLineAndField) {
  const BadCase cases[] = {
      {"events:\n  - { at: 1ms, link: [L9, T1], state: down }\n",
       "fab.yaml:5: events[0].link[0]: expected a switch or host of the topology, such as T1, T2, "
       "T3, T4 (26 in all) (got 'L9')"},
      {"events:\n  - { at: 1ms, link: [T1, T2], state: down }\n",
       "fab.yaml:5: events[0].link: expected two nodes joined by a link"},
      {"events:\n  - { at: -1ms, flow: x, action: stop }\n",
       "fab.yaml:5: events[0].at: expected a time >= 0"},
      {"events:\n  - { at: 1ms, route: { switch: L1, to: H1, via: S9 } }\n",
       "events[0].route.via: expected a switch or host of the topology, such as T1, T2, T3, T4 (26 "
       "in all) (got 'S9')"},
      {"events:\n  - { at: 1ms, route: { switch: L1, to: H1, via: L2 } }\n",
       "events[0].route.via: expected a neighbour of L1"},
      {"events:\n  - { at: 1ms, host: H1 }\n",
       "events[0]: expected ignore_pause or storm to change"},
      {"events:\n  - { at: 1ms, teleport: H1 }\n",
       "events[0]: expected one of link, route, flow, host, rules"},
      {"flows:\n  - { name: a, from: H1, to: T1 }\n",
       "fab.yaml:5: flows[0].to: expected a host (this is a switch)"},
      {"flows:\n  - { name: a, from: H1, to: H2 }\n  - { name: a, from: H1, to: H3 }\n",
       "fab.yaml:6: flows[1].name: expected a unique flow name"},
      {"flows:\n  - { name: a, from: H1, to: H2, prio: 8 }\n",
       "flows[0].prio: expected an integer from 0 to 7"},
      {"flows:\n  - { name: a, from: H1, to: H2, ttl: 0 }\n",
       "fab.yaml:5: flows[0].ttl: expected an integer from 1 to 255"},
      {"flows:\n  - { name: a, from: H1, to: H2, cc: hpcc }\n",
       "fab.yaml:5: flows[0].cc: expected transport: rc with cc: hpcc (it runs on the RC queue "
       "pair's ACKs) (got 'hpcc')"},
      {"flows:\n  - { name: a, from: H1, to: H2, cc: swift }\n",
       "fab.yaml:5: flows[0].cc: expected none, dcqcn (on CNPs), or on an RC flow's ACKs hpcc "
       "(INT), hpcc_pint (one INT value), timely (RTT) or dctcp (ECN echoes) (got 'swift')"},
      {"hpcc: { u_target: 2 }\n", "fab.yaml:4: hpcc.u_target: expected"},
      {"timely: { t_low: fast }\n", "fab.yaml:4: timely.t_low: expected"},
      {"dctcp: { alpha: 1 }\n", "dctcp"},
      {"dcqcn: { rp_timer: 0 }\n", "fab.yaml:4: dcqcn.rp_timer: expected a time > 0"},
      {"dcqcn: { rp_timer: soon }\n", "fab.yaml:4: dcqcn.rp_timer: expected a time >= 0"},
      {"dcqcn: { rate_ai: 50M, g: 0.5 }\n",
       "fab.yaml:4: dcqcn.g: unknown field (expected one of: rate_ai,"},
      {"dcqcn: { ewma_gain: 2 }\n", "fab.yaml:4: dcqcn.ewma_gain: expected"},
      {"dcqcn: { cnp_prio: 8 }\n", "fab.yaml:4: dcqcn.cnp_prio: expected an integer from 0 to 7"},
      {"dcqcn: { byte_counter: lots }\n", "fab.yaml:4: dcqcn.byte_counter: expected"},
      {"rc: { mtu: 128 }\n", "fab.yaml:4: rc.mtu: expected an integer from 256 to 4096"},
      {"rc: { timeout: 32 }\n", "fab.yaml:4: rc.timeout: expected an integer from 0 to 31"},
      {"rc: { retry_cnt: 8 }\n", "fab.yaml:4: rc.retry_cnt: expected an integer from 0 to 7"},
      {"rc: { ack_interval: 0 }\n", "fab.yaml:4: rc.ack_interval: expected an integer from 1"},
      {"rc: { nak_interval: soon }\n", "fab.yaml:4: rc.nak_interval: expected a time >= 0"},
      {"rc: { pace_catch_up: sometimes }\n", "fab.yaml:4: rc.pace_catch_up: expected"},
      {"flows:\n  - { name: a, from: H1, to: H2, transport: tcp }\n",
       "fab.yaml:5: flows[0].transport: expected raw (UDP frames, no acknowledgement) or rc"},
      {"flows:\n  - { name: a, from: H1, to: H2, transport: rc }\n",
       "fab.yaml:5: flows[0].transport: expected bytes or message with transport rc"},
      {"flows:\n  - { name: a, from: H1, to: H2, transport: rc, bytes: 1M, frame: 500 }\n",
       "fab.yaml:5: flows[0].frame: expected no frame size on an rc flow"},
      {"flows:\n  - { name: a, from: H1, to: H2, bytes: 1M, message: 64K }\n",
       "fab.yaml:5: flows[0].message: expected no message size on a raw flow"},
      {"flows:\n  - { name: a, from: H1, to: H2, transport: rc, message: 4G }\n",
       "fab.yaml:5: flows[0].message: expected"},
      {"rc: { mtu: 4096 }\nflows:\n  - { name: a, from: H1, to: H2, transport: rc, bytes: 1M }\n",
       "rc.mtu: 4096 makes 4170-byte frames, more than the switch ports' mtu 1500 carries"},
      {"switch: { mtu: 1000 }\n", "fab.yaml:4: switch.mtu: expected an integer from 1500 to 9216"},
      {"flows:\n  - { name: a, to: H2 }\n",
       "fab.yaml:5: flows[0].from: expected the sending host (missing)"},
      {"flows:\n  - { from: H1, to: H2 }\n",
       "fab.yaml:5: flows[0].name: expected a flow name (missing)"},
      {"flows:\n  - { name: a, from: H1 }\n",
       "fab.yaml:5: flows[0].to: expected the receiving host (missing)"},
      {"events:\n  - { link: [T1, L1], state: down }\n",
       "fab.yaml:5: events[0].at: expected the time of the event (missing)"},
      {"events:\n  - { at: 1ms, route: { switch: L1, to: H1 } }\n",
       "fab.yaml:5: events[0].route.via: expected a neighbour (missing)"},
      {"captures:\n  - { file: x.pcapng }\n",
       "fab.yaml:5: captures[0].link: expected the two ends of a link (missing)"},
      {"captures:\n  - { link: [T1, L1] }\n",
       "fab.yaml:5: captures[0].file: expected a pcapng file name (missing)"},
      {"hosts:\n  - { ignore_pause: true }\n",
       "fab.yaml:5: hosts[0].name: expected a host of the topology (missing)"},
      {"flows:\n  - { name: a, from: H1, to: H2, ecn: ect2 }\n",
       "fab.yaml:5: flows[0].ecn: expected not-ect, ect0 or ect1 (the ECN field the host sends) "
       "(got 'ect2')"},
      {"flows:\n  - { name: a, from: H1, to: H2, ttl: 256 }\n",
       "fab.yaml:5: flows[0].ttl: expected an integer from 1 to 255"},
      {"flows:\n  - { name: a, from: H1, to: H2, start: 5ms, stop: 1ms }\n",
       "flows[0].stop: expected a time after start"},
      {"flows:\n  - { name: a, from: H1, to: H2, colour: red }\n",
       "flows[0].colour: unknown field"},
      {"hosts:\n  - { name: H1, device: net_ring0, storm: [3] }\n",
       "hosts[0]: expected either a real host (device) or an emulated host's options"},
      {"hosts:\n  - { name: H1, storm: [9] }\n",
       "hosts[0].storm[0]: expected an integer from 0 to 7"},
      {"routes: fastest\n", "fab.yaml:4: routes: expected shortest, shortest_single or none"},
      {"switch: { ecmp_seeds: [1, 2] }\n",
       "switch.ecmp_seeds: expected a map of switch name to seed"},
      {"switch: { ecmp_seeds: { H1: 3 } }\n",
       "switch.ecmp_seeds.H1: expected a switch (this is a host)"},
      {"switch: { ecmp_seeds: { L1: -3 } }\n", "switch.ecmp_seeds.L1: expected"},
      {"flows:\n  - { name: a, from: H1, to: H2, src_port: 0 }\n",
       "flows[0].src_port: expected an integer from 1 to 65535"},
      {"flows:\n  - { name: a, from: H1, to: H2, ack_src_port: 7 }\n",
       "flows[0].ack_src_port: expected transport: rc (the UDP source port of its responder's "
       "ACKs)"},
      {"flows:\n  - { name: a, from: H1, to: H2, transport: rc, bytes: 1M, ack_src_port: 70000 }\n",
       "flows[0].ack_src_port: expected an integer from 1 to 65535"},
      {"links: { rate: 1G }\n", "links: expected this section once"},
      {"captures:\n  - { link: [H1, H2], file: x.pcapng }\n",
       "captures[0].link: expected two nodes joined by a link"},
      {"switch: { scheduler: fifo }\n", "fab.yaml:4: switch.scheduler: expected strict or dwrr"},
      {"switch: { rules: /nonexistent-dir }\n",
       "switch.rules: expected a directory written by pfc-tagger tag"},
      {"hosts:\n  - { name: H1, address: 10.0.1.2/24 }\n",
       "hosts[0]: expected address and gateway together"},
      {"hosts:\n  - { name: H1, address: 10.0.1.2, gateway: 10.0.1.1 }\n",
       "hosts[0].address: expected a host address with its prefix"},
      {"hosts:\n  - { name: H1, address: 10.0.1.2/24, gateway: 10.0.2.1 }\n",
       "hosts[0].gateway: expected another address of the host's subnet 10.0.1.2/24"},
      {"hosts:\n  - { name: H1, address: 10.130.0.2/24, gateway: 10.130.0.1 }\n",
       "hosts[0].address: expected a subnet outside 10.128.0.0/9"},
      {"hosts:\n  - { name: H1, address: 10.0.1.2/24, gateway: 10.0.1.1 }\n"
       "  - { name: H2, address: 10.0.0.2/16, gateway: 10.0.0.1 }\n",
       "fab.yaml:6: hosts[1].address: expected a subnet of its own (it overlaps H1's)"},
  };
  for (const BadCase& c : cases) {
    const std::string err = LoadErr(Fig2(c.extra));
    EXPECT_NE(err.find(c.expect), std::string::npos) << "case:\n" << c.extra << "got: " << err;
  }
  // links.wire_overhead: -32..64 bytes (Fig2 writes its own links section).
  for (const char* v : {"65", "-33", "lots"}) {
    const std::string p = Fig2("");
    std::string text;
    ASSERT_TRUE(config::ReadRegularFile(p, &text));
    text.replace(text.find("delay: 1us }"), 12,
                 std::string("delay: 1us, wire_overhead: ") + v + " }");
    std::ofstream(p) << text;
    EXPECT_NE(LoadErr(p).find("links.wire_overhead: expected an integer from -32 to 64"),
              std::string::npos)
        << v << ": " << LoadErr(p);
  }
  // links.wire_time: ceil or ns3.
  {
    const std::string p = Fig2("");
    std::string text;
    ASSERT_TRUE(config::ReadRegularFile(p, &text));
    text.replace(text.find("delay: 1us }"), 12, "delay: 1us, wire_time: round }");
    std::ofstream(p) << text;
    EXPECT_NE(LoadErr(p).find("links.wire_time: expected ceil or ns3"), std::string::npos)
        << LoadErr(p);
  }
}

TEST_F(FabricFile, RcFlowsAndTheirTransport) {
  const std::string p =
      Fig2(("rc: { mtu: 4096, ack_interval: 4, timeout: 10, retry_cnt: 3 }\n"
            "switch: { mtu: 9000 }\n"
            "flows:\n"
            "  - { name: a, from: H1, to: H2, transport: rc, bytes: 1M, message: 64K }\n"
            "  - { name: b, from: H1, to: H3, transport: rc, message: 8K }\n"
            "  - { name: c, from: H1, to: H3 }\n"));
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(p, &s, &err)) << err;
  EXPECT_EQ(s.rc.mtu, 4096u);
  EXPECT_EQ(s.rc.ack_interval, 4u);
  EXPECT_EQ(s.rc.TimeoutNs(), 4096u << 10);
  EXPECT_EQ(s.rc.retry_cnt, 3);
  EXPECT_EQ(s.switch_mtu, 9000u);
  ASSERT_EQ(s.flows.size(), 3u);
  EXPECT_TRUE(s.flows[0].rc);
  EXPECT_EQ(s.flows[0].bytes, 1u << 20);
  EXPECT_EQ(s.flows[0].message_bytes, 64u << 10);
  EXPECT_TRUE(s.flows[1].rc);
  EXPECT_EQ(s.flows[1].bytes, 0u) << "an endless QP";
  EXPECT_FALSE(s.flows[2].rc) << "raw by default";
}

TEST_F(FabricFile, WarnsOfFlowsThatCannotRunAsWritten) {
  const std::string p = Fig2(
      "flows:\n"
      "  - { name: a, from: H1, to: H2, rate: 100G }\n"
      "  - { name: b, from: H1, to: H3, start: 100ms }\n"
      "  - { name: c, from: H1, to: H3, rate: 40G, start: 99ms }\n");
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(p, &s, &err)) << err;
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_NE(
      s.warnings[0].find("fab.yaml:5: flows[0].rate: 100 Gb/s is more than H1's link (40 Gb/s)"),
      std::string::npos)
      << s.warnings[0];
  EXPECT_NE(
      s.warnings[1].find("fab.yaml:6: flows[1].start: 100000000 ns is not before the run's end"),
      std::string::npos)
      << s.warnings[1];
}

// A file cut short (a converted experiment's flows start at 2 s): three
// flows that never start are named, the others counted in one line, and
// the other warnings stay where they were.
TEST_F(FabricFile, FoldsFlowsThatNeverStartIntoOneLine) {
  std::string flows = "flows:\n  - { name: fast, from: H1, to: H2, rate: 100G }\n";
  for (int i = 0; i < 6; i++)
    flows += "  - { name: f" + std::to_string(i) +
             ", from: H1, to: H3, start: " + std::to_string(100 + i) + "ms }\n";
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(Fig2(flows), &s, &err)) << err;
  ASSERT_EQ(s.warnings.size(), 5u);
  EXPECT_NE(s.warnings[0].find("flows[0].rate"), std::string::npos) << s.warnings[0];
  for (int i = 1; i <= 3; i++)
    EXPECT_NE(s.warnings[i].find("fab.yaml:" + std::to_string(5 + i) + ": flows[" +
                                 std::to_string(i) + "].start: "),
              std::string::npos)
        << s.warnings[i];
  EXPECT_NE(s.warnings[4].find("fab.yaml: flows: 3 more flows start at or after the run's end "
                               "(fabric.duration 100000000 ns): they never start"),
            std::string::npos)
      << s.warnings[4];
}

// cc: dcqcn without ecn: ect0 runs with DCQCN doing nothing: one warning
// for all such flows, naming the first and how many more.
TEST_F(FabricFile, WarnsOfDcqcnFlowsThatAreNotEcnCapable) {
  const std::string p = Fig2(
      "flows:\n"
      "  - { name: a, from: H1, to: H2, cc: dcqcn, ecn: ect0 }\n"
      "  - { name: b, from: H1, to: H3, cc: dcqcn }\n"
      "  - { name: c, from: H2, to: H3, cc: dcqcn, ecn: not-ect }\n");
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(p, &s, &err)) << err;
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("fab.yaml: flows: b and 1 more flows have cc: dcqcn but send "
                               "Not-ECT (no ecn: ect0): no switch marks them"),
            std::string::npos)
      << s.warnings[0];
}

// A name that is no node says what the topology's nodes are called.
TEST_F(FabricFile, UnknownNodeNamesTheTopologysNodes) {
  FabricSpec s;
  std::string err;
  EXPECT_FALSE(LoadFabric(Fig2("flows:\n  - { name: a, from: h1, to: H2 }\n"), &s, &err));
  EXPECT_NE(err.find("flows[0].from: expected a host of the topology (did you mean 'H1'?)"),
            std::string::npos)
      << err;
  EXPECT_FALSE(LoadFabric(Fig2("flows:\n  - { name: a, from: X9, to: H2 }\n"), &s, &err));
  EXPECT_NE(err.find("flows[0].from: expected a host of the topology, such as H1, H2, "),
            std::string::npos)
      << err;
}

TEST_F(FabricFile, FlowBetweenUnreachableHostsIsRejected) {
  const std::string p =
      Write("u.yaml",
            "fabric: { duration: 1ms }\n"
            "topology: { switches: [A, B], hosts: [H1, H2], links: [[A, H1], [B, H2]] }\n"
            "flows:\n  - { name: f, from: H1, to: H2 }\n");
  EXPECT_NE(LoadErr(p).find("u.yaml:4: flows[0].to: expected a host joined to H1 through switches"),
            std::string::npos)
      << LoadErr(p);
}

TEST_F(FabricFile, IncludeCycleIsRejected) {
  Write("a.yaml", "include: b.yaml\nfabric: { duration: 1ms }\n");
  Write("b.yaml", "include: [a.yaml]\n");
  const std::string err = LoadErr((dir_ / "a.yaml").string());
  EXPECT_NE(err.find("cycle of includes"), std::string::npos) << err;
  EXPECT_NE(err.find("a.yaml -> "), std::string::npos) << err;
}

// fuzz_fabric (CI, 2026-12-01): `include: "\0..."` resolved to the
// directory /dev/shm/ and the message, cut at the NUL by what(), named no
// field. A NUL is refused where a string is read, and a value quoted in a
// message shows its control bytes escaped.
TEST_F(FabricFile, NulByteInAStringIsRefusedByName) {
  const std::string path = Write("z.yaml", std::string("include: \"a\\0b\"\n"));
  const std::string err = LoadErr(path);
  EXPECT_EQ(err, path + ":1: include: expected a string without a NUL byte (got 'a\\x00b')");
  EXPECT_EQ(err.find('\0'), std::string::npos);
  const std::string tab = Write("t.yaml", "\"c\\tk\": 1\n");
  EXPECT_NE(LoadErr(tab).find(":1: c\\x09k: unknown field"), std::string::npos) << LoadErr(tab);
}

// fuzz_fabric's `include: [/]`: yaml-cpp let the directory's read error
// escape as std::ios_base::failure and the process ended; the switch
// template had the same path.
TEST_F(FabricFile, IncludeOrTemplateThatIsNotAFileIsAnError) {
  EXPECT_EQ(LoadErr(Write("d.yaml", "include: [/]\n")),
            "/: cannot open file (expected a readable regular file)");
  EXPECT_EQ(
      LoadErr(Write("n.yaml", "include: [no-such.yaml]\n")),
      (dir_ / "no-such.yaml").string() + ": cannot open file (expected a readable regular file)");
  FabricSpec s;
  std::string err;
  if (!LoadFabric(Fig2("switch: { config: " + dir_.string() + " }\n"), &s, &err)) {
    EXPECT_NE(err.find(dir_.string()), std::string::npos) << err;  // refused at load
    return;
  }
  FabricPlan plan = MakePlan(s);
  std::vector<config::SwitchConfig> cfgs;
  EXPECT_FALSE(WriteSwitchConfigs(s, &plan, &cfgs, &err));
  EXPECT_EQ(err, dir_.string() + ": cannot open file (expected a readable regular file)");
}

TEST_F(FabricFile, MissingSectionsAndZeroVirtualDuration) {
  EXPECT_NE(
      LoadErr(Write("n.yaml", "fabric: { duration: 1ms }\n")).find("topology: expected a section"),
      std::string::npos);
  const std::string e =
      LoadErr(Write("z.yaml", "fabric: { clock: virtual }\ntopology: { gen: 'fattree:4' }\n"));
  EXPECT_NE(e.find("fabric.duration: expected a run length > 0"), std::string::npos) << e;
}

TEST(ParseDuration, UnitsAndGarbage) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseDuration("1.5us", &v));
  EXPECT_EQ(v, 1500u);
  EXPECT_TRUE(ParseDuration("20ms", &v));
  EXPECT_EQ(v, 20'000'000u);
  EXPECT_TRUE(ParseDuration("0", &v));
  EXPECT_EQ(v, 0u);
  for (const char* bad : {"", "5", "-1ms", "1h", "ms", "nan ms", "1e30s", "+3us"})
    EXPECT_FALSE(ParseDuration(bad, &v)) << bad;
}

// Walks routes hop by hop from every switch to every host: each walk must
// reach the host's switch in exactly its shortest-path distance.
TEST_F(FabricFile, PlanRoutesReachEveryHostOnShortestPathsAndConfigsLoad) {
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(Fig2(""), &s, &err)) << err;
  FabricPlan plan = MakePlan(s);
  ASSERT_EQ(plan.switches.size(), 10u);
  ASSERT_EQ(plan.hosts.size(), 16u);
  std::set<uint32_t> ips;
  std::set<config::MacAddr> macs;
  for (const auto& sp : plan.switches) {
    for (const auto& p : sp.ports)
      EXPECT_TRUE(ips.insert(p.ip).second && macs.insert(p.mac).second);
  }
  for (const auto& h : plan.hosts)
    EXPECT_TRUE(ips.insert(h.ip).second && macs.insert(h.mac).second);
  // Every next hop of every route is one switch hop closer: every path a
  // flow may hash onto has the shortest length.
  std::function<int(const SwitchPlan&, const HostPlan&, int)> hops_to =
      [&](const SwitchPlan& at, const HostPlan& h, int depth) -> int {
    if (at.node == h.sw_node) return 0;
    if (depth > 10) return 100;
    const RoutePlan* r = nullptr;
    for (const auto& x : at.routes)
      if (x.prefix == (h.ip & ~3u)) r = &x;
    if (r == nullptr || r->next_hops.empty()) return 100;
    int hops = -1;
    for (const tables::NextHop& nh : r->next_hops) {
      const SwitchPlan* next = plan.sw(at.ports[nh.port].peer_node);
      const int n = next ? 1 + hops_to(*next, h, depth + 1) : 100;
      if (hops >= 0 && n != hops) return 100;  // unequal paths
      hops = n;
    }
    return hops;
  };
  size_t ecmp_routes = 0;
  for (const SwitchPlan& sw : plan.switches)
    for (const RoutePlan& r : sw.routes) ecmp_routes += r.next_hops.size() > 1;
  EXPECT_GT(ecmp_routes, 0u);
  for (const HostPlan& h : plan.hosts) {
    for (const SwitchPlan& start : plan.switches) {
      const int hops = hops_to(start, h, 0);
      // Fig. 2: same ToR 0, same pod 2, other pod 4 switch hops.
      const SwitchPlan& tor = *plan.sw(h.sw_node);
      const bool same_pod = start.name[0] == 'T' && (start.name < "T3") == (tor.name < "T3");
      if (start.name[0] == 'T') {
        EXPECT_EQ(hops, start.node == tor.node ? 0 : same_pod ? 2 : 4) << start.name << h.name;
      } else {
        EXPECT_LT(hops, 100) << start.name << " to " << h.name;
      }
    }
  }
  // routes: shortest_single keeps one next hop per (switch, host): same
  // seed, same plan; another seed spreads differently somewhere.
  s.routes = RouteMode::kSingle;
  FabricPlan single = MakePlan(s);
  FabricPlan again = MakePlan(s);
  s.seed = 99;
  FabricPlan other = MakePlan(s);
  s.seed = 1;
  s.routes = RouteMode::kEcmp;
  bool differs = false;
  for (size_t i = 0; i < single.switches.size(); ++i) {
    for (size_t r = 0; r < single.switches[i].routes.size(); ++r) {
      ASSERT_EQ(single.switches[i].routes[r].next_hops.size(), 1u);
      const PortId p = single.switches[i].routes[r].next_hops[0].port;
      EXPECT_EQ(p, again.switches[i].routes[r].next_hops[0].port);
      differs |= p != other.switches[i].routes[r].next_hops[0].port;
    }
  }
  EXPECT_TRUE(differs);

  std::vector<config::SwitchConfig> cfgs;
  ASSERT_TRUE(WriteSwitchConfigs(s, &plan, &cfgs, &err)) << err;
  ASSERT_EQ(cfgs.size(), 10u);
  const config::SwitchConfig& t1 = cfgs[0];
  ASSERT_EQ(t1.ports.size(), 6u);
  EXPECT_EQ(t1.ports[0].name, "H1");
  EXPECT_EQ(t1.ports[4].name, "L1");
  EXPECT_EQ(t1.ports[4].device, "emu:T1/4");
  EXPECT_EQ(t1.ports[4].speed_bps, 40'000'000'000u);
  EXPECT_EQ(t1.ports[4].cable_m, 200u);  // 1 us at 5 ns/m
  EXPECT_EQ(t1.neighbors.size(), 6u);
  EXPECT_EQ(t1.ports[4].sched.mode, sched::SchedMode::kStrict);  // the switch's default
}

// An error in the user's switch template is told at the template's line,
// not at the generated file's (whose lines differ); one in a section the
// fabric generates stays at the generated file.
TEST_F(FabricFile, TemplateErrorsNameTheTemplateLine) {
  const std::string tmpl = Write("tmpl.yaml",
                                 "switch: { idle_sleep_us: 0 }\n"
                                 "qos:\n"
                                 "  tag_map: { 1: 1 }\n"
                                 "  lossless: [1]\n"
                                 "ecn:\n"
                                 "  profiles:\n"
                                 "    A: { green_min_threshold: 5K, green_max_threshold: 20K,\n"
                                 "         green_drop_probability: 10 }\n"
                                 "  queues:\n"
                                 "    - { priorities: [1], profile: A }\n"
                                 "    - { priorities: [2], profile: B }\n");
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(Fig2("switch: { config: " + tmpl + " }\n"), &s, &err)) << err;
  FabricPlan plan = MakePlan(s);
  std::vector<config::SwitchConfig> cfgs;
  ASSERT_FALSE(WriteSwitchConfigs(s, &plan, &cfgs, &err));
  EXPECT_EQ(err.rfind(tmpl + ":11: ecn.queues[1].profile: expected a profile from ecn.profiles", 0),
            0u)
      << err;
  EXPECT_NE(err.find("(switch T1; in its generated "), std::string::npos) << err;
}

TEST_F(FabricFile, SchedulerDwrrReachesEveryGeneratedPort) {
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(Fig2("switch: { scheduler: dwrr }\n"), &s, &err)) << err;
  EXPECT_TRUE(s.dwrr);
  FabricPlan plan = MakePlan(s);
  std::vector<config::SwitchConfig> cfgs;
  ASSERT_TRUE(WriteSwitchConfigs(s, &plan, &cfgs, &err)) << err;
  for (const config::SwitchConfig& c : cfgs) {
    for (const config::PortConfig& p : c.ports)
      EXPECT_EQ(p.sched.mode, sched::SchedMode::kDwrr) << p.name;
  }
}

// A real host: its device (vdev arguments after the comma go to EAL, the
// name to the switch port), its own subnet, routes to that subnet from
// every switch, no static neighbour (the switch learns its MAC by ARP), and
// hosts.json saying how to configure it.
TEST_F(FabricFile, RealHostKeepsItsSubnetAndIsLearnedByArp) {
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(Fig2("hosts:\n"
                              "  - { name: H1, device: \"net_af_packet0,iface=h1\",\n"
                              "      address: 10.0.1.2/24, gateway: 10.0.1.1 }\n"),
                         &s, &err))
      << err;
  s.out_dir = (dir_ / "out").string();
  EXPECT_EQ(VdevArgs(s), std::vector<std::string>{"net_af_packet0,iface=h1"});
  FabricPlan plan = MakePlan(s);
  const HostPlan& h1 = *plan.host(s.topo.Find("H1"));
  EXPECT_EQ(h1.device, "net_af_packet0");
  EXPECT_EQ(Ipv4String(h1.ip), "10.0.1.2");
  EXPECT_EQ(h1.prefix_len, 24);
  EXPECT_EQ(Ipv4String(h1.gw_ip), "10.0.1.1");
  const SwitchPlan& t1 = *plan.sw(s.topo.Find("T1"));
  EXPECT_EQ(t1.ports[h1.sw_port].device, "net_af_packet0");
  EXPECT_EQ(Ipv4String(t1.ports[h1.sw_port].ip), "10.0.1.1");
  EXPECT_EQ(t1.ports[h1.sw_port].prefix_len, 24);
  for (const NeighborPlan& nb : t1.neighbors) EXPECT_NE(nb.port, h1.sw_port);
  const SwitchPlan& t4 = *plan.sw(s.topo.Find("T4"));
  bool routed = false;
  for (const RoutePlan& r : t4.routes) routed |= Ipv4String(r.prefix) == "10.0.1.0" && r.len == 24;
  EXPECT_TRUE(routed) << "T4 has no route to H1's 10.0.1.0/24";
  fs::create_directories(s.out_dir);
  ASSERT_TRUE(WriteHostsJson(s, plan, &err)) << err;
  std::ifstream in(s.out_dir + "/hosts.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"ip\": \"10.0.1.2/24\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"gateway\": \"10.0.1.1\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"device\": \"net_af_packet0\""), std::string::npos) << text;
  std::vector<config::SwitchConfig> cfgs;
  ASSERT_TRUE(WriteSwitchConfigs(s, &plan, &cfgs, &err)) << err;
}

// A link is emulated whole or carried by devices on both ends, and only an
// emulated link is captured: refused when the file is loaded, by the spec
// layer, before anything is built.
TEST_F(FabricFile, LinkDevicesOnBothEndsOrNeither) {
  const std::string head =
      "fabric: { clock: real, duration: 1s }\n"
      "topology: { switches: [S1, S2], hosts: [H1, H2], links: [[H1, S1], [S1, S2], [S2, H2]] }\n";
  FabricSpec s;
  std::string err;
  EXPECT_FALSE(LoadFabric(Write("one.yaml", head + "links:\n  overrides: [ { between: [S1, S2], "
                                                   "devices: { S1: net_af_packet0 } } ]\n"),
                          &s, &err));
  EXPECT_NE(err.find("one.yaml: link S1-S2: expected both ends on devices or neither (one "
                     "process emulates a link whole)"),
            std::string::npos)
      << err;
  EXPECT_FALSE(LoadFabric(
      Write("cap.yaml", head + "links:\n  overrides: [ { between: [S1, S2], "
                               "devices: { S1: net_af_packet0, S2: net_af_packet1 } } ]\n"
                               "captures: [ { link: [S2, S1], file: c.pcapng } ]\n"),
      &s, &err));
  EXPECT_NE(err.find("cap.yaml: captures: link S2-S1 is carried by a DPDK device: capture it "
                     "with dpdk-dumpcap instead"),
            std::string::npos)
      << err;
}

// A fabric split over two servers: the same file on both, --here naming
// each one's switches; the cable between them is a device at both ends.
TEST_F(FabricFile, PlacementOverServers) {
  const std::string p = Write(
      "split.yaml",
      "fabric: { clock: real, duration: 1s }\n"
      "topology: { switches: [S1, S2, S3], hosts: [H1, H2],\n"
      "            links: [[H1, S1], [S1, S2], [S2, S3], [S3, H2]] }\n"
      "links:\n"
      "  overrides: [ { between: [S1, S2],\n"
      "                 devices: { S1: \"net_af_packet0,iface=x1\", S2: net_af_packet0 } } ]\n"
      "captures: [ { link: [S2, S3], file: c.pcapng } ]\n");
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(p, &s, &err)) << err;
  EXPECT_FALSE(PlaceHere({"S1", "S9"}, &s, &err));
  EXPECT_EQ(err, "--here: expected switches of the topology (got 'S9')");
  EXPECT_FALSE(PlaceHere({"H1"}, &s, &err));
  // S2 here, S3 elsewhere: S2-S3 is emulated, not a cable.
  EXPECT_FALSE(PlaceHere({"S1", "S2"}, &s, &err));
  EXPECT_NE(err.find("link S2-S3 joins S2 (here) and S3 (elsewhere): expected devices on both "
                     "ends in links.overrides"),
            std::string::npos)
      << err;
  // S1 here: the capture of S2-S3 is not.
  EXPECT_FALSE(PlaceHere({"S1"}, &s, &err));
  EXPECT_NE(err.find("captures[0]: link S2-S3 is not emulated here"), std::string::npos) << err;
  s.captures.clear();
  ASSERT_TRUE(PlaceHere({"S1"}, &s, &err)) << err;
  EXPECT_TRUE(s.Local(s.topo.Find("S1")) && s.Local(s.topo.Find("H1")));
  EXPECT_FALSE(s.Local(s.topo.Find("S2")) || s.Local(s.topo.Find("H2")));
  EXPECT_EQ(VdevArgs(s), std::vector<std::string>{"net_af_packet0,iface=x1"});
  s.out_dir = (dir_ / "out").string();
  FabricPlan plan = MakePlan(s);
  std::vector<config::SwitchConfig> cfgs;
  ASSERT_TRUE(WriteSwitchConfigs(s, &plan, &cfgs, &err)) << err;
  KeepLocal(s, &plan, &cfgs);
  ASSERT_EQ(plan.switches.size(), 1u);
  ASSERT_EQ(cfgs.size(), 1u);
  EXPECT_EQ(plan.switches[0].name, "S1");
  EXPECT_EQ(cfgs[0].ports[1].device, "net_af_packet0");  // the cable's end here
  EXPECT_EQ(plan.sw(s.topo.Find("S2")), nullptr);
  EXPECT_NE(plan.host(s.topo.Find("H2")), nullptr);  // still routed to
  // The virtual clock cannot span servers.
  s.clock = ClockKind::kVirtual;
  EXPECT_FALSE(PlaceHere({"S1"}, &s, &err));
  EXPECT_NE(err.find("fabric.clock: expected real"), std::string::npos) << err;
}

// monitor.qlen: the HPCC simulator's queue monitor, validated: the virtual
// clock only, an interval of at least 1 ns, an end not before the start;
// the end defaults to the run's, the interval to the simulator's 100 ns.
TEST_F(FabricFile, QueueMonitorValidated) {
  const std::string topo = "include: " + kFig2Topo + "\n";
  EXPECT_NE(LoadErr(Write("m1.yaml", "fabric: { clock: real }\n" + topo +
                                         "monitor: { qlen: { start: 1ms } }\n"))
                .find("monitor.qlen: expected the virtual clock"),
            std::string::npos);
  EXPECT_NE(LoadErr(Write("m2.yaml", "fabric: { duration: 2ms }\n" + topo +
                                         "monitor: { qlen: { start: 1ms, end: 500us } }\n"))
                .find("m2.yaml:3: monitor.qlen.end: expected a time at or after "
                      "monitor.qlen.start (1000000 ns)"),
            std::string::npos);
  EXPECT_NE(LoadErr(Write("m3.yaml", "fabric: { duration: 2ms }\n" + topo +
                                         "monitor: { qlen: { interval: 0 } }\n"))
                .find("monitor.qlen.interval: expected a sampling interval of at least 1ns"),
            std::string::npos);
  EXPECT_NE(LoadErr(Write("m4.yaml", "fabric: { duration: 2ms }\n" + topo +
                                         "monitor: { qlen: { every: 1us } }\n"))
                .find("every"),
            std::string::npos);
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(
      LoadFabric(Write("m5.yaml", "fabric: { duration: 2ms, out: " + (dir_ / "out").string() +
                                      " }\n" + topo + "monitor: { qlen: { start: 1ms } }\n"),
                 &s, &err))
      << err;
  EXPECT_EQ(s.qlen_mon.start_ns, 1'000'000u);
  EXPECT_EQ(s.qlen_mon.end_ns, 2'000'000u);
  EXPECT_EQ(s.qlen_mon.interval_ns, 100u);
}

// The virtual clock's step: validated, and turned into wider link FIFOs and
// a later reaction time that headroom covers.
TEST_F(FabricFile, QuantumStepsTheVirtualClockOnly) {
  const std::string topo = "include: " + kFig2Topo + "\n";
  EXPECT_NE(LoadErr(Write("q1.yaml", "fabric: { clock: real, quantum: 1us }\n" + topo))
                .find("q1.yaml:1: fabric.quantum: expected 0 on the real clock"),
            std::string::npos);
  EXPECT_NE(LoadErr(Write("q2.yaml", "fabric: { duration: 1ms, quantum: 2ms }\n" + topo))
                .find("fabric.quantum: expected a step of at most 1ms"),
            std::string::npos);
  EXPECT_NE(LoadErr(Write("q4.yaml", "fabric: { duration: 1ms, quantum: 2us }\n" + topo +
                                         "links: { delay: 1us }\n"))
                .find("q4.yaml:1: fabric.quantum: expected at most the shortest link delay, "
                      "1000 ns (got 2000 ns)"),
            std::string::npos);
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(Write("q3.yaml", "fabric: { duration: 1ms, quantum: 500ns, out: " +
                                              (dir_ / "out").string() + " }\n" + topo),
                         &s, &err))
      << err;
  EXPECT_EQ(s.quantum_ns, 500u);
  FabricPlan plan = MakePlan(s);
  std::vector<config::SwitchConfig> cfgs;
  ASSERT_TRUE(WriteSwitchConfigs(s, &plan, &cfgs, &err)) << err;
  EXPECT_EQ(cfgs[0].pfc.response_ns, 1000u + 2 * 500u);
  // A stepped clock splits over threads too (tests/fabric/threads_test.py
  // compares the files).
  s.threads = 2;
  std::vector<std::string> names;
  for (uint32_t n : s.topo.Switches()) names.push_back(s.topo.node(n).name);
  EXPECT_TRUE(CheckThreads(s, names, cfgs, &err)) << err;
}

TEST_F(FabricFile, SwitchTemplateMustNotCarryGeneratedSections) {
  const std::string base = Write("base.yaml", "ports: []\n");
  FabricSpec s;
  std::string err;
  ASSERT_TRUE(LoadFabric(Fig2("switch: { config: " + base + " }\n"), &s, &err)) << err;
  FabricPlan plan = MakePlan(s);
  std::vector<config::SwitchConfig> cfgs;
  ASSERT_FALSE(WriteSwitchConfigs(s, &plan, &cfgs, &err));
  EXPECT_NE(err.find("base.yaml:1: ports: expected no such section"), std::string::npos) << err;
}

// HPCC-PINT's flows need switches that write the value, with the base
// their NICs decode it by: a template without int.pint is refused, one
// without a log base or RTT gets the hpcc section's and the flows' largest
// base RTT, a different base is refused, and each switch its own seed.
TEST_F(FabricFile, PintFlowsNeedTheSwitchesPint) {
  const std::string flows =
      "hpcc: { pint_log_base: 1.05 }\n"
      "flows:\n  - { name: a, from: H1, to: H2, transport: rc, bytes: 1M, cc: hpcc_pint }\n";
  auto write = [&](const std::string& tmpl, std::vector<config::SwitchConfig>* cfgs,
                   std::string* err) {
    const std::string base = Write("base.yaml", tmpl);
    FabricSpec s;
    EXPECT_TRUE(LoadFabric(Fig2("switch: { config: " + base + " }\n" + flows), &s, err)) << *err;
    FabricPlan plan = MakePlan(s);
    const bool ok = WriteSwitchConfigs(s, &plan, cfgs, err);
    return std::make_pair(ok, plan.max_base_rtt_ns);
  };
  std::vector<config::SwitchConfig> cfgs;
  std::string err;
  EXPECT_FALSE(write("qos: { lossless: [3] }\n", &cfgs, &err).first);
  EXPECT_NE(err.find("base.yaml: int.pint: expected the switch template's int section with pint"),
            std::string::npos)
      << err;
  EXPECT_FALSE(write("int: { priorities: [0], pint: { log_base: 1.01 } }\n", &cfgs, &err).first);
  EXPECT_NE(err.find("base.yaml:1: int.pint.log_base: expected the fabric's hpcc.pint_log_base"),
            std::string::npos)
      << err;
  const auto [ok, rtt] = write("int: { priorities: [0], pint: {} }\n", &cfgs, &err);
  ASSERT_TRUE(ok) << err;
  ASSERT_GT(rtt, 0u);
  ASSERT_GE(cfgs.size(), 2u);
  EXPECT_EQ(cfgs[0].telemetry.pint_log_base, 1.05);
  EXPECT_EQ(cfgs[0].telemetry.pint_rtt_ns, rtt);
  EXPECT_NE(cfgs[0].telemetry.seed, cfgs[1].telemetry.seed);
}

}  // namespace
}  // namespace pfc::emulator
