// SPDX-License-Identifier: BSD-3-Clause
// pfcfabric's lcores on the CPUs it was given (spec/cpu_plan.h).
#include "dataplane/emulator/spec/cpu_plan.h"

#include <gtest/gtest.h>
#include <sched.h>

namespace pfc::emulator {
namespace {

TEST(CpuPlan, TheVirtualClockRunsOnTheCpuItWasGiven) {
  // taskset -c 1: lcore 0 on CPU 1, not CPU 0.
  EXPECT_EQ(LcoreMap({1}, 1, 0), "0@1");
  // Two MPI ranks on one machine start on CPUs of their own, in the set.
  EXPECT_EQ(LcoreMap({2, 5}, 1, 0), "0@2");
  EXPECT_EQ(LcoreMap({2, 5}, 1, 1), "0@5");
  EXPECT_EQ(LcoreMap({2, 5}, 1, 2), "0@2");
}

TEST(CpuPlan, TheRealClocksLcoresTakeTheFirstCpusAndShareWhenThereAreFewer) {
  EXPECT_EQ(LcoreMap({0, 1, 2, 3}, 3, 0), "0@0,1@1,2@2");
  EXPECT_EQ(LcoreMap({4, 7}, 2, 0), "0@4,1@7");
  EXPECT_EQ(LcoreMap({3}, 2, 0), "0@3,1@3");
}

TEST(CpuPlan, AllowedCpusAreTheAffinityOfTheCallingThread) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const std::vector<unsigned> cpus = AllowedCpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_EQ(static_cast<int>(cpus.size()), CPU_COUNT(&set));
  for (size_t i = 0; i < cpus.size(); i++) {
    EXPECT_TRUE(CPU_ISSET(cpus[i], &set)) << cpus[i];
    if (i != 0) EXPECT_LT(cpus[i - 1], cpus[i]);
  }
}

}  // namespace
}  // namespace pfc::emulator
