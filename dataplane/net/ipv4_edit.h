// SPDX-License-Identifier: BSD-3-Clause
// In-place IPv4 header edits with incremental checksum update (RFC 1624), so
// the forwarding path never recomputes a whole header checksum. Pure code,
// stateless: called by any worker on the packet it currently owns.
// Preconditions (the parser establishes them): ip_hdr points at a complete
// IPv4 header of hdr_len bytes inside the frame.
#pragma once
#include <cstdint>
#include <cstring>

#include "dataplane/net/ipv4_checksum.h"

namespace pfc::net {

// Full IPv4 header checksum (RFC 791) over hdr_len bytes, skipping the
// checksum field itself (bytes 10..11), so it need not be zeroed first.
// Returns the value to store (network byte order as a native uint16 read
// from the wire, i.e. memcpy it to ip_hdr + 10).
uint16_t Ipv4HeaderChecksum(const uint8_t* ip_hdr, uint16_t hdr_len);
// True when the stored checksum is correct (the sum over the whole header,
// checksum included, is 0xffff; accepts either representation of zero).
bool Ipv4ChecksumOk(const uint8_t* ip_hdr, uint16_t hdr_len);
// The per-packet edits are inline: the ingress loop calls them for every
// forwarded IPv4 packet (out of line, the TTL edit costs 29 instructions a
// packet in bench/cost/table.sh's L3 run).
namespace ipv4_detail {
// The one's complement sum is byte-order independent (RFC 1071 §2(B)): words
// are added exactly as they lie in memory and the result stored the same way,
// so no byte swaps are needed anywhere.
inline uint16_t LoadWord(const uint8_t* p) {
  uint16_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
inline void StoreWord(uint8_t* p, uint16_t w) { std::memcpy(p, &w, sizeof w); }
inline uint32_t Fold(uint32_t sum) {
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return sum;
}
// RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). Unlike eqn. 2 it never yields
// 0xffff, so the result is bit-identical to a full recomputation.
inline void PatchChecksum(uint8_t* ip_hdr, uint16_t old_word, uint16_t new_word) {
  constexpr uint32_t kCsumOff = 10;
  const uint16_t hc = LoadWord(ip_hdr + kCsumOff);
  uint32_t sum = static_cast<uint16_t>(~hc);
  sum += static_cast<uint16_t>(~old_word);
  sum += new_word;
  StoreWord(ip_hdr + kCsumOff, static_cast<uint16_t>(~Fold(sum)));
}
}  // namespace ipv4_detail

// Decrement TTL by one and patch the checksum. Caller checked ttl > 1.
inline void Ipv4DecrementTtl(uint8_t* ip_hdr) {
  using namespace ipv4_detail;
  // TTL is the first byte of the 16-bit word at offset 8 (protocol is the
  // second). Loaded as it lies in memory, that word m drops by exactly 1
  // (TTL > 0, so no borrow reaches the protocol byte): ~m + m' = 0xfffe
  // whatever m is, and eqn. 3 becomes HC' = ~(~HC + 0xfffe). One fold is
  // enough: the sum is at most 0x1fffd.
  ip_hdr[8] = static_cast<uint8_t>(ip_hdr[8] - 1);
  uint32_t sum = static_cast<uint16_t>(~LoadWord(ip_hdr + 10));
  sum += 0xfffe;
  sum = (sum & 0xffff) + (sum >> 16);
  StoreWord(ip_hdr + 10, static_cast<uint16_t>(~sum));
}

// Replace the 6-bit DSCP (keeps ECN) and patch the checksum. The patched
// checksum is bit-identical to Ipv4HeaderChecksum() of the edited header
// (RFC 1624 eqn. 3) when the old checksum was the one Ipv4HeaderChecksum()
// computes (a sender using the 0xffff form of zero stays valid, not identical).
inline void Ipv4SetDscp(uint8_t* ip_hdr, uint8_t dscp) {
  using namespace ipv4_detail;
  // DSCP is the top 6 bits of byte 1 (the old ToS); ECN (low 2 bits) is kept.
  const uint16_t old_word = LoadWord(ip_hdr);
  uint8_t b[2];
  std::memcpy(b, &old_word, 2);
  const uint8_t tos = static_cast<uint8_t>(((dscp & 0x3f) << 2) | (b[1] & 0x3));
  if (tos == b[1]) return;
  b[1] = tos;
  uint16_t new_word;
  std::memcpy(&new_word, b, 2);
  StoreWord(ip_hdr, new_word);
  PatchChecksum(ip_hdr, old_word, new_word);
}

// ECN codepoints (RFC 3168 §5), the low two bits of byte 1.
inline constexpr uint8_t kEcnNotEct = 0, kEcnEct1 = 1, kEcnEct0 = 2, kEcnCe = 3;

// Congestion Experienced: sets ECN to CE on an ECT(0)/ECT(1) packet and
// patches the checksum (RFC 1624 eqn. 3, bit-identical as Ipv4SetDscp).
// Returns the codepoint the packet had: only kEcnEct0/kEcnEct1 were changed;
// a Not-ECT packet is never marked (RFC 3168 §5), a CE one is left as is.
inline uint8_t Ipv4MarkCe(uint8_t* ip_hdr) {
  using namespace ipv4_detail;
  const uint8_t ecn = ip_hdr[1] & 3;
  if (ecn != kEcnEct0 && ecn != kEcnEct1) return ecn;
  const uint16_t old_word = LoadWord(ip_hdr);
  ip_hdr[1] = static_cast<uint8_t>(ip_hdr[1] | kEcnCe);
  PatchChecksum(ip_hdr, old_word, LoadWord(ip_hdr));
  return ecn;
}

}  // namespace pfc::net
