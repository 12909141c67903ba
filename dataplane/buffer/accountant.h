// SPDX-License-Identifier: BSD-3-Clause
// Ingress buffer accounting per (port, priority) — the "priority groups" of a
// shared-buffer switch ASIC (SIGCOMM'16 §3). Every packet is charged, in
// bytes, to the (ingress port, ingress priority) it arrived in, from the
// moment it is admitted until it leaves the switch (or is dropped later).
//
// Model: each priority group (PG) owns `reserved` bytes; beyond that it draws
// from one shared pool (total - all reserved - all lossless headroom).
//  * lossy PG: admitted while its shared use stays <= its limit (static bytes,
//    or dynamic: alpha x free shared pool); else DropReason::kLossyBufferFull.
//  * lossless PG: admitted while occupancy <= XoffThreshold + headroom. The
//    PFC generator (pfc/) polls occupancy and sends XOFF above XoffThreshold
//    and XON below XonThreshold; the headroom absorbs what is in flight
//    meanwhile. Above it: DropReason::kLosslessHeadroom (never expected).
//
// Threading: occupancy counters are atomics. The ingress-port owner charges,
// and whichever worker transmits the packet releases; both batch per burst
// (IngressBatch / ReleaseBatch) so a burst costs a few atomic adds, not one
// per packet. The configuration is written once before workers start.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include "dataplane/common/types.h"

namespace pfc {

struct PgConfig {
  bool lossless = false;
  uint32_t reserved = 0;        // bytes guaranteed to this PG
  // Lossy: limit on shared use. Lossless: the XOFF threshold on shared use.
  // 0 = dynamic (alpha x free shared pool), else static bytes.
  uint32_t static_limit = 0;
  double alpha = 1.0;           // dynamic threshold factor (1/128 .. 8 typical)
  uint32_t headroom = 0;        // lossless only: bytes above XOFF
  uint32_t xon_hysteresis = 0;  // lossless only: XON = XOFF - hysteresis
};

struct BufferConfig {
  uint64_t total_bytes = 0;
  uint16_t num_ports = 0;
  // pg[port][prio]
  std::array<std::array<PgConfig, kNumPrio>, kMaxPorts> pg{};
};

class BufferAccountant {
 public:
  // Validates (reserved + headroom must fit in total, hysteresis below XOFF
  // for static thresholds, ...) and resets all counters.
  bool Configure(const BufferConfig& cfg, std::string* err);
  const BufferConfig& config() const { return cfg_; }

  uint64_t occupancy(PortId p, int prio) const { return pg(p, prio).occ.load(std::memory_order_relaxed); }
  uint64_t watermark(PortId p, int prio) const { return pg(p, prio).wmark.load(std::memory_order_relaxed); }
  uint64_t shared_used() const { return shared_used_.load(std::memory_order_relaxed); }
  uint64_t shared_size() const { return shared_size_; }
  // Current thresholds (dynamic ones move with the free shared pool).
  uint64_t XoffThreshold(PortId p, int prio) const;   // occupancy at which to pause
  uint64_t XonThreshold(PortId p, int prio) const;    // occupancy at which to resume
  uint64_t AdmitLimit(PortId p, int prio) const;      // max occupancy admitted
  uint64_t headroom_used(PortId p, int prio) const;   // occupancy above XOFF
  uint64_t headroom_watermark(PortId p, int prio) const { return pg(p, prio).hr_wmark.load(std::memory_order_relaxed); }

  // Atomic update of one PG by delta bytes, keeping shared_used and the
  // watermarks exact under concurrency. Used by the batches below.
  void Apply(PortId p, int prio, int64_t delta);

 private:
  struct alignas(64) Pg {
    std::atomic<uint64_t> occ{0};
    std::atomic<uint64_t> wmark{0};
    std::atomic<uint64_t> hr_wmark{0};
  };
  const Pg& pg(PortId p, int prio) const { return pgs_[p * kNumPrio + prio]; }
  Pg& pg(PortId p, int prio) { return pgs_[p * kNumPrio + prio]; }
  uint64_t SharedLimit(const PgConfig& c) const;

  BufferConfig cfg_{};
  std::unique_ptr<Pg[]> pgs_;
  uint64_t shared_size_ = 0;
  std::atomic<uint64_t> shared_used_{0};
};

// Admission for one rx burst of ONE ingress port. Decisions see the packets
// admitted earlier in the same burst; Flush() (or the destructor) publishes.
class IngressBatch {
 public:
  IngressBatch(BufferAccountant& acct, PortId port);
  ~IngressBatch() { Flush(); }
  // True: charged. False: *why is kLossyBufferFull or kLosslessHeadroom.
  bool Admit(int prio, uint32_t bytes, DropReason* why);
  void Flush();

 private:
  BufferAccountant& acct_;
  PortId port_;
  std::array<uint64_t, kNumPrio> base_{};    // occupancy at burst start (lazily read)
  std::array<int64_t, kNumPrio> delta_{};
  uint8_t loaded_ = 0;
};

// Releases for one tx burst (packets from any ingress PG).
class ReleaseBatch {
 public:
  explicit ReleaseBatch(BufferAccountant& acct) : acct_(acct) {}
  ~ReleaseBatch() { Flush(); }
  void Add(PortId in_port, int in_prio, uint32_t bytes);
  void Flush();

 private:
  BufferAccountant& acct_;
  // Small open list: a burst rarely touches more than a few PGs.
  std::array<uint16_t, kMaxBurst> key_{};   // in_port * 8 + prio
  std::array<int64_t, kMaxBurst> bytes_{};
  int n_ = 0;
};

}  // namespace pfc
