// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/net/ipv4_edit.h"

#include <cstring>

namespace pfc::net {
namespace {

using ipv4_detail::LoadWord;

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

}  // namespace pfc::net
