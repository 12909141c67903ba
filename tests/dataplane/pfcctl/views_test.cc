// SPDX-License-Identifier: BSD-3-Clause
// pfcctl's pure parts: counter deltas and rates (deltas.h), the text table
// (table.h), the SONiC-like views (views.h) and the clear baseline's file
// (baseline.h), over stats documents built here.
#include "dataplane/pfcctl/views.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "dataplane/pfcctl/baseline.h"
#include "dataplane/pfcctl/deltas.h"
#include "dataplane/pfcctl/table.h"

namespace pfc::pfcctl {
namespace {

using nlohmann::json;

// A stats document with ports `names`, every counter 0 but those `set`
// assigns (port index, priority, key, value; key "drop:<reason>" for drops).
struct Set {
  int port, prio;
  std::string key;
  uint64_t v;
};
json Doc(const std::vector<std::string>& names, const std::vector<Set>& set,
         std::vector<int> lossless = {3, 4}) {
  json ports = json::array();
  for (const auto& n : names) {
    json prio = json::array();
    for (int q = 0; q < 8; q++) {
      json pj = {{"prio", q}, {"drops", {{"no_route", 0u}, {"pfcwd_storm", 0u}}}};
      for (const char* k :
           {"pfc_xoff_rx",  "pfc_xoff_tx",      "pfc_refresh_tx",   "pfc_xon_rx",
            "pfc_xon_tx",   "paused_ns",        "pausing_ns",       "tx_packets",
            "tx_bytes",     "tx_discards",      "tx_discard_bytes", "ecn_marked",
            "queue_depth",  "egress_watermark", "buffer_watermark", "headroom_watermark",
            "pfcwd_storms", "pfcwd_restores",   "pfcwd_storm_ns",   "pfcwd_in_storm"})
        pj[k] = 0u;
      pj["lossless"] = std::find(lossless.begin(), lossless.end(), q) != lossless.end();
      prio.push_back(pj);
    }
    ports.push_back({{"name", n}, {"rx_packets", 0u}, {"prio", prio}});
  }
  for (const auto& s : set) {
    json& q = ports[s.port]["prio"][s.prio];
    if (s.key.rfind("drop:", 0) == 0)
      q["drops"][s.key.substr(5)] = s.v;
    else
      q[s.key] = s.v;
  }
  return {{"ports", ports}, {"drops_total", 0u}};
}

// The whitespace-separated fields of the line of `text` starting with
// `first` (after `skip` such lines: the views repeat port names per table).
std::vector<std::string> Line(const std::string& text, const std::string& first, int skip = 0) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    std::istringstream f(l);
    std::vector<std::string> v;
    for (std::string w; f >> w;) v.push_back(w);
    if (!v.empty() && v[0] == first && skip-- == 0) return v;
  }
  return {};
}

TEST(Deltas, SinceSubtractsCountersAndKeepsGauges) {
  const json base =
      Doc({"p0"}, {{0, 3, "pfc_xoff_rx", 5}, {0, 3, "queue_depth", 7}, {0, 3, "drop:no_route", 2}});
  const json cur = Doc({"p0"}, {{0, 3, "pfc_xoff_rx", 12},
                                {0, 3, "queue_depth", 4},
                                {0, 3, "drop:no_route", 2},
                                {0, 3, "egress_watermark", 9}});
  const json d = Since(cur, base);
  const json& q = d["ports"][0]["prio"][3];
  EXPECT_EQ(q["pfc_xoff_rx"], 7u);
  EXPECT_EQ(q["queue_depth"], 4u);  // a gauge: as now
  EXPECT_EQ(q["egress_watermark"], 9u);
  EXPECT_EQ(q["drops"]["no_route"], 0u);
  EXPECT_EQ(q["lossless"], true);
  EXPECT_EQ(d["ports"][0]["name"], "p0");
}

TEST(Deltas, CounterBelowItsBaselineIsShownWhole) {
  // The switch restarted after the clear: its counters began again.
  const json d =
      Since(Doc({"p0"}, {{0, 1, "tx_packets", 3}}), Doc({"p0"}, {{0, 1, "tx_packets", 100}}));
  EXPECT_EQ(d["ports"][0]["prio"][1]["tx_packets"], 3u);
  // A port the baseline did not have.
  const json two = Since(Doc({"p0", "p1"}, {{1, 0, "tx_packets", 8}}), Doc({"p0"}, {}));
  EXPECT_EQ(two["ports"][1]["prio"][0]["tx_packets"], 8u);
}

TEST(Deltas, PerSecond) {
  const json r = PerSecond(Doc({"p0"}, {{0, 3, "tx_packets", 300}, {0, 3, "queue_depth", 5}}),
                           Doc({"p0"}, {{0, 3, "tx_packets", 100}}), 2.0);
  EXPECT_DOUBLE_EQ(r["ports"][0]["prio"][3]["tx_packets"].get<double>(), 100.0);
  EXPECT_EQ(r["ports"][0]["prio"][3]["queue_depth"], 5u);
  EXPECT_DOUBLE_EQ(r["ports"][0]["prio"][0]["tx_packets"].get<double>(), 0.0);
}

TEST(Table, AlignsTextLeftAndNumbersRight) {
  Table t({"Port", "PFC0", "PFC10"});
  t.Row({"Ethernet0", "5", "12345"});
  t.Row({"p1", "100", "0"});
  EXPECT_EQ(t.Render(),
            "Port       PFC0  PFC10\n"
            "---------  ----  -----\n"
            "Ethernet0     5  12345\n"
            "p1          100      0\n");
}

TEST(Table, Cells) {
  EXPECT_EQ(Cell(json(42u)), "42");
  EXPECT_EQ(Cell(json(2.25)), "2.2");  // round half to even: printf's
  EXPECT_EQ(Cell(json()), "N/A");
}

TEST(Views, PfcMatrixRowsPerPortZerosIncluded) {
  const json s = Doc({"p0", "p1"}, {{0, 3, "pfc_xoff_tx", 4},
                                    {0, 3, "pfc_refresh_tx", 2},
                                    {1, 4, "pfc_xoff_rx", 9},
                                    {1, 4, "paused_ns", 1500000},
                                    {0, 3, "pfc_xon_tx", 1}});
  const std::string v = PfcView(s, {});
  // Rx table first, then Tx; each has both ports.
  const std::vector<std::string> rx_p1 = Line(v, "p1");
  ASSERT_EQ(rx_p1.size(), 9u) << v;
  EXPECT_EQ(rx_p1[5], "9");
  const std::vector<std::string> rx_p0 = Line(v, "p0");
  EXPECT_EQ(rx_p0, std::vector<std::string>({"p0", "0", "0", "0", "0", "0", "0", "0", "0"}));
  EXPECT_EQ(Line(v, "p0", 1)[4], "6");     // Tx: XOFF + refresh
  EXPECT_EQ(Line(v, "p1", 2)[5], "1500");  // paused, in us
  EXPECT_EQ(v.find("XON"), std::string::npos);
  const std::string x = PfcView(s, {true, false});
  EXPECT_EQ(Line(x, "p0", 3)[4], "1");  // Tx XON, after Rx, Tx, Rx XON
  EXPECT_NE(PfcView(s, {false, true}).find("Port Rx/s"), std::string::npos);
}

TEST(Views, QueueCountersAndDrops) {
  const json s = Doc({"p0"}, {{0, 2, "tx_packets", 10},
                              {0, 2, "tx_bytes", 1000},
                              {0, 2, "tx_discards", 3},
                              {0, 1, "drop:no_route", 6}});
  const std::string v = QueueView(s, {});
  std::vector<std::string> uc2;
  for (int i = 0; i < 8; i++) {
    auto l = Line(v, "p0", i);
    if (l.size() > 1 && l[1] == "UC2") uc2 = l;
  }
  EXPECT_EQ(uc2, std::vector<std::string>({"p0", "UC2", "10", "1000", "3", "0", "0", "0"})) << v;
  EXPECT_EQ(Line(v, "p0", 8), std::vector<std::string>({"p0", "PG1", "no_route", "6"}));
  EXPECT_NE(QueueView(Doc({"p0"}, {}), {}).find("(none)"), std::string::npos);
}

TEST(Views, Watermarks) {
  const std::string v = WatermarkView(
      Doc({"p0"}, {{0, 5, "egress_watermark", 77}, {0, 3, "buffer_watermark", 4096}}));
  EXPECT_EQ(Line(v, "p0", 0)[6], "77");
  EXPECT_EQ(Line(v, "p0", 1)[4], "4096");
  EXPECT_EQ(Line(v, "p0", 2)[4], "0");
}

TEST(Views, PfcwdLosslessQueues) {
  const json s = Doc({"p0"}, {{0, 3, "pfcwd_storms", 2},
                              {0, 3, "pfcwd_restores", 1},
                              {0, 3, "pfcwd_in_storm", 1},
                              {0, 3, "pfcwd_storm_ns", 5000},
                              {0, 3, "tx_packets", 8},
                              {0, 3, "tx_discards", 4},
                              {0, 3, "drop:pfcwd_storm", 4},
                              {0, 3, "pfcwd_enabled", 1},
                              {0, 4, "pfcwd_enabled", 1},
                              {0, 6, "pfcwd_storms", 1}});
  const std::string v = PfcwdView(s, {});
  EXPECT_EQ(Line(v, "p0:3"), std::vector<std::string>({"p0:3", "stormed", "2/1", "5", "8/4", "4"}));
  EXPECT_EQ(Line(v, "p0:4")[1], "operational");
  EXPECT_EQ(v.find("no queue has the pause-storm watchdog"), std::string::npos);
  EXPECT_FALSE(Line(v, "p0:6").empty());  // lossy, but with storms
  EXPECT_TRUE(Line(v, "p0:0").empty());
  EXPECT_NE(PfcwdView(Doc({"p0"}, {}, {}), {}).find("no lossless"), std::string::npos);
}

// Without a pfc_watchdog section no queue is watched: each says "off", not
// "operational", and the view says where the watchdog is enabled.
TEST(Views, PfcwdOffWhereNotConfigured) {
  const std::string v = PfcwdView(Doc({"p0"}, {}), {});
  EXPECT_EQ(Line(v, "p0:3")[1], "off");
  EXPECT_EQ(Line(v, "p0:4")[1], "off");
  EXPECT_NE(v.find("no queue has the pause-storm watchdog: it runs where the switch config's "
                   "pfc_watchdog section enables it"),
            std::string::npos);
}

TEST(Baseline, PathNamesPrefixAndSwitch) {
  setenv("XDG_RUNTIME_DIR", "/run/user/7", 1);
  EXPECT_EQ(BaselinePath("/var/run/dpdk/sw1/dpdk_telemetry.v2", ""), "/run/user/7/pfcctl-sw1.json");
  EXPECT_EQ(BaselinePath("/var/run/dpdk/pfcfabric-9/dpdk_telemetry.v2", "S1"),
            "/run/user/7/pfcctl-pfcfabric-9-S1.json");
  unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(BaselinePath("sock", ""), "/tmp/pfcctl-sock.json");
}

TEST(Baseline, SavedForOneSocketOnly) {
  char dir[] = "/tmp/ctl_unit_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string sock = std::string(dir) + "/sock", path = std::string(dir) + "/b.json";
  std::FILE* f = std::fopen(sock.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  const std::string id = SocketIdentity(sock);
  ASSERT_FALSE(id.empty());
  std::string err;
  ASSERT_TRUE(SaveBaseline(path, id, Doc({"p0"}, {{0, 0, "tx_packets", 5}}), &err)) << err;
  json got;
  int64_t when = 0;
  ASSERT_TRUE(LoadBaseline(path, id, &got, &when));
  EXPECT_EQ(got["ports"][0]["prio"][0]["tx_packets"], 5u);
  EXPECT_GT(when, 0);
  EXPECT_FALSE(LoadBaseline(path, id + "x", &got, &when));  // another process's socket
  EXPECT_FALSE(LoadBaseline(path + ".none", id, &got, &when));
  std::remove(path.c_str());
  std::remove(sock.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace pfc::pfcctl
