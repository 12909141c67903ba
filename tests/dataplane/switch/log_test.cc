// SPDX-License-Identifier: BSD-3-Clause
// Events are printed by the control thread, through DPDK's log types
// (switch/log.h): a worker only adds them to the switch's event log; an
// EventPrinter prints each new one once, on pfc.pfcwd / pfc.dcfit, and a
// level set from the command line (--log-level=pfc.pfcwd:warning) silences
// them.
#include "dataplane/switch/log.h"

#include <rte_log.h>

#include <cstdio>
#include <string>

#include "dataplane/stages/pfcwd_stage.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

// What rte_log writes while it lives.
class LogCapture {
 public:
  LogCapture() : old_(rte_log_get_stream()), f_(open_memstream(&buf_, &len_)) {
    rte_openlog_stream(f_);
  }
  ~LogCapture() {
    rte_openlog_stream(old_);
    std::fclose(f_);
    std::free(buf_);
  }
  std::string Text() {
    std::fflush(f_);
    return std::string(buf_, len_);
  }

 private:
  FILE* old_;
  char* buf_ = nullptr;
  size_t len_ = 0;
  FILE* f_;
};

TEST_F(StageTest, EventsPrintedOnceOnTheirLogType) {
  // The watchdog on: its event log is its own (stages/pfcwd_state.h).
  Start(BaseYaml("", "pfc_watchdog: { enabled: true }\n"));
  LogCapture cap;
  ASSERT_EQ(rte_log_set_level_pattern("pfc.pfcwd", RTE_LOG_INFO), 0);
  stages::PfcwdEvent e;
  e.port = 1;
  e.prio = 3;
  e.t_ns = 2'000'000;
  e.since_ns = 1'000'000;
  stages::PfcwdLogOf(*sw_)->Add(e);
  sw::EventPrinter printer;
  printer.Print(*sw_);
  printer.Print(*sw_);  // nothing new: nothing printed twice
  const std::string storm =
      "pfcswitch: pfcwd: storm port=p1 prio=3 t_ns=2000000 stalled_ns=1000000 drops=0\n";
  EXPECT_EQ(cap.Text(), storm);
  // Silenced from the command line's way of setting levels: still logged,
  // not printed, and not printed later either.
  ASSERT_EQ(rte_log_set_level_pattern("pfc.pfcwd", RTE_LOG_WARNING), 0);
  stages::PfcwdLogOf(*sw_)->Add(e);
  printer.Print(*sw_);
  ASSERT_EQ(rte_log_set_level_pattern("pfc.pfcwd", RTE_LOG_INFO), 0);
  printer.Print(*sw_);
  EXPECT_EQ(cap.Text(), storm);
  uint64_t total = 0;
  stages::PfcwdLogOf(*sw_)->Snapshot(&total);
  EXPECT_EQ(total, 2u);
  rte_log_set_level_pattern("pfc.*", RTE_LOG_WARNING);  // as the harness's EAL set it
}

}  // namespace
}  // namespace pfc::stagetest
