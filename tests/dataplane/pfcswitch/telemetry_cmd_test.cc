// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/telemetry_cmd.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

const std::vector<std::string> kPorts = {"p0", "p1", "uplink", "1"};

TEST(PortParam, NameFirstThenIndex) {
  EXPECT_EQ(pfcswitch::PortParam("p1", kPorts), 1);
  EXPECT_EQ(pfcswitch::PortParam("uplink", kPorts), 2);
  EXPECT_EQ(pfcswitch::PortParam("1", kPorts), 3);  // a port named "1" wins over index 1
  EXPECT_EQ(pfcswitch::PortParam("0", kPorts), 0);
  EXPECT_EQ(pfcswitch::PortParam("2", kPorts), 2);
  EXPECT_EQ(pfcswitch::PortParam("002", kPorts), 2);
}

TEST(PortParam, NoSuchPort) {
  EXPECT_EQ(pfcswitch::PortParam(nullptr, kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("4", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("p9", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("99999999999999999999999", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("0", {}), -1);
}

// Found by fuzz_telemetry_cmd (corpus/telemetry_cmd/regress-*):
// strtol skipped leading white space and took a sign, so "\n2", " 2" and
// "+2" all read port 2.
TEST(PortParam, OnlyPlainDigitsAreAnIndex) {
  EXPECT_EQ(pfcswitch::PortParam("\n2", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam(" 2", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("+2", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("-0", kPorts), -1);
  EXPECT_EQ(pfcswitch::PortParam("2 ", kPorts), -1);
}

TEST(ReloadParam, TakesTheWholeParameter) {
  std::string path;
  EXPECT_FALSE(pfcswitch::ReloadParam(nullptr, &path));
  EXPECT_FALSE(pfcswitch::ReloadParam("", &path));
  ASSERT_TRUE(pfcswitch::ReloadParam("/tmp/rules,v2.yaml", &path));
  EXPECT_EQ(path, "/tmp/rules,v2.yaml");
}

// Several switches (pfcfabric): the name comes first. One switch (pfcswitch,
// or one part of a split fabric): the name may be given or left out.
TEST(SwitchParam, NameFirstWithSeveralOptionalWithOne) {
  std::string rest;
  const std::vector<std::string> many = {"S1", "S2"};
  EXPECT_EQ(pfcswitch::SwitchParam("S2,H1", many, &rest), 1);
  EXPECT_EQ(rest, "H1");
  EXPECT_EQ(pfcswitch::SwitchParam("S1", many, &rest), 0);
  EXPECT_EQ(rest, "");
  EXPECT_EQ(pfcswitch::SwitchParam("H1", many, &rest), -1);
  EXPECT_EQ(pfcswitch::SwitchParam(nullptr, many, &rest), -1);
  const std::vector<std::string> one = {"S1"};
  EXPECT_EQ(pfcswitch::SwitchParam("S1,H1", one, &rest), 0);
  EXPECT_EQ(rest, "H1");
  EXPECT_EQ(pfcswitch::SwitchParam("H1", one, &rest), 0);
  EXPECT_EQ(rest, "H1");
  EXPECT_EQ(pfcswitch::SwitchParam(nullptr, one, &rest), 0);
  EXPECT_EQ(rest, "");
}

}  // namespace
// A failed reload's message whole, in pieces telemetry keeps (127 bytes),
// never cutting a character: the reply was cut at 127 bytes, which could
// split a UTF-8 character (issue 29).
TEST(Utf8Pieces, CutBetweenCharactersAndJoinBack) {
  std::string text = "rules.yaml:3: rewrite.rules[0].tag: expected a tag (got '";
  for (int i = 0; i < 60; i++) text += "\xc3\xa9\xe2\x82\xac";  // é€, 2 and 3 bytes
  text += "')";
  const auto pieces = pfcswitch::Utf8Pieces(text, 127);
  ASSERT_GT(pieces.size(), 2u);
  std::string joined;
  for (const std::string& p : pieces) {
    EXPECT_LE(p.size(), 127u);
    EXPECT_FALSE(p.empty());
    // Starts on a character's first byte, ends after a character's last.
    EXPECT_NE(static_cast<unsigned char>(p.front()) & 0xc0, 0x80) << p;
    const unsigned char last = static_cast<unsigned char>(p.back());
    EXPECT_TRUE(last < 0x80 || (last & 0xc0) == 0x80) << p;
    joined += p;
  }
  EXPECT_EQ(joined, text);
  EXPECT_EQ(pfcswitch::Utf8Pieces("short", 127), std::vector<std::string>{"short"});
  EXPECT_EQ(pfcswitch::Utf8Pieces("", 127), std::vector<std::string>{""});
  // Not UTF-8 (continuation bytes only): cut where it is, still whole.
  const std::string junk(300, '\x80');
  std::string back;
  for (const std::string& p : pfcswitch::Utf8Pieces(junk, 127)) back += p;
  EXPECT_EQ(back, junk);
}

// DPDK 22.11's telemetry mangles bytes above 0x7f in strings: replies go
// out as ASCII and pfcctl decodes them back to the very bytes.
TEST(TelemetrySafe, AsciiOnTheWireAndBackExactly) {
  const std::string cases[] = {
      "plain ascii: got 'x'",
      "back\\slash and \\u00e9 typed by hand",
      "\xc3\xa9\xe2\x82\xac and an emoji \xf0\x9f\x98\x80 and a tab\t",
      "not UTF-8: \xff\xc3 (cut) \xed\xa0\x80 (a surrogate) \xc0\xaf (overlong)",
      "",
  };
  for (const std::string& text : cases) {
    const std::string safe = pfcswitch::TelemetrySafe(text);
    for (char c : safe) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << safe;
    EXPECT_EQ(pfcswitch::TelemetryText(safe), text) << safe;
  }
  EXPECT_EQ(pfcswitch::TelemetrySafe("\xc3\xa9"), "\\u00e9");
  EXPECT_EQ(pfcswitch::TelemetrySafe("\xf0\x9f\x98\x80"), "\\ud83d\\ude00");  // as JSON writes it
  EXPECT_EQ(pfcswitch::TelemetrySafe("a\\b"), "a\\\\b");
  EXPECT_EQ(pfcswitch::TelemetrySafe("\xff"), "\\xff");
}

}  // namespace pfc
