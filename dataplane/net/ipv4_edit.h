// SPDX-License-Identifier: BSD-3-Clause
// In-place IPv4 header edits with incremental checksum update (RFC 1624), so
// the forwarding path never recomputes a whole header checksum. Pure code.
#pragma once
#include <cstdint>

namespace pfc {

// Full IPv4 header checksum (RFC 791) over hdr_len bytes; returns the value to
// store (network byte order as a native uint16 read from the wire).
uint16_t Ipv4HeaderChecksum(const uint8_t* ip_hdr, uint16_t hdr_len);
// Decrement TTL by one and patch the checksum. Caller checked ttl > 1.
void Ipv4DecrementTtl(uint8_t* ip_hdr);
// Replace the 6-bit DSCP (keeps ECN) and patch the checksum.
void Ipv4SetDscp(uint8_t* ip_hdr, uint8_t dscp);

}  // namespace pfc
