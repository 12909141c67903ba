// SPDX-License-Identifier: BSD-3-Clause
// In-place IPv4 header edits with incremental checksum update (RFC 1624), so
// the forwarding path never recomputes a whole header checksum. Pure code,
// stateless: called by any worker on the packet it currently owns.
// Preconditions (the parser establishes them): ip_hdr points at a complete
// IPv4 header of hdr_len bytes inside the frame.
#pragma once
#include <cstdint>
#include <cstring>

namespace pfc {

// Full IPv4 header checksum (RFC 791) over hdr_len bytes, skipping the
// checksum field itself (bytes 10..11), so it need not be zeroed first.
// Returns the value to store (network byte order as a native uint16 read
// from the wire, i.e. memcpy it to ip_hdr + 10).
uint16_t Ipv4HeaderChecksum(const uint8_t* ip_hdr, uint16_t hdr_len);
// True when the stored checksum is correct (the sum over the whole header,
// checksum included, is 0xffff; accepts either representation of zero).
bool Ipv4ChecksumOk(const uint8_t* ip_hdr, uint16_t hdr_len);
// The same for a 20-byte header (no options), inline for the parser's fast
// path: summed in 64-bit words and folded to 16 bits (RFC 1071 §2(B): the
// one's complement sum does not depend on the word size).
inline bool Ipv4Checksum20Ok(const uint8_t* ip_hdr) {
  uint64_t a, b;
  uint32_t c;
  std::memcpy(&a, ip_hdr, 8);
  std::memcpy(&b, ip_hdr + 8, 8);
  std::memcpy(&c, ip_hdr + 16, 4);
  // 64-bit one's complement sum: each carry out is added back in.
  uint64_t s = a + b;
  s += s < a;
  const uint64_t t = s + c;
  s = t + (t < s);
  s = (s & 0xffffffffu) + (s >> 32);  // < 2^33
  s = (s & 0xffffffffu) + (s >> 32);  // < 2^32
  s = (s & 0xffffu) + (s >> 16);
  s = (s & 0xffffu) + (s >> 16);
  return s == 0xffffu;
}
// Decrement TTL by one and patch the checksum. Caller checked ttl > 1.
void Ipv4DecrementTtl(uint8_t* ip_hdr);
// Replace the 6-bit DSCP (keeps ECN) and patch the checksum. The patched
// checksum is bit-identical to Ipv4HeaderChecksum() of the edited header
// (RFC 1624 eqn. 3) when the old checksum was the one Ipv4HeaderChecksum()
// computes (a sender using the 0xffff form of zero stays valid, not identical).
void Ipv4SetDscp(uint8_t* ip_hdr, uint8_t dscp);

}  // namespace pfc
