// SPDX-License-Identifier: BSD-3-Clause
// The drop-reason table (PFC_DROP_REASONS): names are the telemetry
// interface (unique, lower-case snake_case, fixed order), and which reasons count as
// lost lossless data is decided by the table alone.
#include "dataplane/common/types.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace pfc {
namespace {

TEST(DropReasons, NamesAreUniqueAndInTheirTelemetryOrder) {
  std::set<std::string_view> seen;
  for (int r = 0; r < kNumDropReasons; r++) {
    const std::string_view name = DropReasonName(static_cast<DropReason>(r));
    ASSERT_FALSE(name.empty());
    for (char c : name)
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << name;
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
  // Append only: the first and the latest rows keep their places.
  EXPECT_EQ(DropReasonName(DropReason::kRunt), "runt");
  EXPECT_EQ(static_cast<int>(DropReason::kLosslessHeadroom), 11);
  EXPECT_EQ(DropReasonName(DropReason::kLosslessHeadroom), "lossless_headroom_exceeded");
  EXPECT_EQ(DropReasonName(DropReason::kDcfitHostLossy), "dcfit_host_lossy");
  EXPECT_EQ(kNumDropReasons, 21);
  EXPECT_EQ(DropReasonName(DropReason::kCount), "?");
}

TEST(DropReasons, LosslessLossIsEverythingButRecoveryAndLoopVictims) {
  for (int r = 0; r < kNumDropReasons; r++) {
    const DropReason d = static_cast<DropReason>(r);
    const bool expected =
        DropReasonClass(d) != DropClass::kRecovery && d != DropReason::kTtlExpired;
    EXPECT_EQ(DropIsLosslessLoss(d), expected) << DropReasonName(d);
  }
  EXPECT_EQ(DropReasonClass(DropReason::kDcfitBreak), DropClass::kRecovery);
  EXPECT_EQ(DropReasonClass(DropReason::kPfcwdStorm), DropClass::kRecovery);
  EXPECT_EQ(DropReasonClass(DropReason::kLosslessHeadroom), DropClass::kLosslessViolation);
  EXPECT_EQ(DropReasonClass(DropReason::kLossyBufferFull), DropClass::kLossyCongestion);
  EXPECT_EQ(DropReasonClass(DropReason::kBadIpChecksum), DropClass::kMalformed);
  EXPECT_EQ(DropReasonClass(DropReason::kNoRoute), DropClass::kPolicy);
  EXPECT_TRUE(DropIsLosslessLoss(DropReason::kEgressQueueFull));
}

}  // namespace
}  // namespace pfc
