// SPDX-License-Identifier: BSD-3-Clause
// The per-flow hash that picks one of a route's equal-cost next hops
// (route_table.h). Every packet of a flow (same addresses, protocol and
// ports) hashes alike, so a flow keeps its path and stays in order; a seed
// per switch keeps switches from polarising (all choosing alike for the same
// flows). Pure functions: the ingress stage calls them, tests call them
// without EAL.
//  * kCrc32c: CRC-32C (the SSE4.2 instruction, as DPDK's rte_hash_crc uses)
//    over source and destination address, the two ports and the protocol,
//    from the seed. The default.
//  * kHpcc: the HPCC simulator's own choice (switch-node.cc, GetOutDev):
//    MurmurHash3 (x86, 32-bit) of the 12 bytes sip, dip, sport | dport << 16
//    as little-endian words (addresses in host order), protocol left out,
//    seeded with the switch's node id. With the simulator's addresses, ports
//    and next-hop order it sends each flow where the simulator does.
#pragma once
#include <nmmintrin.h>

#include <cstddef>
#include <cstdint>

namespace pfc::tables {

enum class EcmpHashAlgo : uint8_t { kCrc32c, kHpcc };

struct FlowKey {
  uint32_t src_ip = 0;  // host order
  uint32_t dst_ip = 0;
  uint16_t src_port = 0;  // UDP/TCP; 0 for other protocols and fragments
  uint16_t dst_port = 0;
  uint8_t proto = 0;
};

// SSE4.2 (every x86-64 CPU DPDK 22.11 runs on): the switch is built for it;
// the attribute lets code built without it (the pure tests) call it too.
__attribute__((target("sse4.2"))) inline uint32_t Crc32cFlowHash(const FlowKey& k, uint32_t seed) {
  uint32_t h = _mm_crc32_u32(seed, k.src_ip);
  h = _mm_crc32_u32(h, k.dst_ip);
  h = _mm_crc32_u32(h, uint32_t{k.src_port} | uint32_t{k.dst_port} << 16);
  return _mm_crc32_u8(h, k.proto);
}

// MurmurHash3, x86 32-bit variant (Austin Appleby's public-domain
// algorithm): 4-byte blocks as little-endian words, then the tail, then the
// length and the final mix.
inline uint32_t Murmur3X86_32(const void* key, size_t len, uint32_t seed) {
  const auto* b = static_cast<const uint8_t*>(key);
  auto mix = [](uint32_t k) {
    k *= 0xcc9e2d51u;
    k = (k << 15) | (k >> 17);
    return k * 0x1b873593u;
  };
  uint32_t h = seed;
  size_t i = 0;
  for (; i + 4 <= len; i += 4) {
    const uint32_t k = uint32_t{b[i]} | uint32_t{b[i + 1]} << 8 | uint32_t{b[i + 2]} << 16 |
                       uint32_t{b[i + 3]} << 24;
    h ^= mix(k);
    h = (h << 13) | (h >> 19);
    h = h * 5 + 0xe6546b64u;
  }
  uint32_t tail = 0;
  for (size_t j = len; j > i; --j) tail = tail << 8 | b[j - 1];
  if (len & 3) h ^= mix(tail);
  h ^= static_cast<uint32_t>(len);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

inline uint32_t HpccFlowHash(const FlowKey& k, uint32_t seed) {
  const uint32_t sp = uint32_t{k.src_port} | uint32_t{k.dst_port} << 16;
  const uint8_t key[12] = {
      uint8_t(k.src_ip), uint8_t(k.src_ip >> 8), uint8_t(k.src_ip >> 16), uint8_t(k.src_ip >> 24),
      uint8_t(k.dst_ip), uint8_t(k.dst_ip >> 8), uint8_t(k.dst_ip >> 16), uint8_t(k.dst_ip >> 24),
      uint8_t(sp),       uint8_t(sp >> 8),       uint8_t(sp >> 16),       uint8_t(sp >> 24)};
  return Murmur3X86_32(key, sizeof key, seed);
}

inline uint32_t EcmpHash(EcmpHashAlgo a, const FlowKey& k, uint32_t seed) {
  return a == EcmpHashAlgo::kHpcc ? HpccFlowHash(k, seed) : Crc32cFlowHash(k, seed);
}

}  // namespace pfc::tables
