// SPDX-License-Identifier: BSD-3-Clause
// Initial-trigger handling (dcfit/trigger_handler.h) and the heavy-hitter
// sketch and token bucket (dcfit/heavy_hitter.h), pure.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dataplane/dcfit/heavy_hitter.h"
#include "dataplane/dcfit/trigger_handler.h"

namespace pfc::dcfit {
namespace {

constexpr uint64_t kHold = 1'000'000;

TriggerHandler Make(SwitchId self, int ports = 8) {
  TriggerHandler h;
  std::string err;
  EXPECT_TRUE(h.Configure(TriggerConfig{self, ports, kHold}, &err)) << err;
  return h;
}

// A message of the trigger's own chain (initiator = S_tri).
CheckMsg Trig(SwitchId tri_sw, uint8_t tri_port, bool host) {
  CheckMsg m;
  m.gen_sw = tri_sw;
  m.gen_port = 2;
  m.seq = 7;
  m.tri_sw = tri_sw;
  m.tri_port = tri_port;
  m.prio = 3;
  m.flags = static_cast<uint8_t>(host ? kTriggerHost : 0);
  m.hops = 5;
  return m;
}

// The episode of switch 9 (a middle switch, §3.4) that declared a deadlock
// whose initial trigger is {tri_sw, tri_port}.
CheckMsg Declared(SwitchId tri_sw, uint8_t tri_port, bool host) {
  CheckMsg m = Trig(tri_sw, tri_port, host);
  m.gen_sw = 9;
  m.flags |= kMiddle;
  return m;
}

TEST(TriggerHandler, ConfigureRefusesBadValues) {
  TriggerHandler h;
  std::string err;
  EXPECT_FALSE(h.Configure(TriggerConfig{1, 0, kHold}, &err));
  EXPECT_NE(err.find("num_ports 0"), std::string::npos) << err;
  EXPECT_FALSE(h.Configure(TriggerConfig{1, 65, kHold}, &err));
  EXPECT_FALSE(h.Configure(TriggerConfig{1, 4, 0}, &err));
  EXPECT_NE(err.find("hold_time"), std::string::npos) << err;
}

TEST(TriggerHandler, DeclaringSwitchSendsTheNoticeWhereTheTriggerCameFrom) {
  TriggerHandler h = Make(9);
  h.Learn(4, Trig(1, 6, true), 10);
  h.Learn(5, Trig(2, 6, true), 11);  // another trigger, another way
  std::vector<Action> out;
  h.OnDeadlock(Declared(1, 6, true), 100, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kNoticeSent);
  EXPECT_EQ(out[0].port, 4);
  EXPECT_EQ(out[0].at_ns, 100u);
  // The notice: the trigger and the declaring episode, flag kNotice (not
  // kMiddle), hops from 0.
  const CheckMsg& n = out[0].msg;
  EXPECT_EQ(n.flags, kNotice | kTriggerHost);
  EXPECT_EQ(n.hops, 0);
  EXPECT_EQ(n.tri_sw, 1);
  EXPECT_EQ(n.tri_port, 6);
  EXPECT_EQ(n.gen_sw, 9);
  EXPECT_EQ(n.seq, 7u);
  EXPECT_EQ(h.counters().notices_sent, 1u);
  // The newest way wins; a switch trigger with the same IDs is another key.
  h.Learn(3, Trig(1, 6, true), 20);
  EXPECT_EQ(h.RouteTo(Trig(1, 6, true)), 3);
  EXPECT_EQ(h.RouteTo(Trig(1, 6, false)), -1);
  CheckMsg other_prio = Trig(1, 6, true);
  other_prio.prio = 4;
  EXPECT_EQ(h.RouteTo(other_prio), -1);
}

TEST(TriggerHandler, NoRouteIsCountedAndReported) {
  TriggerHandler h = Make(9);
  std::vector<Action> out;
  h.OnDeadlock(Declared(1, 6, true), 100, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kNoticeNoRoute);
  EXPECT_EQ(h.counters().notices_no_route, 1u);
  EXPECT_EQ(h.counters().notices_sent, 0u);
}

TEST(TriggerHandler, OwnMessagesAndNoticesAreNotRoutes) {
  TriggerHandler h = Make(1);
  h.Learn(4, Trig(1, 6, true), 10);  // our own trigger: acted on here
  CheckMsg n = Trig(2, 6, true);
  n.flags |= kNotice;
  h.Learn(4, n, 10);
  h.Learn(9, Trig(2, 6, true), 10);  // no such port
  // A middle switch's episode carries the trigger round the loop: not a way
  // back to it.
  h.Learn(5, Declared(2, 6, true), 10);
  EXPECT_EQ(h.RouteTo(Trig(1, 6, true)), -1);
  EXPECT_EQ(h.RouteTo(Trig(2, 6, true)), -1);
}

TEST(TriggerHandler, MiddleHopForwardsWithHopCountAndStopsAtTheLimit) {
  TriggerHandler h = Make(5);
  h.Learn(2, Trig(1, 6, false), 10);
  std::vector<Action> out;
  CheckMsg n = Trig(1, 6, false);
  n.flags = kNotice;
  n.hops = 3;
  h.OnNotice(7, n, 50, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kNoticeForwarded);
  EXPECT_EQ(out[0].port, 2);
  EXPECT_EQ(out[0].msg.hops, 4);
  EXPECT_EQ(h.counters().notices_rx, 1u);
  EXPECT_EQ(h.counters().notices_forwarded, 1u);
  out.clear();
  n.hops = TriggerHandler::kMaxNoticeHops - 1;
  h.OnNotice(7, n, 60, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kNoticeNoRoute);
  EXPECT_EQ(h.counters().notices_no_route, 1u);
}

TEST(TriggerHandler, HostTriggerPortIgnoresPauseForTheHoldThenRecovers) {
  TriggerHandler h = Make(1);
  std::vector<Action> out;
  CheckMsg n = Trig(1, 6, true);
  n.flags = kNotice | kTriggerHost;
  h.OnNotice(2, n, 1000, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kHostLossy);
  EXPECT_EQ(out[0].port, 6);
  EXPECT_EQ(out[0].until_ns, 1000 + kHold);
  EXPECT_EQ(h.ignore_mask(6), 1u << 3);
  EXPECT_EQ(h.ignore_mask(2), 0u);
  EXPECT_EQ(h.limit_mask(6), 0u);
  EXPECT_EQ(h.next_expiry(), 1000 + kHold);
  // Another notice for the same trigger while held: a repeat, no extension.
  out.clear();
  h.OnNotice(3, n, 2000, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(h.counters().repeats, 1u);
  EXPECT_EQ(h.next_expiry(), 1000 + kHold);
  // Not yet.
  h.Tick(1000 + kHold - 1, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(h.ignore_mask(6), 1u << 3);
  h.Tick(1000 + kHold, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kHostRestored);
  EXPECT_EQ(out[0].port, 6);
  EXPECT_EQ(h.ignore_mask(6), 0u);
  EXPECT_EQ(h.next_expiry(), 0u);
  // After the hold a new notice starts a new one.
  out.clear();
  h.OnNotice(3, n, 5'000'000, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kHostLossy);
  EXPECT_EQ(h.counters().holds, 2u);
}

TEST(TriggerHandler, SwitchTriggerDeclaredHereStartsARateLimit) {
  TriggerHandler h = Make(1);
  std::vector<Action> out;
  h.OnDeadlock(Trig(1, 4, false), 10, &out);  // on the loop: we declared
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kRateLimit);
  EXPECT_EQ(out[0].port, 4);
  EXPECT_EQ(h.limit_mask(4), 1u << 3);
  EXPECT_EQ(h.ignore_mask(4), 0u);
  // Two holds, the earlier ends first.
  CheckMsg n = Trig(1, 5, true);
  n.flags = kNotice | kTriggerHost;
  h.OnNotice(0, n, 500, &out);
  EXPECT_EQ(h.next_expiry(), 10 + kHold);
  out.clear();
  h.Tick(10 + kHold, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, ActionKind::kRateLimitEnd);
  EXPECT_EQ(h.limit_mask(4), 0u);
  EXPECT_EQ(h.ignore_mask(5), 1u << 3);
  EXPECT_EQ(h.next_expiry(), 500 + kHold);
}

// The trigger's own messages reach a loop switch directly (few hops) and
// again round the loop (more): the way back is the shorter one, until it
// goes stale.
TEST(TriggerHandler, TheShortestWayBackWinsOverTheLoop) {
  TriggerHandler h = Make(9);
  CheckMsg direct = Trig(1, 6, false), round = direct;
  direct.hops = 1;
  round.hops = 5;
  h.Learn(2, direct, 10);
  h.Learn(3, round, 20);
  EXPECT_EQ(h.RouteTo(direct), 2) << "the loop's copy came last but is longer";
  h.Learn(4, direct, 30);
  EXPECT_EQ(h.RouteTo(direct), 4) << "equal hops: the newest";
  h.Learn(3, round, 30 + TriggerHandler::kRouteStaleNs);
  EXPECT_EQ(h.RouteTo(direct), 4) << "not stale yet";
  h.Learn(3, round, 31 + TriggerHandler::kRouteStaleNs);
  EXPECT_EQ(h.RouteTo(direct), 3) << "stale: any way is better than none";
}

TEST(TriggerHandler, RouteTableStaysBoundedAndForgetsTheOldest) {
  TriggerHandler h = Make(9);
  for (int i = 0; i < TriggerHandler::kRoutes + 1; i++)
    h.Learn(static_cast<PortId>(i % 8), Trig(static_cast<SwitchId>(100 + i), 1, false), 10 + i);
  EXPECT_EQ(h.RouteTo(Trig(100, 1, false)), -1) << "the oldest was replaced";
  EXPECT_EQ(h.RouteTo(Trig(101, 1, false)), 1);
  EXPECT_EQ(h.RouteTo(Trig(100 + TriggerHandler::kRoutes, 1, false)), TriggerHandler::kRoutes % 8);
}

TEST(HeavyHitters, NamesTheLargestFlowsExactlyWhenTheyFit) {
  HeavyHitters hh;
  for (int i = 0; i < 100; i++) {
    hh.Offer(0xA, 1000);
    if (i % 2 == 0) hh.Offer(0xB, 1000);
    if (i % 10 == 0) hh.Offer(0xC, 100);
  }
  HeavyHitters::Entry top[4];
  const int n = hh.Top(0.1, top, 4);
  ASSERT_EQ(n, 2) << "C sends 1000 of 151000 bytes: under 10%";
  EXPECT_EQ(top[0].key, 0xAu);
  EXPECT_EQ(top[0].bytes, 100'000u);
  EXPECT_EQ(top[0].error, 0u);
  EXPECT_EQ(top[1].key, 0xBu);
  EXPECT_EQ(top[1].bytes, 50'000u);
  EXPECT_EQ(hh.total_bytes(), 151'000u);
  EXPECT_EQ(hh.Top(0.0, top, 4), 3);
  hh.Reset();
  EXPECT_EQ(hh.Top(0.0, top, 4), 0);
  EXPECT_EQ(hh.total_bytes(), 0u);
}

TEST(HeavyHitters, SpaceSavingKeepsAHeavyFlowAmongManyMice) {
  HeavyHitters hh;
  // 1000 distinct mice of 100 bytes, and an elephant every fourth packet.
  for (uint64_t i = 0; i < 1000; i++) {
    hh.Offer(1000 + i, 100);
    if (i % 4 == 0) hh.Offer(7, 1500);
  }
  HeavyHitters::Entry top[1];
  ASSERT_EQ(hh.Top(0.3, top, 1), 1);
  EXPECT_EQ(top[0].key, 7u);
  // Never under-counted: it sent 250 * 1500 bytes.
  EXPECT_GE(top[0].bytes, 375'000u);
  EXPECT_LE(top[0].bytes - top[0].error, 375'000u);
}

TEST(HeavyHitters, FlowKeyIsSourceAndDestination) {
  uint8_t f[64] = {};
  f[12] = 0x08;
  f[13] = 0x00;
  const uint8_t ips[8] = {10, 0, 1, 2, 10, 0, 3, 4};
  for (int i = 0; i < 8; i++) f[14 + 12 + i] = ips[i];
  const uint64_t k = FlowKeyOf(f, sizeof f);
  EXPECT_EQ(FlowKeyText(k), "10.0.1.2>10.0.3.4");
  EXPECT_EQ(FlowKeyOf(f, 33), 0u) << "an IPv4 header cut short";
  // With one 802.1Q tag.
  uint8_t v[68] = {};
  v[12] = 0x81;
  v[16] = 0x08;
  for (int i = 0; i < 8; i++) v[18 + 12 + i] = ips[i];
  EXPECT_EQ(FlowKeyOf(v, sizeof v), k);
  f[13] = 0x06;  // ARP
  EXPECT_EQ(FlowKeyOf(f, sizeof f), 0u);
}

TEST(TokenBucket, PassesTheRateAndTheBurstOnly) {
  TokenBucket b;
  b.Configure(8'000'000'000, 3000, 0);  // 1 byte/ns, 3000 bytes deep
  EXPECT_TRUE(b.Take(1500, 0));
  EXPECT_TRUE(b.Take(1500, 0));
  EXPECT_FALSE(b.Take(1500, 0)) << "the burst is spent";
  EXPECT_FALSE(b.Take(1500, 1499));
  EXPECT_TRUE(b.Take(1500, 1500));
  // A long idle time refills to the depth, not beyond.
  EXPECT_TRUE(b.Take(3000, 1'000'000'000));
  EXPECT_FALSE(b.Take(1, 1'000'000'000));
}

}  // namespace
}  // namespace pfc::dcfit
