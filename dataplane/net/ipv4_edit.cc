// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/net/ipv4_edit.h"

#include <cstring>

namespace pfc {
namespace {

// The one's complement sum is byte-order independent (RFC 1071 §2(B)): we add
// 16-bit words exactly as they lie in memory and store the result the same way,
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

// Adds the 16-bit words of [p, p+len) to sum (an odd last byte is padded with
// a zero byte, RFC 1071). 64-bit accumulator: no overflow below 2^48 bytes.
uint64_t AddWords(uint64_t sum, const uint8_t* p, uint32_t len) {
  uint32_t i = 0;
  for (; i + 1 < len; i += 2) sum += LoadWord(p + i);
  if (i < len) {
    uint8_t last[2] = {p[i], 0};
    sum += LoadWord(last);
  }
  return sum;
}

inline uint16_t Fold64(uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
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

}  // namespace

uint16_t Ipv4HeaderChecksum(const uint8_t* ip_hdr, uint16_t hdr_len) {
  // Skip the checksum field itself (bytes 10..11) so the caller need not zero
  // it first: the result is always the value to store.
  uint64_t sum = 0;
  if (hdr_len <= 10) {
    sum = AddWords(sum, ip_hdr, hdr_len);
  } else {
    sum = AddWords(sum, ip_hdr, 10);
    if (hdr_len > 12) sum = AddWords(sum, ip_hdr + 12, hdr_len - 12u);
  }
  return static_cast<uint16_t>(~Fold64(sum));
}

bool Ipv4ChecksumOk(const uint8_t* ip_hdr, uint16_t hdr_len) {
  if (hdr_len == 20) return Ipv4Checksum20Ok(ip_hdr);  // the common case
  // Summing every word including the stored checksum gives -0 (0xffff) for a
  // correct header; this accepts both representations of zero in the field.
  return Fold64(AddWords(0, ip_hdr, hdr_len)) == 0xffff;
}

void Ipv4DecrementTtl(uint8_t* ip_hdr) {
  // TTL shares the 16-bit word at offset 8 with the protocol byte.
  const uint16_t old_word = LoadWord(ip_hdr + 8);
  uint8_t b[2];
  std::memcpy(b, &old_word, 2);
  b[0] = static_cast<uint8_t>(b[0] - 1);
  uint16_t new_word;
  std::memcpy(&new_word, b, 2);
  StoreWord(ip_hdr + 8, new_word);  // one store: no byte store + word reload
  PatchChecksum(ip_hdr, old_word, new_word);
}

void Ipv4SetDscp(uint8_t* ip_hdr, uint8_t dscp) {
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

}  // namespace pfc
