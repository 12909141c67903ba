// SPDX-License-Identifier: BSD-3-Clause
// Dataplane counters. Each worker owns one WorkerStats block and is its only
// writer (plain relaxed load+store, no locked instructions); readers (the
// telemetry thread, the exit report) sum across workers. Clearing is done by
// readers recording a baseline, never by writing into a worker's block.
#pragma once
#include <atomic>
#include <cstdint>

#include "dataplane/common/types.h"

namespace pfc {

// A single-writer counter: the owner adds, anyone reads.
class Counter {
 public:
  void Add(uint64_t n) {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void Set(uint64_t n) { v_.store(n, std::memory_order_relaxed); }
  uint64_t Get() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

// Per (port, priority). rx_* and drops are by INGRESS priority, tx_* by
// EGRESS priority (the new tag's queue, Tagger Fig. 8b).
struct PrioCounters {
  Counter rx_packets, rx_bytes, tx_packets, tx_bytes;
  Counter lossy_fallback;  // tag had no mapping -> lossy queue
  Counter rewrites;        // tag changed by the rewrite table
  Counter to_lossy_tag;    // rewritten to the lossy tag (no rule matched)
  Counter drops[kNumDropReasons];
  // PFC (filled by dataplane/pfc glue): frames sent/received naming this priority.
  Counter pfc_xoff_tx, pfc_xon_tx, pfc_refresh_tx, pfc_xoff_rx, pfc_xon_rx;
  // Published by the port's owner each round (Set, not Add):
  Counter paused_ns;    // our egress of this priority paused by the peer
  Counter pausing_ns;   // the peer paused by our frames
  Counter paused_now;   // 1 while our egress is paused
  Counter pausing_now;  // 1 while we hold the peer in XOFF
};

// Per port, not tied to a priority.
struct PortCounters {
  Counter rx_packets, rx_bytes, tx_packets, tx_bytes;
  Counter arp_rx, arp_reply_tx, arp_request_tx, icmp_echo_reply;
  Counter ipv4_options, ipv4_fragments, non_ip;
  Counter pfc_frames_rx, pause_8023x_rx, pfc_frames_tx;
  Counter pcp_rewrites;          // forwarded 802.1Q frames whose PCP was remarked
  Counter pfc_reserved_bits_rx;  // PFC frames with reserved vector bits set (honoured)
  Counter rx_bursts;
};

struct alignas(64) WorkerStats {
  PortCounters port[kMaxPorts];
  PrioCounters prio[kMaxPorts][kNumPrio];
  Counter loops, idle_sleeps;
};

}  // namespace pfc
