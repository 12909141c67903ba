// SPDX-License-Identifier: BSD-3-Clause
// Where a frame's IPv4 header is, for the features that edit packets after
// ingress parsed them (ECN marking, INT): Ethernet with at most one 802.1Q
// tag, as the switch forwards them. Pure.
#pragma once
#include <cstdint>

#include "dataplane/net/parser.h"

namespace pfc::net {

// The offset of the IPv4 header (20 bytes of it present) in `len` bytes of
// frame, or 0 when the frame carries none.
inline uint32_t Ipv4Offset(const uint8_t* d, uint32_t len) {
  uint32_t off = 12;
  if (len < off + 2) return 0;
  uint16_t et = static_cast<uint16_t>(d[off] << 8 | d[off + 1]);
  if (et == kEtherTypeVlan) {
    off += 4;
    if (len < off + 2) return 0;
    et = static_cast<uint16_t>(d[off] << 8 | d[off + 1]);
  }
  off += 2;
  if (et != kEtherTypeIpv4 || len < off + 20 || (d[off] >> 4) != 4) return 0;
  return off;
}

// Where the IPv4 datagram at `off` ends: off + its total length.
inline uint32_t Ipv4End(const uint8_t* d, uint32_t off) {
  return off + (static_cast<uint32_t>(d[off + 2]) << 8 | d[off + 3]);
}

}  // namespace pfc::net
