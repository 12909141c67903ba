// SPDX-License-Identifier: BSD-3-Clause
// What a validated config needs from DPDK's EAL before it can start: how much
// memory (the mbuf pool, the rings) and which virtual devices. Pure
// arithmetic, so `pfcswitch --check-config` answers without starting EAL and
// the runtime sizes its pool and rings from the same numbers. Control thread
// only.
//
// The pool must never run dry before the buffer accountant refuses a packet
// (that would be a silent loss at rx), so it holds the most packets that can
// be in the switch at once:
//  * in the buffer: every admitted packet is charged at least one cell and
//    at least the smallest frame that can be admitted (34 bytes of Ethernet
//    and IPv4 header in l3 mode, 14 in l2), rounded up to whole cells; but a
//    packet occupies one mbuf whatever its size. Workers admitting at the
//    same time can each overshoot by one burst. (A lossless queue whose ring
//    is full holds the rest back, so the rings do not bound them);
//  * outside it, per port: the rx descriptors (a NIC keeps one mbuf posted
//    in each), the tx descriptors (sent, not yet freed by the device), the
//    control ring and its stash (PFC, ARP, ICMP frames are not charged);
//  * per worker: the rx burst being processed;
//  * per lcore: the mempool cache, which holds up to 1.5 x its size.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dataplane/config/config.h"

namespace pfc::config {

// Sizes the runtime uses (dataplane/switch/switch.cc), in one place so the
// plan and the pool agree.
inline constexpr uint32_t kRxDesc = 1024;  // per port, before the device adjusts it
inline constexpr uint32_t kTxDesc = 1024;
inline constexpr uint32_t kControlRing = 256;               // slots; one stays empty
inline constexpr uint32_t kTxStashSlots = 2 * kMaxBurst;    // port_state.h TxStash::kCap
inline constexpr uint32_t kPoolCache = 256;                 // per-lcore mempool cache
inline constexpr uint64_t kRingMemoryBudget = 32ull << 20;  // all egress rings together
// DPDK 22.11 layout of one pool object (checked against DPDK in switch/switch.cc).
inline constexpr uint32_t kMbufStructBytes = 128;   // sizeof(rte_mbuf)
inline constexpr uint32_t kMbufHeadroom = 128;      // RTE_PKTMBUF_HEADROOM
inline constexpr uint32_t kMbufDefaultRoom = 2048;  // RTE_MBUF_DEFAULT_DATAROOM
inline constexpr uint32_t kPoolObjHeader = 64;      // mempool object header, cache-aligned
// EAL's own memory, the mempool header (with a cache for each of 128
// possible lcores), ethdev and telemetry: measured at about 4 MB on DPDK
// 22.11 under --no-huge (smallest -m that starts, minus pool and rings).
inline constexpr uint64_t kEalOverheadBytes = 8ull << 20;

struct EalNeedsInput {
  bool hugepages = false;  // false: --no-huge, 4 KiB pages
  // Descriptors summed over all ports; unset = ports x kRxDesc / kTxDesc
  // (before EAL: the devices' own counts are not known). Emulated ports
  // have none.
  std::optional<uint64_t> rx_desc, tx_desc;
};

struct MemoryPlan {
  uint64_t buffer_pkts = 0;    // most packets the buffer can hold at once
  uint64_t mbufs = 0;          // pool size
  uint32_t max_frame = 0;      // a port's largest frame: MTU, Ethernet header, FCS, a VLAN tag
  uint32_t data_room = 0;      // rte_pktmbuf_pool_create's data_room_size (incl. headroom)
  uint32_t obj_bytes = 0;      // one pool object
  uint32_t obj_footprint = 0;  // what one object costs in EAL memory (page packing)
  uint32_t egress_ring_slots = 0;
  uint64_t pool_bytes = 0;  // objects and the pool's ring
  uint64_t ring_bytes = 0;  // egress and control rings
  bool hugepages = false;
  uint64_t TotalBytes() const { return pool_bytes + ring_bytes + kEalOverheadBytes; }
  uint64_t EalMb() const { return (TotalBytes() + (1u << 20) - 1) >> 20; }  // for -m
  // "needs 321 MB of EAL memory (-m): 73501 mbufs x 4096 B ..."
  std::string Describe() const;
};

MemoryPlan PlanMemory(const SwitchConfig& c, const EalNeedsInput& in);

// EAL memory (-m, MB) for the fabric emulator's switches under --no-huge.
// When a real device may DMA into its frames (`emulated_only` false), the
// pool and rings are EAL's: each switch's whole plan, doubled for the
// links' and hosts' frames. Otherwise mbufs and rings are the process's own
// memory (switch/mbuf_pool.h, heap_ring.h) and EAL holds only the pool's
// ring, sized for the same bound. Address space: --no-huge memory is
// touched as it is used, but EAL keeps a page descriptor for every 4 KiB.
uint64_t FabricEalMb(const std::vector<SwitchConfig>& configs, bool emulated_only);

// The memory EAL arguments give (`-m`, `--socket-mem`, `--no-huge`).
struct EalMemoryArgs {
  bool no_huge = false;
  int64_t mem_mb = -1;  // -1: not given (--no-huge then defaults to 64 MB)
  bool ok = true;       // false: a value that is not a number
  std::string bad;      // the argument that did not parse
};
EalMemoryArgs ParseEalMemoryArgs(const std::vector<std::string>& eal_args);

// "" when `have_mb` is enough, else a message saying which -m is needed.
std::string CheckMemory(const MemoryPlan& plan, uint64_t have_mb, const std::string& source);

// Devices of the config that EAL must be given with --vdev (every device
// that is not a PCI address), in port order.
std::vector<std::string> ExpectedVdevs(const SwitchConfig& c);
bool IsPciAddress(const std::string& device);

}  // namespace pfc::config
