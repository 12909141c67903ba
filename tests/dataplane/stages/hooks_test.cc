// SPDX-License-Identifier: BSD-3-Clause
// The pipeline builder (stages/hooks.h): which hook points a switch's
// worker runs. With no DCFIT, watchdog or ECN configured no point has
// a user (the stages' hook calls are count tests); each feature shows up
// at exactly its points. What the hooks do is tested through the stages
// (dcfit_test.cc, pfcwd_test.cc, buffer_pfc_test.cc).
#include <gtest/gtest.h>

#include "dataplane/buffer/accountant.h"
#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/ecn_stage.h"
#include "dataplane/stages/mechanism.h"
#include "dataplane/stages/pfcwd_stage.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

struct Counts {
  int held_lossy, pfc_rx, enqueue, round, egress, dequeue, pfc_tx, deadline, port_busy, round_again;
};
Counts Of(const stages::Hooks& h) {
  return {h.held_lossy.n, h.pfc_rx.n, h.enqueue.n,  h.round.n,     h.egress.n,
          h.dequeue.n,    h.pfc_tx.n, h.deadline.n, h.port_busy.n, h.round_again.n};
}

TEST_F(StageTest, NoFeatureNoHookUser) {
  Start(BaseYaml());
  const Counts c = Of(w_.hooks);
  for (int n : {c.held_lossy, c.pfc_rx, c.enqueue, c.round, c.egress, c.dequeue, c.pfc_tx,
                c.deadline, c.port_busy, c.round_again})
    EXPECT_EQ(n, 0);
  EXPECT_EQ(w_.hooks.refused.n, 0);
  for (const auto& slot : sw_->mech) EXPECT_EQ(slot, nullptr) << "no mechanism, no state";
}

TEST_F(StageTest, DcfitHooksWhereDcfitActs) {
  Start(BaseYaml("", "dcfit: { enabled: true, recovery: detect }\n"));
  const Counts c = Of(w_.hooks);
  EXPECT_EQ(c.held_lossy, 1);
  EXPECT_EQ(w_.hooks.held_lossy_drop, DropReason::kDcfitHostLossy);
  EXPECT_EQ(c.pfc_rx, 1);
  EXPECT_EQ(c.enqueue, 1);
  EXPECT_NE(w_.hooks.enqueue.fn[0].after, nullptr);
  // One worker, no trigger handling: nothing to police, and the after half
  // reads the packets itself; both halves act on the lossless priorities.
  EXPECT_EQ(w_.hooks.enqueue.fn[0].before, nullptr);
  EXPECT_EQ(w_.hooks.enqueue.fn[0].after_prios, sw_->cfg.tag_map.lossless_mask);
  EXPECT_NE(sw_->cfg.tag_map.lossless_mask, stages::Hooks::kAllPrios);
  EXPECT_EQ(c.round, 1);
  EXPECT_EQ(c.egress, 1);
  EXPECT_EQ(c.dequeue, 1);
  EXPECT_EQ(c.pfc_tx, 1);
  EXPECT_EQ(c.round_again, 1);
  EXPECT_EQ(c.deadline, 0);
  EXPECT_EQ(c.port_busy, 0);
}

TEST_F(StageTest, DcfitPolicesBeforeEnqueueWithTriggerHandling) {
  Start(BaseYaml("", "dcfit: { enabled: true, recovery: break, trigger_handling: true }\n"));
  ASSERT_TRUE(stages::DcfitOf(*sw_)->trigger_handling);
  EXPECT_NE(w_.hooks.enqueue.fn[0].before, nullptr);
  EXPECT_FALSE(w_.hooks.enqueue_bytes) << "no user reads a group's bytes: ingress sums none";
}

// Enqueue users that read a group's bytes are told what remains of it
// after an earlier user dropped some.
uint64_t g_bytes_seen = 0;
uint16_t DropLast(stages::WorkerCtx&, PortId, int, rte_mbuf**, uint16_t n, uint64_t,
                  buffer::ReleaseBatch&, uint32_t*) {
  return static_cast<uint16_t>(n - 1);
}
uint16_t SeeBytes(stages::WorkerCtx&, PortId, int, rte_mbuf**, uint16_t n, uint64_t bytes,
                  buffer::ReleaseBatch&, uint32_t*) {
  g_bytes_seen = bytes;
  return n;
}
TEST_F(StageTest, EnqueueBytesFollowDrops) {
  Start(BaseYaml());
  stages::Hooks h;
  h.enqueue.Add({.before = DropLast});
  h.enqueue.Add({.before = SeeBytes, .reads_bytes = true});
  h.enqueue_before = h.enqueue_bytes = true;
  rte_mbuf* pkts[3];
  uint64_t all = 0;
  for (uint16_t i = 0; i < 3; i++) {
    std::vector<uint8_t> f = Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 2), .seq = i});
    f.resize(f.size() + 10 * i);
    pkts[i] = Mbuf(f);
    all += f.size();
  }
  buffer::ReleaseBatch undo(sw_->buffer, &w_.pool_slack);
  uint32_t notes[stages::kMaxHookUsers];
  EXPECT_EQ(h.Enqueue(w_, 3, 3, pkts, 3, all, undo, notes), 2);
  EXPECT_EQ(g_bytes_seen, all - rte_pktmbuf_pkt_len(pkts[2]));
  for (rte_mbuf* m : pkts) rte_pktmbuf_free(m);
}

TEST_F(StageTest, WatchdogHooksFirstAtEgress) {
  Start(BaseYaml("",
                 "pfc_watchdog: { enabled: true, detect_time: 1ms, restore_time: 10ms }\n"
                 "dcfit: { enabled: true, recovery: detect }\n"));
  const Counts c = Of(w_.hooks);
  EXPECT_EQ(c.egress, 2);
  EXPECT_EQ(c.deadline, 1);
  EXPECT_EQ(c.port_busy, 1);
  // The watchdog's drop must empty a storming queue before DCFIT and
  // egress look (pfcwd_stage.h): it comes first.
  EXPECT_EQ(w_.hooks.egress.fn[0], &stages::PfcwdRound);
  // Its per-port state is its own, in the switch's slot for it.
  EXPECT_NE(sw_->mech[stages::MechanismSlot(stages::kPfcwdMechanism)], nullptr);
}

// ECN marking: enqueue and refused only, after DCFIT's enqueue (a packet
// DCFIT polices away is neither marked nor in the depth); an ecn section
// whose queues name no profile wires nothing.
TEST_F(StageTest, EcnHooksAfterDcfitAtEnqueue) {
  const std::string ecn =
      "ecn:\n"
      "  profiles: { P: { green_min_threshold: 10K, green_max_threshold: 20K, "
      "green_drop_probability: 5 } }\n";
  Start(BaseYaml("", ecn + "  queues: [ { priorities: [3], profile: P } ]\n" +
                         "dcfit: { enabled: true, recovery: detect }\n"));
  const Counts c = Of(w_.hooks);
  EXPECT_EQ(c.enqueue, 2);
  EXPECT_EQ(c.dequeue, 1) << "DCFIT's only: the egress counters tell ECN what left";
  EXPECT_EQ(w_.hooks.enqueue.fn[1].before, &stages::EcnOnEnqueue);
  EXPECT_TRUE(w_.hooks.enqueue.fn[1].reads_bytes);
  EXPECT_TRUE(w_.hooks.enqueue_bytes) << "ingress sums each group's bytes for it";
  EXPECT_EQ(w_.hooks.enqueue.fn[1].after, nullptr) << "nothing to learn after";
  EXPECT_EQ(w_.hooks.refused.n, 1);
  EXPECT_EQ(c.egress, 1) << "DCFIT's only";
  TearDown();
  Start(BaseYaml("", ecn + "  queues: []\n"));
  EXPECT_EQ(Of(w_.hooks).enqueue, 0);
  EXPECT_FALSE(sw_->ecn);
}

// The order comes from the mechanisms' own runs_after / runs_before, not
// from the registration list: the watchdog, then DCFIT, then INT (which
// adds its trailer before ECN counts the bytes), then ECN.
TEST(Mechanisms, RegisteredSortedByTheirConstraints) {
  std::vector<std::string> names;
  for (const stages::Mechanism* m : stages::OrderedMechanisms()) names.push_back(m->name);
  EXPECT_EQ(names, (std::vector<std::string>{"pfcwd", "dcfit", "int", "ecn"}));
  EXPECT_EQ(stages::RegisteredMechanisms().size(), names.size());
}

std::vector<std::string> Sorted(std::vector<const stages::Mechanism*> v, std::string* err) {
  std::vector<std::string> names;
  if (!stages::SortMechanisms(&v, err)) return names;
  for (const stages::Mechanism* m : v) names.push_back(m->name);
  return names;
}

TEST(Mechanisms, SortKeepsTiesAndIgnoresUnknownNames) {
  const stages::Mechanism a{.name = "a", .runs_after = {"c", "not-built"}};
  const stages::Mechanism b{.name = "b"};
  const stages::Mechanism c{.name = "c"};
  const stages::Mechanism d{.name = "d", .runs_before = {"b"}};
  std::string err;
  EXPECT_EQ(Sorted({&a, &b, &c, &d}, &err), (std::vector<std::string>{"c", "a", "d", "b"}));
  EXPECT_EQ(Sorted({&b, &c}, &err), (std::vector<std::string>{"b", "c"})) << "no constraint";
}

TEST(Mechanisms, CycleAndDuplicateRefused) {
  const stages::Mechanism a{.name = "a", .runs_after = {"b"}};
  const stages::Mechanism b{.name = "b", .runs_after = {"c"}};
  const stages::Mechanism c{.name = "c", .runs_after = {"a"}};
  const stages::Mechanism d{.name = "d", .runs_before = {"e"}};
  const stages::Mechanism e{.name = "e", .runs_before = {"d"}};
  const stages::Mechanism free{.name = "free"};
  std::string err;
  EXPECT_TRUE(Sorted({&free, &a, &b, &c}, &err).empty());
  EXPECT_EQ(err, "mechanisms ordered in a cycle: a b c");
  EXPECT_TRUE(Sorted({&d, &free, &e}, &err).empty());
  EXPECT_EQ(err, "mechanisms ordered in a cycle: d e");
  EXPECT_TRUE(Sorted({&free, &free}, &err).empty());
  EXPECT_EQ(err, "mechanism 'free' registered twice");
}

}  // namespace
}  // namespace pfc::stagetest
