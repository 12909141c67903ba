// SPDX-License-Identifier: BSD-3-Clause
// The IPv4 header checksum check of receipt, apart from the edits of
// ipv4_edit.h so that bench/cost/callgrind_stages.py can tell parsing (this file)
// from rewriting (that one) by source file. Pure, stateless.
#pragma once
#include <cstdint>
#include <cstring>

namespace pfc::net {

// True when the stored checksum of a 20-byte IPv4 header (no options) is
// correct, inline for the parser's fast path (Ipv4ChecksumOk in ipv4_edit.h
// is the general form): summed in 64-bit words and folded to 16 bits
// (RFC 1071 §2(B): the one's complement sum does not depend on word size).
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

}  // namespace pfc::net
