// SPDX-License-Identifier: BSD-3-Clause
// The generated rules file installs unchanged: a switch config pulls it in
// with `include:`, the dataplane's own loader (dataplane/config) parses it,
// and the compiled RewriteTable gives the generator's new tag for every
// (tag, in, out).
#include <gtest/gtest.h>

#include <fstream>

#include "ctrl/tagger/greedy.h"
#include "dataplane/config/config.h"
#include "dataplane/tables/rewrite_table.h"
#include "tests/ctrl/tagger/tagger_test_util.h"

namespace pfc::tagger {
namespace {

TEST(SwitchLoad, GeneratedRulesLoadIntoTheDataplane) {
  Topology t;
  Elp elp;
  testing::Triangle(&t, &elp);
  const GreedyResult g = RunGreedy(t, elp, nullptr, nullptr);
  const int max_tag = Summarize(t, g.rules).max_tag;
  ASSERT_EQ(max_tag, 2);
  const std::string dir = ::testing::TempDir() + "/switch_load";
  std::string err;
  std::vector<std::vector<Rule>> comp(t.num_nodes());
  for (uint32_t n = 0; n < t.num_nodes(); ++n)
    if (t.forwards(n)) comp[n] = CompressNode(t, g.rules, n, false);
  ASSERT_TRUE(WriteRuleFiles(t, comp, max_tag, dir, &err)) << err;
  for (const char* sw : {"A", "B", "C"}) {
    const uint32_t node = t.Find(sw);
    const std::string main_cfg = dir + "/" + sw + "-switch.yaml";
    std::ofstream(main_cfg) << "switch: {mode: l3, workers: 1}\n"
                               "ports:\n"
                               "  - {name: p0, device: net_ring0, ipv4: 10.0.1.1/24, speed: 10G}\n"
                               "  - {name: p1, device: net_ring1, ipv4: 10.0.2.1/24, speed: 10G}\n"
                               "  - {name: p2, device: net_ring2, ipv4: 10.0.3.1/24, speed: 10G}\n"
                               "include: "
                            << sw << ".yaml\n";
    pfc::config::SwitchConfig cfg;
    ASSERT_TRUE(pfc::config::LoadConfig(main_cfg, &cfg, &err)) << err;
    EXPECT_TRUE(cfg.tag_map.IsLossless(1));
    EXPECT_TRUE(cfg.tag_map.IsLossless(2));
    EXPECT_EQ(cfg.tag_map.lossy_tag, 0);
    pfc::tables::RewriteTable table;
    ASSERT_TRUE(table.Compile(cfg.rewrite, &err)) << err;
    for (uint8_t tag = 0; tag < 4; ++tag)
      for (uint16_t i = 0; i < 3; ++i)
        for (uint16_t o = 0; o < 3; ++o)
          EXPECT_EQ(table.Lookup(tag, i, o), g.rules.Lookup(t.gport(node, i), tag, o))
              << sw << " tag " << int(tag) << " in " << i << " out " << o;
  }
}

}  // namespace
}  // namespace pfc::tagger
