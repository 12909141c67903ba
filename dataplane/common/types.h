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

// Bytes charged in whole buffer cells of `cell` bytes (> 0): what the buffer
// accountant charges a frame, and what the config's sizes round to.
inline constexpr uint64_t CellRoundUp(uint64_t bytes, uint64_t cell) {
  return (bytes + cell - 1) / cell * cell;
}

using PortId = uint16_t;
using PortMask = uint64_t;  // bit i = port i; ~0 = any port
inline constexpr PortMask kAnyPort = ~PortMask{0};
using TagMask = uint64_t;  // bit t = tag t; ~0 = any tag
inline constexpr TagMask kAnyTag = ~TagMask{0};

// What kind of drop a reason is: what a report groups it under, and whether
// a drop on a lossless priority is lost lossless data (see DropIsLosslessLoss).
enum class DropClass : uint8_t {
  kMalformed,          // the frame itself is broken
  kPolicy,             // the switch does not forward it, by design or config
  kLossyCongestion,    // a lossy buffer was full: what lossy means
  kLosslessViolation,  // no room where a lossless switch must have room
  kRecovery,           // chosen on purpose by DCFIT recovery or the watchdog
};

// Why a packet was dropped: one row each, (enumerator, counter name, class,
// lossless loss). The counter name is part of the telemetry interface and
// the order is the counters' layout: append only. "Lossless loss" says
// whether a drop of this reason on a lossless priority counts as lost
// lossless data (the emulator's lossless_drops and its verdict): not the
// deliberate recovery drops, and not TTL expiry, a routing loop's own
// victims, which are reported apart (ttl_expired_drops).
#define PFC_DROP_REASONS(X)                                                    \
  /* shorter than an Ethernet header */                                        \
  X(kRunt, "runt", kMalformed, true)                                           \
  /* a header claims more bytes than the frame holds */                        \
  X(kTruncated, "truncated", kMalformed, true)                                 \
  /* IPv4 version != 4 or IHL < 5 */                                           \
  X(kBadIpHeader, "bad_ip_header", kMalformed, true)                           \
  /* IPv4 header checksum mismatch */                                          \
  X(kBadIpChecksum, "bad_ip_checksum", kMalformed, true)                       \
  /* TTL <= 1 on a routed packet */                                            \
  X(kTtlExpired, "ttl_expired", kPolicy, false)                                \
  /* no route for the destination (never flooded) */                           \
  X(kNoRoute, "no_route", kPolicy, true)                                       \
  /* route found but next-hop MAC unknown (never flooded) */                   \
  X(kNeighborMiss, "neighbor_miss", kPolicy, true)                             \
  /* L3 mode: destination MAC is neither ours nor broadcast */                 \
  X(kNotForUs, "not_for_us", kPolicy, true)                                    \
  /* L2 mode: destination MAC not in the static table */                       \
  X(kUnknownL2Dst, "unknown_l2_dst", kPolicy, true)                            \
  /* ethertype the switch does not forward (e.g. IPv6 in L3 mode) */           \
  X(kUnsupported, "unsupported", kPolicy, true)                                \
  /* lossy priority above its ingress buffer limit */                          \
  X(kLossyBufferFull, "lossy_buffer_full", kLossyCongestion, true)             \
  /* lossless priority exhausted its headroom (should never happen) */         \
  X(kLosslessHeadroom, "lossless_headroom_exceeded", kLosslessViolation, true) \
  /* software egress queue had no room (a device that refuses packets */       \
  /* back-pressures instead: they wait) */                                     \
  X(kEgressQueueFull, "egress_queue_full", kLosslessViolation, true)           \
  /* MAC control frame with wrong opcode/length/destination */                 \
  X(kPfcMalformed, "pfc_malformed", kMalformed, true)                          \
  /* would leave by its ingress port (switch.hairpin: drop) */                 \
  X(kHairpin, "hairpin", kPolicy, true)                                        \
  /* 802.1ad S-tag (0x88a8, 0x9100) or a second 802.1Q tag (QinQ): the */      \
  /* switch remarks the PCP of exactly one C-tag */                            \
  X(kVlanUnsupported, "vlan_unsupported", kPolicy, true)                       \
  /* ARP the switch cannot answer or learn from: hardware type other than */   \
  /* Ethernet (e.g. 6, IEEE 802), not IPv4, or an opcode other than */         \
  /* request/reply */                                                          \
  X(kArpUnsupported, "arp_unsupported", kPolicy, true)                         \
  /* discarded by DCFIT recovery to break a declared deadlock */               \
  /* (dcfit.recovery: break), from the looped lossless queue */                \
  X(kDcfitBreak, "dcfit_break", kRecovery, false)                              \
  /* discarded by the pause-storm watchdog (pfc_watchdog.action: drop) */      \
  /* from a lossless queue its peer keeps paused */                            \
  X(kPfcwdStorm, "pfcwd_storm", kRecovery, false)                              \
  /* a heavy hitter over its rate limit at a DCFIT initial trigger */          \
  /* (dcfit.trigger_handling, dcfit/trigger_handler.h) */                      \
  X(kDcfitRateLimit, "dcfit_rate_limit", kRecovery, false)                     \
  /* from a DCFIT trigger host, beyond its priority group's XOFF point */      \
  /* while trigger handling holds the port lossy: no XOFF goes to the */       \
  /* host, so overflow is dropped, not paused */                               \
  X(kDcfitHostLossy, "dcfit_host_lossy", kRecovery, false)

enum class DropReason : uint8_t {
#define PFC_DROP_ENUM(e, name, cls, loss) e,
  PFC_DROP_REASONS(PFC_DROP_ENUM)
#undef PFC_DROP_ENUM
      kCount
};
inline constexpr int kNumDropReasons = static_cast<int>(DropReason::kCount);

namespace drop_detail {
struct DropRow {
  std::string_view name;
  DropClass cls;
  bool lossless_loss;
};
inline constexpr DropRow kDropRows[kNumDropReasons + 1] = {
#define PFC_DROP_ROW(e, name, cls, loss) {name, DropClass::cls, loss},
    PFC_DROP_REASONS(PFC_DROP_ROW)
#undef PFC_DROP_ROW
        {"?", DropClass::kPolicy, false},
};
}  // namespace drop_detail

constexpr std::string_view DropReasonName(DropReason r) {
  return drop_detail::kDropRows[static_cast<int>(r) < kNumDropReasons ? static_cast<int>(r)
                                                                      : kNumDropReasons]
      .name;
}
constexpr DropClass DropReasonClass(DropReason r) {
  return drop_detail::kDropRows[static_cast<int>(r)].cls;
}
// A drop of this reason on a lossless priority is lost lossless data.
constexpr bool DropIsLosslessLoss(DropReason r) {
  return drop_detail::kDropRows[static_cast<int>(r)].lossless_loss;
}

}  // namespace pfc
