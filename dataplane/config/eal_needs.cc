// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/config/eal_needs.h"

#include <algorithm>
#include <cctype>

namespace pfc::config {
namespace {

constexpr uint64_t kSmallPage = 4096;
constexpr uint64_t kHugePage = 2ull << 20;
constexpr uint64_t kRingHeader = 384;  // struct rte_ring, cache-aligned (over-estimate)

uint64_t Pow2AtLeast(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}
uint64_t Pow2AtMost(uint64_t v) {
  uint64_t p = 1;
  while (p * 2 <= v) p <<= 1;
  return p;
}
uint64_t RingBytes(uint64_t slots) { return kRingHeader + slots * sizeof(void*); }

std::string Mb(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MB"; }

}  // namespace

MemoryPlan PlanMemory(const SwitchConfig& c, const EalNeedsInput& in) {
  MemoryPlan p;
  p.hugepages = in.hugepages;
  const uint64_t nports = c.ports.size();
  const uint64_t cell = std::max<uint32_t>(c.cell_bytes, 1);

  // The buffer: the smallest admissible frame, charged in whole cells.
  const uint64_t min_frame = c.mode == SwitchConfig::Mode::kL3 ? 14 + 20 : 14;
  const uint64_t by_buffer =
      c.buffer.total_bytes / CellRoundUp(min_frame, cell) + c.workers * kMaxBurst;
  // Egress rings: one queue may hold the whole buffer, within the budget.
  // A lossless queue whose ring is full holds the rest back in order
  // (switch/held_queue.h), so the rings do not bound what the switch holds:
  // the buffer does.
  const uint64_t cap =
      Pow2AtMost(std::max<uint64_t>(kRingMemoryBudget / sizeof(void*) / (nports * kNumPrio), 1));
  p.egress_ring_slots = static_cast<uint32_t>(
      std::clamp<uint64_t>(std::min(Pow2AtLeast(by_buffer + 1), cap), 256, 1u << 20));
  p.buffer_pkts = by_buffer;

  const uint64_t rx = in.rx_desc.value_or(nports * kRxDesc);
  const uint64_t tx = in.tx_desc.value_or(nports * kTxDesc);
  const uint64_t lcores = c.workers + 1;  // workers and the main lcore
  p.mbufs = p.buffer_pkts + rx + tx + nports * ((kControlRing - 1) + kTxStashSlots) +
            c.workers * kMaxBurst + lcores * (kPoolCache * 3 / 2);

  // One object: header, rte_mbuf, headroom and a data room for the largest
  // frame (MTU + Ethernet header, FCS and a VLAN tag), in cache lines. DPDK
  // pads an even number of lines by one so objects spread over the memory
  // channels.
  for (const auto& port : c.ports) p.max_frame = std::max(p.max_frame, port.mtu + 18 + 4);
  p.data_room = std::max(kMbufDefaultRoom, p.max_frame) + kMbufHeadroom;
  uint32_t lines = (kPoolObjHeader + kMbufStructBytes + p.data_room + 63) / 64;
  if (lines % 2 == 0) lines++;
  p.obj_bytes = lines * 64;
  // DPDK keeps each object inside one page when it fits in one. Without
  // hugepages that is a 4 KiB page per mbuf; a 2 MB page packs many.
  if (in.hugepages) {
    const uint64_t per_page = std::max<uint64_t>(kHugePage / p.obj_bytes, 1);
    const uint64_t pages = (p.mbufs + per_page - 1) / per_page;
    p.obj_footprint = p.obj_bytes;
    p.pool_bytes = pages * kHugePage;
  } else {
    p.obj_footprint = static_cast<uint32_t>(p.obj_bytes <= kSmallPage ? kSmallPage : p.obj_bytes);
    p.pool_bytes = p.mbufs * p.obj_footprint;
  }
  p.pool_bytes += RingBytes(Pow2AtLeast(p.mbufs + 1));
  p.ring_bytes = nports * (kNumPrio * RingBytes(p.egress_ring_slots) + RingBytes(kControlRing));
  return p;
}

std::string MemoryPlan::Describe() const {
  return "needs " + std::to_string(EalMb()) + " MB of EAL memory (-m " + std::to_string(EalMb()) +
         "): " + std::to_string(mbufs) + " mbufs (" + std::to_string(buffer_pkts) +
         " for the buffer) x " + std::to_string(obj_footprint) + " B" +
         (hugepages ? " in 2 MB hugepages" : " (--no-huge: one 4 KiB page per mbuf)") + " = " +
         Mb(pool_bytes) + ", rings " + Mb(ring_bytes) + ", EAL and pool overhead " +
         Mb(kEalOverheadBytes);
}

uint64_t FabricEalMb(const std::vector<SwitchConfig>& configs, bool emulated_only) {
  uint64_t bytes = 0, mbufs = 0;
  for (const SwitchConfig& c : configs) {
    EalNeedsInput need;
    need.rx_desc = 0;  // emulated ports have no descriptors
    need.tx_desc = 0;
    const MemoryPlan p = PlanMemory(c, need);
    bytes += emulated_only ? 0 : p.TotalBytes();
    mbufs += p.mbufs;
  }
  if (!emulated_only) return 2 * ((bytes + (1u << 20) - 1) >> 20) + 256;
  // The pool's ring (twice the switches' mbufs, rounded to a power of two).
  bytes += RingBytes(Pow2AtLeast(2 * mbufs + 1)) + kEalOverheadBytes;
  return ((bytes + (1u << 20) - 1) >> 20) + 64;
}

EalMemoryArgs ParseEalMemoryArgs(const std::vector<std::string>& args) {
  EalMemoryArgs r;
  // "-m 256", "-m256", "--socket-mem 128,128", "--socket-mem=128,128".
  auto take = [&](const std::string& opt, const std::string& v) {
    int64_t sum = 0;
    size_t i = 0;
    while (i <= v.size()) {
      const size_t end = std::min(v.find(',', i), v.size());
      const std::string part = v.substr(i, end - i);
      if (part.empty() || part.size() > 9 || !std::all_of(part.begin(), part.end(), ::isdigit)) {
        r.ok = false;
        r.bad = opt + " " + v;
        return;
      }
      sum += std::stoll(part);
      i = end + 1;
    }
    r.mem_mb = sum;
  };
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    if (a == "--no-huge") {
      r.no_huge = true;
    } else if (a == "-m" || a == "--socket-mem") {
      if (i + 1 < args.size()) {
        take(a, args[++i]);
      } else {
        r.ok = false;
        r.bad = a;
      }
    } else if (a.rfind("--socket-mem=", 0) == 0) {
      take("--socket-mem", a.substr(13));
    } else if (a.size() > 2 && a.rfind("-m", 0) == 0) {
      take("-m", a.substr(2));
    }
  }
  return r;
}

std::string CheckMemory(const MemoryPlan& plan, uint64_t have_mb, const std::string& source) {
  if (have_mb >= plan.EalMb()) return "";
  return "the config " + plan.Describe() + ", but " + source + " gives " + std::to_string(have_mb) +
         " MB: start EAL with -m " + std::to_string(plan.EalMb()) +
         " or more, or lower buffer.total_bytes or raise buffer.cell_bytes";
}

bool IsPciAddress(const std::string& d) {
  // [domain:]bus:device.function, e.g. 0000:3b:00.0 or 3b:00.0.
  auto hex = [&](size_t from, size_t n) {
    if (from + n > d.size()) return false;
    for (size_t i = from; i < from + n; i++)
      if (!std::isxdigit(static_cast<unsigned char>(d[i]))) return false;
    return true;
  };
  auto bdf = [&](size_t at) {
    return d.size() == at + 7 && hex(at, 2) && d[at + 2] == ':' && hex(at + 3, 2) &&
           d[at + 5] == '.' && d[at + 6] >= '0' && d[at + 6] <= '7';
  };
  return bdf(0) || (hex(0, 4) && d.size() > 4 && d[4] == ':' && bdf(5));
}

std::vector<std::string> ExpectedVdevs(const SwitchConfig& c) {
  std::vector<std::string> v;
  for (const auto& p : c.ports)
    if (!IsPciAddress(p.device)) v.push_back(p.device);
  return v;
}

}  // namespace pfc::config
