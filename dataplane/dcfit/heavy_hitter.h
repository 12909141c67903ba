// SPDX-License-Identifier: BSD-3-Clause
// The heavy hitters feeding a congested egress (DCFIT §4: "identify the
// heavy hitters which send a large amount of traffic and thus cause the
// congestion") and the token bucket that then limits each of them.
//
// HeavyHitters is a space-saving table (Metwally et al.'s algorithm, as
// data-plane heavy-hitter detection [DCFIT ref. 43] builds on): kSlots
// counters of bytes, keyed by flow. A key already counted adds to its slot;
// a new key takes the smallest slot and inherits its count (so a count
// over-estimates by at most the evicted count, `error`). Memory is fixed
// (kSlots entries, 24 bytes each), whatever the traffic; every update is a
// scan of kSlots entries, and the glue updates it per packet only while its
// egress is watched (congested at the initial trigger), never otherwise.
//
// FlowKeyOf names a frame's flow by its IPv4 source and destination (what
// the fabric's flows and RoCEv2 queue pairs between two hosts share).
//
// Pure and single-threaded: the glue calls them under the switch's DCFIT
// lock when several workers serve it (stages/dcfit_state.h).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pfc::dcfit {

// src << 32 | dst of an IPv4 frame (optionally one 802.1Q tag); 0 when the
// frame is not IPv4 or too short.
uint64_t FlowKeyOf(const uint8_t* frame, size_t len);
// "10.0.1.2>10.0.3.4".
std::string FlowKeyText(uint64_t key);

class HeavyHitters {
 public:
  static constexpr int kSlots = 8;
  struct Entry {
    uint64_t key = 0;
    uint64_t bytes = 0;  // an over-estimate by at most `error`
    uint64_t error = 0;  // the count inherited when this key took the slot
  };
  void Offer(uint64_t key, uint32_t bytes);
  void Reset();
  // The n (<= kSlots) largest, largest first, each of at least min_share of
  // all bytes offered since the last Reset; returns how many were written.
  int Top(double min_share, Entry* out, int n) const;
  uint64_t total_bytes() const { return total_; }

 private:
  std::array<Entry, kSlots> e_{};
  uint64_t total_ = 0;
};

// Bytes at rate_bps with a depth of burst_bytes; starts full.
class TokenBucket {
 public:
  void Configure(uint64_t rate_bps, uint32_t burst_bytes, uint64_t now_ns);
  // True (and the bytes taken) when the bucket holds them.
  bool Take(uint32_t bytes, uint64_t now_ns);

 private:
  uint64_t rate_bps_ = 0;
  uint64_t depth_ = 0;   // in bit-ns units (bytes * 8e9): exact integer refill
  uint64_t tokens_ = 0;  // same units
  uint64_t last_ns_ = 0;
};

}  // namespace pfc::dcfit
