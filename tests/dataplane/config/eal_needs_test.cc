// SPDX-License-Identifier: BSD-3-Clause
// What a config needs from EAL: the mbuf pool bound (buffer, descriptors,
// rings, bursts, caches), its memory in MB, the EAL memory arguments, and the
// --vdev devices.
#include "dataplane/config/eal_needs.h"

#include <gtest/gtest.h>

namespace pfc {
namespace {

config::SwitchConfig Ports(int n, uint64_t total, uint32_t cell) {
  config::SwitchConfig c;
  for (int i = 0; i < n; i++) {
    config::PortConfig p;
    p.name = "p" + std::to_string(i);
    p.device = "net_af_packet" + std::to_string(i);
    c.ports.push_back(p);
  }
  c.buffer.total_bytes = total;
  c.cell_bytes = cell;
  return c;
}

// Everything outside the buffer, for n ports and one worker.
uint64_t Unbuffered(uint64_t n) {
  return n * (config::kRxDesc + config::kTxDesc + (config::kControlRing - 1) +
              config::kTxStashSlots) +
         kMaxBurst + 2 * (config::kPoolCache * 3 / 2);
}

TEST(EalNeeds, PoolCoversTheBufferAndEverythingOutsideIt) {
  // The README's example: 3 ports, 8M in 128-byte cells, one worker.
  const config::MemoryPlan p = config::PlanMemory(Ports(3, 8 << 20, 128), {});
  // Each packet takes at least one cell; concurrent admission adds a burst.
  EXPECT_EQ(p.buffer_pkts, (8u << 20) / 128 + kMaxBurst);
  EXPECT_EQ(p.mbufs, p.buffer_pkts + Unbuffered(3));
  EXPECT_EQ(p.obj_bytes, 2368u);      // 64 header + 128 rte_mbuf + 128 headroom + 2048 room
  EXPECT_EQ(p.obj_footprint, 4096u);  // --no-huge: one page each
  EXPECT_GT(p.EalMb(), 256u);         // it does not fit -m 256 ...
  const std::string err = config::CheckMemory(p, 256, "EAL -m");
  EXPECT_NE(err.find("EAL -m gives 256 MB"), std::string::npos) << err;
  EXPECT_NE(err.find("-m " + std::to_string(p.EalMb())), std::string::npos) << err;
  EXPECT_EQ(config::CheckMemory(p, p.EalMb(), "EAL -m"), "");
  // ... but with 256-byte cells it does.
  EXPECT_LE(config::PlanMemory(Ports(3, 8 << 20, 256), {}).EalMb(), 256u);
}

TEST(EalNeeds, SmallCellsAreBoundedByTheSmallestFrame) {
  // 1-byte cells: a packet is still at least 34 bytes in l3 mode (Ethernet +
  // IPv4 header) and 14 in l2, not one byte.
  config::SwitchConfig c = Ports(2, 1 << 20, 1);
  EXPECT_EQ(config::PlanMemory(c, {}).buffer_pkts, (1u << 20) / 34 + kMaxBurst);
  c.mode = config::SwitchConfig::Mode::kL2;
  EXPECT_EQ(config::PlanMemory(c, {}).buffer_pkts, (1u << 20) / 14 + kMaxBurst);
  // 32-byte cells: 34 bytes take two.
  c = Ports(2, 1 << 20, 32);
  EXPECT_EQ(config::PlanMemory(c, {}).buffer_pkts, (1u << 20) / 64 + kMaxBurst);
}

TEST(EalNeeds, RingsSmallerThanTheBufferDoNotBoundThePool) {
  // 64 ports share the ring budget: 8192 slots a queue, far fewer than the
  // 64 MB buffer's 524,288 cells. A full lossless ring holds the rest back
  // (switch/held_queue.h), so the pool is sized by the buffer.
  const config::MemoryPlan p = config::PlanMemory(Ports(64, 64u << 20, 128), {});
  EXPECT_EQ(p.egress_ring_slots, 8192u);
  EXPECT_EQ(p.buffer_pkts, (64u << 20) / 128 + kMaxBurst);
}

TEST(EalNeeds, WorkersAndDescriptorsAdd) {
  config::SwitchConfig c = Ports(2, 1 << 20, 128);
  const config::MemoryPlan one = config::PlanMemory(c, {});
  c.workers = 3;
  const config::MemoryPlan three = config::PlanMemory(c, {});
  // Per worker: one burst overshoot, one burst in flight, one lcore cache.
  EXPECT_EQ(three.mbufs - one.mbufs, 2u * (2 * kMaxBurst + config::kPoolCache * 3 / 2));
  config::EalNeedsInput in;
  in.rx_desc = 2 * 4096;  // a device that rounded its rings up
  EXPECT_EQ(config::PlanMemory(c, in).mbufs - three.mbufs, 2u * (4096 - config::kRxDesc));
}

TEST(EalNeeds, HugepagesPackObjectsAndJumboFramesGrowThem) {
  config::SwitchConfig c = Ports(2, 4 << 20, 128);
  config::EalNeedsInput huge;
  huge.hugepages = true;
  const config::MemoryPlan small_pages = config::PlanMemory(c, {});
  const config::MemoryPlan big_pages = config::PlanMemory(c, huge);
  EXPECT_EQ(small_pages.mbufs, big_pages.mbufs);
  EXPECT_LT(big_pages.pool_bytes, small_pages.pool_bytes * 2 / 3);
  c.ports[1].mtu = 9000;
  const config::MemoryPlan jumbo = config::PlanMemory(c, {});
  EXPECT_EQ(jumbo.data_room, 9000u + 22 + config::kMbufHeadroom);
  EXPECT_GT(jumbo.obj_footprint, 4096u);
  EXPECT_EQ(jumbo.obj_footprint % 64, 0u);
  EXPECT_EQ((jumbo.obj_bytes / 64) % 2, 1u);  // spread over memory channels
}

TEST(EalNeeds, ParsesEalMemoryArguments) {
  auto mb = [](std::vector<std::string> a) { return config::ParseEalMemoryArgs(a).mem_mb; };
  EXPECT_EQ(mb({"-l", "0,1", "-m", "256"}), 256);
  EXPECT_EQ(mb({"-m512"}), 512);
  EXPECT_EQ(mb({"--socket-mem", "128,64"}), 192);
  EXPECT_EQ(mb({"--socket-mem=100"}), 100);
  EXPECT_EQ(mb({"-l", "0,1", "--main-lcore", "1"}), -1);
  EXPECT_TRUE(config::ParseEalMemoryArgs({"--no-huge", "-m", "64"}).no_huge);
  EXPECT_FALSE(config::ParseEalMemoryArgs({"-m", "256"}).no_huge);
  for (std::vector<std::string> bad :
       {std::vector<std::string>{"-m", "lots"}, {"-m"}, {"--socket-mem=1,,2"}}) {
    const config::EalMemoryArgs r = config::ParseEalMemoryArgs(bad);
    EXPECT_FALSE(r.ok) << bad[0];
    EXPECT_FALSE(r.bad.empty());
  }
}

TEST(EalNeeds, VdevsAreTheDevicesThatAreNotPci) {
  config::SwitchConfig c = Ports(3, 1 << 20, 128);
  c.ports[1].device = "0000:3b:00.1";
  EXPECT_EQ(config::ExpectedVdevs(c),
            (std::vector<std::string>{"net_af_packet0", "net_af_packet2"}));
  EXPECT_TRUE(config::IsPciAddress("3b:00.0"));
  EXPECT_TRUE(config::IsPciAddress("0000:AF:1f.7"));
  EXPECT_FALSE(config::IsPciAddress("0000:3b:00.8"));
  EXPECT_FALSE(config::IsPciAddress("net_ring0"));
  EXPECT_FALSE(config::IsPciAddress("3b:00.0,x"));
}

}  // namespace
}  // namespace pfc
