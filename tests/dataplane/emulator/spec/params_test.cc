// SPDX-License-Identifier: BSD-3-Clause
// The NIC sections' parameter tables (model/params.h) are the one
// declaration of each parameter: the parser reads every key of a table by
// its kind and range, and the reference docs carry the tables exactly as
// ParamsTable writes them (so a parameter added, renamed or given another
// default changes the docs, or this test fails).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "dataplane/config/yaml_util.h"
#include "dataplane/emulator/spec/fabric_spec.h"
#include "dataplane/emulator/spec/nic_sections.h"

namespace pfc::emulator {
namespace {

std::string Docs() {
  std::ifstream f(std::string(PFC_SOURCE_ROOT) + "/docs/reference/fabric-file.md");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(NicParams, DocsCarryTheTables) {
  const std::string docs = Docs();
  ASSERT_FALSE(docs.empty());
  for (const std::string& table :
       {ParamsTable(DcqcnParamTable()), ParamsTable(RcParamTable()), ParamsTable(HpccParamTable()),
        ParamsTable(TimelyParamTable()), ParamsTable(DctcpParamTable())})
    EXPECT_NE(docs.find(table), std::string::npos)
        << "docs/reference/fabric-file.md should carry, as is:\n"
        << table;
}

TEST(NicParams, DefaultsWrittenByKind) {
  const std::string t = ParamsTable(DcqcnParamTable());
  EXPECT_NE(t.find("| `rate_ai` | rate | 50M |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `rp_timer` | time > 0 | 900us |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `ewma_gain` | 0..1 | 0.00390625 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `clamp_target_rate` | bool | false |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `cnp_prio` | 0..7 | 6 |"), std::string::npos) << t;
  EXPECT_NE(ParamsTable(RcParamTable()).find("| `timeout` | 0..31 | 8 |"), std::string::npos);
}

// Every key of a table is read into its member, by its kind.
TEST(NicParams, ParserReadsEveryKey) {
  const std::string y =
      "{ rate_ai: 40M, rate_hai: 1G, min_rate: 10M, ewma_gain: 0.5, alpha_resume_interval: 55us,"
      " rate_decrease_interval: 50us, rp_timer: 1500us, fast_recovery_times: 5,"
      " clamp_target_rate: true, rate_on_first_cnp: 0.25, byte_counter: 10M,"
      " cnp_interval: 50us, cnp_dscp: 46, cnp_prio: 5 }";
  FabricSpec s;
  config::Reader rd("t.yaml");
  ParseDcqcn(rd, YAML::Load(y), &s);
  const DcqcnParams& d = s.dcqcn;
  EXPECT_EQ(d.rate_ai_bps, 40'000'000u);
  EXPECT_EQ(d.rate_hai_bps, 1'000'000'000u);
  EXPECT_EQ(d.min_rate_bps, 10'000'000u);
  EXPECT_EQ(d.ewma_gain, 0.5);
  EXPECT_EQ(d.alpha_resume_interval_ns, 55'000u);
  EXPECT_EQ(d.rate_decrease_interval_ns, 50'000u);
  EXPECT_EQ(d.rp_timer_ns, 1'500'000u);
  EXPECT_EQ(d.fast_recovery_times, 5u);
  EXPECT_TRUE(d.clamp_target_rate);
  EXPECT_EQ(d.rate_on_first_cnp, 0.25);
  EXPECT_EQ(d.byte_counter_bytes, 10u << 20);
  EXPECT_EQ(d.cnp_interval_ns, 50'000u);
  EXPECT_EQ(d.cnp_dscp, 46);
  EXPECT_EQ(d.cnp_prio, 5);
  EXPECT_EQ(s.rc.nak_interval_ns, 0u) << "a gap NAKed once unless asked";
  EXPECT_TRUE(s.rc.pace_catch_up) << "late slots taken back unless asked";
  ParseRc(rd,
          YAML::Load("{ mtu: 4096, ack_interval: 4, timeout: 14, retry_cnt: 3, "
                     "nak_interval: 500us, pace_catch_up: false }"),
          &s);
  EXPECT_FALSE(s.rc.pace_catch_up);
  EXPECT_EQ(s.rc.mtu, 4096u);
  EXPECT_EQ(s.rc.ack_interval, 4u);
  EXPECT_EQ(s.rc.timeout, 14);
  EXPECT_EQ(s.rc.retry_cnt, 3);
  EXPECT_EQ(s.rc.nak_interval_ns, 500'000u);
  ParseRc(rd, YAML::Load("{ nak_interval: 0 }"), &s);
  EXPECT_EQ(s.rc.nak_interval_ns, 0u) << "0: off, where a time > 0 is refused";
}

}  // namespace
}  // namespace pfc::emulator
