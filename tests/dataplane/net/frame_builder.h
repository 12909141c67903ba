// SPDX-License-Identifier: BSD-3-Clause
// Test helper: builds Ethernet/VLAN/IPv4/ARP frames byte by byte so that
// parser tests can corrupt exactly one field at a time. Test-only code.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "dataplane/net/ipv4_edit.h"

namespace pfc::test {

inline void Put16(std::vector<uint8_t>& f, size_t off, uint16_t v) {
  f[off] = static_cast<uint8_t>(v >> 8);
  f[off + 1] = static_cast<uint8_t>(v);
}
inline void Put32(std::vector<uint8_t>& f, size_t off, uint32_t v) {
  Put16(f, off, static_cast<uint16_t>(v >> 16));
  Put16(f, off + 2, static_cast<uint16_t>(v));
}

struct FrameSpec {
  uint8_t dst[6] = {0x02, 0, 0, 0, 0, 0x01};
  uint8_t src[6] = {0x02, 0, 0, 0, 0, 0x02};
  bool vlan = false;
  uint16_t tci = 0;
  uint16_t ethertype = 0x0800;
};

// Ethernet (+ VLAN) header; returns the frame, l3 offset in *l3.
inline std::vector<uint8_t> EthHeader(const FrameSpec& s, size_t* l3) {
  std::vector<uint8_t> f(s.vlan ? 18 : 14);
  std::memcpy(f.data(), s.dst, 6);
  std::memcpy(f.data() + 6, s.src, 6);
  if (s.vlan) {
    Put16(f, 12, 0x8100);
    Put16(f, 14, s.tci);
    Put16(f, 16, s.ethertype);
  } else {
    Put16(f, 12, s.ethertype);
  }
  *l3 = f.size();
  return f;
}

struct Ipv4Spec {
  uint8_t ihl = 5;
  uint8_t dscp = 0;
  uint8_t ecn = 0;
  uint16_t payload = 26;   // 20 + 26 + 14 = 60: a minimum-size frame
  uint16_t frag = 0x4000;  // DF, offset 0
  uint8_t ttl = 64;
  uint8_t proto = 17;
  uint32_t src = 0x0a000001;
  uint32_t dst = 0x0a000102;
};

inline void FixIpChecksum(std::vector<uint8_t>& f, size_t l3) {
  const uint16_t hl = static_cast<uint16_t>((f[l3] & 0x0f) * 4);
  const uint16_t c = net::Ipv4HeaderChecksum(f.data() + l3, hl);
  std::memcpy(f.data() + l3 + 10, &c, 2);
}

inline std::vector<uint8_t> Ipv4Frame(const FrameSpec& e, const Ipv4Spec& ip,
                                      size_t* l3_out = nullptr) {
  size_t l3;
  std::vector<uint8_t> f = EthHeader(e, &l3);
  const size_t hl = size_t{ip.ihl} * 4;
  f.resize(l3 + hl + ip.payload, 0xab);
  f[l3] = static_cast<uint8_t>(0x40 | ip.ihl);
  f[l3 + 1] = static_cast<uint8_t>((ip.dscp << 2) | (ip.ecn & 3));
  Put16(f, l3 + 2, static_cast<uint16_t>(hl + ip.payload));
  Put16(f, l3 + 4, 0x1234);
  Put16(f, l3 + 6, ip.frag);
  f[l3 + 8] = ip.ttl;
  f[l3 + 9] = ip.proto;
  Put16(f, l3 + 10, 0);
  Put32(f, l3 + 12, ip.src);
  Put32(f, l3 + 16, ip.dst);
  for (size_t i = 20; i < hl; ++i) f[l3 + i] = 1;  // NOP options
  FixIpChecksum(f, l3);
  if (l3_out) *l3_out = l3;
  return f;
}

inline std::vector<uint8_t> ArpFrame(const FrameSpec& e0, uint16_t op, uint32_t spa, uint32_t tpa) {
  FrameSpec e = e0;
  e.ethertype = 0x0806;
  size_t l3;
  std::vector<uint8_t> f = EthHeader(e, &l3);
  f.resize(l3 + 28, 0);
  Put16(f, l3, 1);
  Put16(f, l3 + 2, 0x0800);
  f[l3 + 4] = 6;
  f[l3 + 5] = 4;
  Put16(f, l3 + 6, op);
  const uint8_t sha[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
  std::memcpy(f.data() + l3 + 8, sha, 6);
  Put32(f, l3 + 14, spa);
  const uint8_t tha[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
  std::memcpy(f.data() + l3 + 18, tha, 6);
  Put32(f, l3 + 24, tpa);
  return f;
}

}  // namespace pfc::test
