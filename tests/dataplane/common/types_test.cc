// SPDX-License-Identifier: BSD-3-Clause
// The vocabulary tables of dataplane/common. Drop reasons
// (PFC_DROP_REASONS): names are the telemetry interface (unique, lower-case
// snake_case, fixed order), and which reasons count as lost lossless data
// is decided by the table alone. Named enums (PFC_NAMED_ENUM).
#include "dataplane/common/types.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "dataplane/common/named_enum.h"
#include "dataplane/dcfit/detector.h"
#include "dataplane/dcfit/trigger_handler.h"

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

// PFC_NAMED_ENUM (named_enum.h): one row gives an enumerator its name.
namespace pfc::named_enum_test {
#define TEST_COLOURS(X) X(kRed, "red") X(kBlue, "blue")
PFC_NAMED_ENUM(Colour, ColourName, TEST_COLOURS)
static_assert(static_cast<int>(Colour::kBlue) == 1);

TEST(NamedEnum, NamesFromTheTableAndUnknownValues) {
  EXPECT_STREQ(ColourName(Colour::kRed), "red");
  EXPECT_STREQ(ColourName(Colour::kBlue), "blue");
  EXPECT_STREQ(ColourName(static_cast<Colour>(2)), "?");
  // The DCFIT vocabularies keep the names their logs and results use.
  EXPECT_STREQ(dcfit::EventKindName(dcfit::EventKind::kDeadlock), "deadlock");
  EXPECT_STREQ(dcfit::FailReasonName(dcfit::FailReason::kReturnCheck), "return_check");
  EXPECT_STREQ(dcfit::MsgStatusName(dcfit::MsgStatus::kNotPfc), "not_pfc");
  EXPECT_STREQ(dcfit::ActionKindName(dcfit::ActionKind::kRateLimitEnd), "rate_limit_end");
  EXPECT_STREQ(dcfit::ActionKindName(static_cast<dcfit::ActionKind>(200)), "?");
}
}  // namespace pfc::named_enum_test
