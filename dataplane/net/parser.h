// SPDX-License-Identifier: BSD-3-Clause
// Header parser over a plain byte span: Ethernet (optionally one 802.1Q tag),
// IPv4, ARP and MAC control (PFC / PAUSE). Pure code, no DPDK, so it is unit
// tested and fuzzed (tests/fuzz/fuzz_parser.cc) on heap buffers.
// Stateless: any worker calls it on the packet it owns. It never reads past
// frame+len: every field is bounds-checked first. It does not modify the
// packet; see net/ipv4_edit.h and net/vlan_edit.h for the in-place edits.
//
// Drop reasons it produces: kRunt (< 14 bytes), kTruncated (VLAN tag, IPv4
// header, IPv4 total length, ARP fixed header or the ARP body its hlen/plen
// declare beyond len), kBadIpHeader (version != 4, IHL < 5, total length <
// header length), kBadIpChecksum (only with verify_ip_csum),
// kVlanUnsupported (an S-tag, or a tag inside the 802.1Q tag: QinQ),
// kArpUnsupported (a complete ARP that is not Ethernet/IPv4, e.g. hardware
// type 6, IEEE 802).
#pragma once
#include <cstdint>
#include <cstring>

#include "dataplane/common/types.h"
#include "dataplane/net/ipv4_checksum.h"

namespace pfc::net {

enum class PktKind : uint8_t {
  kIpv4,        // valid IPv4 header (options/fragments allowed, flagged)
  kArp,         // Ethernet/IPv4 ARP, 28-byte body present
  kMacControl,  // ethertype 0x8808 (PFC, PAUSE, or malformed): consumed, never forwarded
  kOtherL2,     // any other ethertype (IPv6, LLDP, ...): never lossless
  kBad,         // malformed: see ParsedPacket::bad
};

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeArp = 0x0806;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;     // IEEE 802.1Q C-tag
inline constexpr uint16_t kEtherTypeSTag = 0x88a8;     // IEEE 802.1ad S-tag (QinQ outer)
inline constexpr uint16_t kEtherTypeSTagOld = 0x9100;  // pre-802.1ad QinQ outer tag
inline constexpr uint16_t kEtherTypeMacControl = 0x8808;

struct ParsedPacket {
  PktKind kind;
  DropReason bad;      // valid when kind == kBad
  bool has_vlan;       // one 802.1Q tag at offset 12 (TCI in vlan_tci)
  bool ip_options;     // IHL > 5
  bool ip_fragment;    // MF set or fragment offset != 0
  bool dst_broadcast;  // ff:ff:ff:ff:ff:ff
  bool dst_multicast;  // group bit set (includes broadcast)
  uint16_t ethertype;  // after any VLAN tag
  uint16_t vlan_tci;
  uint16_t l3_off;        // offset of the IPv4 / ARP / MAC-control body
  uint16_t ip_hdr_len;    // bytes (IHL * 4)
  uint16_t ip_total_len;  // from the header, <= bytes available
  uint8_t dscp;           // the tag
  uint8_t ttl;
  uint8_t ip_proto;
  uint32_t src_ip;  // host byte order
  uint32_t dst_ip;  // host byte order
};

// Parses frame[0, len). verify_ip_csum=false skips the header checksum (for a
// device that already verified it). Returns out->kind (kBad with out->bad set
// on any malformed input). Every frame kind and every check; out of line.
PktKind ParseFrameFull(const uint8_t* frame, uint32_t len, bool verify_ip_csum, ParsedPacket* out);

// The same, with the frame nearly every packet is (untagged IPv4 without
// options, whole, checksum right) parsed inline; anything else, good or bad,
// goes to ParseFrameFull. Both fill *out identically (parser_test compares
// them field by field on generated and mutated frames).
inline PktKind ParseFrame(const uint8_t* frame, uint32_t len, bool verify_ip_csum,
                          ParsedPacket* out) {
  // 14 + 20 bytes, ethertype 0x0800, version 4 with IHL 5.
  if (len >= 34) {
    uint32_t w;  // bytes 12..15: ethertype, version/IHL (one load)
    std::memcpy(&w, frame + 12, sizeof w);
    if ((__builtin_bswap32(w) >> 8) == 0x080045) {
      const uint8_t* ip = frame + 14;
      const uint32_t total = (uint32_t{ip[2]} << 8) | ip[3];
      if (total >= 20 && total + 14 <= len && (!verify_ip_csum || Ipv4Checksum20Ok(ip))) {
        *out = ParsedPacket{};
        out->kind = PktKind::kIpv4;
        uint64_t dst;  // the destination MAC and 2 more bytes: one load
        std::memcpy(&dst, frame, sizeof dst);
        out->dst_multicast = (dst & 1) != 0;  // the group bit of the first byte
        out->dst_broadcast = (dst & 0xffffffffffffull) == 0xffffffffffffull;
        out->ethertype = kEtherTypeIpv4;
        out->l3_off = 14;
        out->ip_hdr_len = 20;
        out->ip_total_len = static_cast<uint16_t>(total);
        // flags(3) | fragment offset(13): MF set or an offset is a fragment.
        out->ip_fragment = ((ip[6] & 0x3f) | ip[7]) != 0;
        out->dscp = static_cast<uint8_t>(ip[1] >> 2);
        out->ttl = ip[8];
        out->ip_proto = ip[9];
        uint32_t a[2];
        std::memcpy(a, ip + 12, sizeof a);
        out->src_ip = __builtin_bswap32(a[0]);
        out->dst_ip = __builtin_bswap32(a[1]);
        return PktKind::kIpv4;
      }
    }
  }
  return ParseFrameFull(frame, len, verify_ip_csum, out);
}

// ARP body (Ethernet/IPv4 only) at frame + l3_off; ParseFrame guarantees 28
// bytes.
struct ArpView {
  uint16_t op;  // 1 request, 2 reply
  uint8_t sha[6];
  uint32_t spa;  // host byte order
  uint8_t tha[6];
  uint32_t tpa;  // host byte order
};
// Fills *out from the ARP body. Returns false (and leaves *out untouched)
// unless p.kind == kArp, the body fits in len, and op is 1 or 2.
bool ParseArp(const uint8_t* frame, uint32_t len, const ParsedPacket& p, ArpView* out);

}  // namespace pfc::net
