// SPDX-License-Identifier: BSD-3-Clause
// Shared vocabulary of the dataplane: limits, port masks and the drop reasons.
// Pure header: no DPDK. Every packet the switch receives ends in exactly one
// fate (forwarded, consumed by the switch itself, or dropped with a reason);
// every DropReason is a counter, per (port, priority), in dataplane/switch/stats.h.
#pragma once
#include <cstdint>
#include <string_view>

namespace pfc {

inline constexpr int kNumPrio = 8;    // IEEE 802.1Qbb priorities / queues per port
inline constexpr int kMaxPorts = 64;  // port masks are one 64-bit word (Tagger §VII-C)
inline constexpr int kNumTags = 64;   // the tag is the 6-bit DSCP field
inline constexpr int kMaxBurst = 32;  // packets per rx/tx burst
// Alignment of state written by one worker that sits beside another
// worker's on the heap: 128 bytes, not one 64-byte line, because the
// adjacent-line prefetchers of x86 cores fetch lines in 128-byte pairs (the
// reason DPDK's rte_ring pads its head and tail the same way), and a
// prefetched copy turns the owner's next store into a cross-core transfer.
inline constexpr int kWorkerAlign = 128;

using PortId = uint16_t;
using PortMask = uint64_t;  // bit i = port i; ~0 = any port
inline constexpr PortMask kAnyPort = ~PortMask{0};
using TagMask = uint64_t;  // bit t = tag t; ~0 = any tag
inline constexpr TagMask kAnyTag = ~TagMask{0};

// Why a packet was dropped. Append only (counter names are part of the
// telemetry interface); kCount must stay last.
enum class DropReason : uint8_t {
  kRunt,              // shorter than an Ethernet header
  kTruncated,         // a header claims more bytes than the frame holds
  kBadIpHeader,       // IPv4 version != 4 or IHL < 5
  kBadIpChecksum,     // IPv4 header checksum mismatch
  kTtlExpired,        // TTL <= 1 on a routed packet
  kNoRoute,           // no route for the destination (never flooded)
  kNeighborMiss,      // route found but next-hop MAC unknown (never flooded)
  kNotForUs,          // L3 mode: destination MAC is neither ours nor broadcast
  kUnknownL2Dst,      // L2 mode: destination MAC not in the static table
  kUnsupported,       // ethertype the switch does not forward (e.g. IPv6 in L3 mode)
  kLossyBufferFull,   // lossy priority above its ingress buffer limit
  kLosslessHeadroom,  // lossless priority exhausted its headroom (should never happen)
  kEgressQueueFull,   // software egress queue had no room (a device that
                      // refuses packets back-pressures instead: they wait)
  kPfcMalformed,      // MAC control frame with wrong opcode/length/destination
  kHairpin,           // would leave by its ingress port (switch.hairpin: drop)
  kVlanUnsupported,   // 802.1ad S-tag (0x88a8, 0x9100) or a second 802.1Q tag (QinQ):
                      // the switch remarks the PCP of exactly one C-tag
  kArpUnsupported,    // ARP the switch cannot answer or learn from: hardware type
                      // other than Ethernet (e.g. 6, IEEE 802), not IPv4, or an
                      // opcode other than request/reply
  kDcfitBreak,        // discarded by DCFIT recovery to break a declared deadlock
                      // (dcfit.recovery: break), from the looped lossless queue
  kPfcwdStorm,        // discarded by the pause-storm watchdog (pfc_watchdog.action:
                      // drop) from a lossless queue its peer keeps paused
  kDcfitRateLimit,    // a heavy hitter over its rate limit at a DCFIT initial trigger
                      // (dcfit.trigger_handling, dcfit/trigger_handler.h)
  kDcfitHostLossy,    // from a DCFIT trigger host, beyond its priority group's XOFF
                      // point while trigger handling holds the port lossy: no XOFF
                      // goes to the host, so overflow is dropped, not paused
  kCount
};

constexpr std::string_view DropReasonName(DropReason r) {
  switch (r) {
    case DropReason::kRunt:
      return "runt";
    case DropReason::kTruncated:
      return "truncated";
    case DropReason::kBadIpHeader:
      return "bad_ip_header";
    case DropReason::kBadIpChecksum:
      return "bad_ip_checksum";
    case DropReason::kTtlExpired:
      return "ttl_expired";
    case DropReason::kNoRoute:
      return "no_route";
    case DropReason::kNeighborMiss:
      return "neighbor_miss";
    case DropReason::kNotForUs:
      return "not_for_us";
    case DropReason::kUnknownL2Dst:
      return "unknown_l2_dst";
    case DropReason::kUnsupported:
      return "unsupported";
    case DropReason::kLossyBufferFull:
      return "lossy_buffer_full";
    case DropReason::kLosslessHeadroom:
      return "lossless_headroom_exceeded";
    case DropReason::kEgressQueueFull:
      return "egress_queue_full";
    case DropReason::kPfcMalformed:
      return "pfc_malformed";
    case DropReason::kHairpin:
      return "hairpin";
    case DropReason::kVlanUnsupported:
      return "vlan_unsupported";
    case DropReason::kArpUnsupported:
      return "arp_unsupported";
    case DropReason::kDcfitBreak:
      return "dcfit_break";
    case DropReason::kPfcwdStorm:
      return "pfcwd_storm";
    case DropReason::kDcfitRateLimit:
      return "dcfit_rate_limit";
    case DropReason::kDcfitHostLossy:
      return "dcfit_host_lossy";
    case DropReason::kCount:
      break;
  }
  return "?";
}
inline constexpr int kNumDropReasons = static_cast<int>(DropReason::kCount);

}  // namespace pfc
