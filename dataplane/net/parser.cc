// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/net/parser.h"

#include "dataplane/net/ipv4_edit.h"

namespace pfc::net {
namespace {

constexpr uint32_t kEthHdrLen = 14;
constexpr uint32_t kVlanTagLen = 4;
constexpr uint32_t kIpv4MinHdrLen = 20;
constexpr uint32_t kArpFixedLen = 8;  // htype, ptype, hlen, plen, op
constexpr uint32_t kArpEthIpv4Len = 28;

inline uint16_t Be16(const uint8_t* p) {
  return static_cast<uint16_t>((uint16_t{p[0]} << 8) | p[1]);
}
inline uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
inline bool IsSTag(uint16_t ethertype) {
  return ethertype == kEtherTypeSTag || ethertype == kEtherTypeSTagOld;
}

// Cold path kept out of line: marks the packet bad with one reason.
[[gnu::noinline]] PktKind Bad(ParsedPacket* out, DropReason r) {
  out->kind = PktKind::kBad;
  out->bad = r;
  return PktKind::kBad;
}

// All bounds below are checked as "needed <= len" with needed computed in
// 32 bits from at most 16-bit header fields, so the sums cannot wrap.
PktKind ParseIpv4(const uint8_t* frame, uint32_t len, bool verify_ip_csum, ParsedPacket* out) {
  const uint32_t off = out->l3_off;
  if (off + kIpv4MinHdrLen > len) return Bad(out, DropReason::kTruncated);
  const uint8_t* ip = frame + off;
  if ((ip[0] >> 4) != 4) return Bad(out, DropReason::kBadIpHeader);
  const uint32_t hdr_len = (ip[0] & 0x0fu) * 4u;
  if (hdr_len < kIpv4MinHdrLen) return Bad(out, DropReason::kBadIpHeader);
  if (off + hdr_len > len) return Bad(out, DropReason::kTruncated);
  const uint32_t total_len = Be16(ip + 2);
  // A total length shorter than the header is a lie about the header, not a
  // short frame; a total length beyond the frame is a truncated packet.
  // (Frames may be longer than total_len: Ethernet pads to 60 bytes.)
  if (total_len < hdr_len) return Bad(out, DropReason::kBadIpHeader);
  if (off + total_len > len) return Bad(out, DropReason::kTruncated);
  if (verify_ip_csum && !Ipv4ChecksumOk(ip, static_cast<uint16_t>(hdr_len))) {
    return Bad(out, DropReason::kBadIpChecksum);
  }
  const uint16_t frag = Be16(ip + 6);  // flags(3) | fragment offset(13)
  out->ip_options = hdr_len > kIpv4MinHdrLen;
  out->ip_fragment = (frag & 0x2000) != 0 || (frag & 0x1fff) != 0;
  out->ip_hdr_len = static_cast<uint16_t>(hdr_len);
  out->ip_total_len = static_cast<uint16_t>(total_len);
  out->dscp = static_cast<uint8_t>(ip[1] >> 2);
  out->ttl = ip[8];
  out->ip_proto = ip[9];
  out->src_ip = Be32(ip + 12);
  out->dst_ip = Be32(ip + 16);
  out->kind = PktKind::kIpv4;
  return PktKind::kIpv4;
}

PktKind ParseArpHeader(const uint8_t* frame, uint32_t len, ParsedPacket* out) {
  const uint32_t off = out->l3_off;
  if (off + kArpFixedLen > len) return Bad(out, DropReason::kTruncated);
  const uint8_t* a = frame + off;
  // The body's length follows from hlen and plen (RFC 826: two hardware and
  // two protocol addresses). A frame that holds all of it is complete, so an
  // ARP for another link layer (hardware type 6, IEEE 802, often with other
  // address lengths) is reported as what it is, unsupported, not truncated.
  const uint32_t body = kArpFixedLen + 2u * (uint32_t{a[4]} + a[5]);
  if (off + body > len) return Bad(out, DropReason::kTruncated);
  // htype 1 (Ethernet), ptype 0x0800, hlen 6, plen 4: anything else is an ARP
  // the switch cannot answer or learn from.
  if (Be16(a) != 1 || Be16(a + 2) != kEtherTypeIpv4 || a[4] != 6 || a[5] != 4) {
    return Bad(out, DropReason::kArpUnsupported);
  }
  out->kind = PktKind::kArp;
  return PktKind::kArp;
}

}  // namespace

PktKind ParseFrameFull(const uint8_t* frame, uint32_t len, bool verify_ip_csum, ParsedPacket* out) {
  *out = ParsedPacket{};
  if (len < kEthHdrLen) return Bad(out, DropReason::kRunt);
  out->dst_multicast = (frame[0] & 1) != 0;
  out->dst_broadcast = (frame[0] & frame[1] & frame[2] & frame[3] & frame[4] & frame[5]) == 0xff;
  uint16_t ethertype = Be16(frame + 12);
  uint32_t l3_off = kEthHdrLen;
  // Exactly one 802.1Q tag is understood: the switch writes its PCP on
  // egress so that a PCP-trusting peer queues the packet where the switch
  // did. Under an S-tag or a second tag that PCP is not the one the next
  // hop reads, so stacked tags are refused with their own reason rather
  // than switched with a priority that contradicts the DSCP.
  if (IsSTag(ethertype)) return Bad(out, DropReason::kVlanUnsupported);
  if (ethertype == kEtherTypeVlan) {
    if (len < kEthHdrLen + kVlanTagLen) return Bad(out, DropReason::kTruncated);
    out->has_vlan = true;
    out->vlan_tci = Be16(frame + 14);
    ethertype = Be16(frame + 16);
    l3_off += kVlanTagLen;
    if (ethertype == kEtherTypeVlan || IsSTag(ethertype)) {
      return Bad(out, DropReason::kVlanUnsupported);
    }
  }
  out->ethertype = ethertype;
  out->l3_off = static_cast<uint16_t>(l3_off);
  switch (ethertype) {
    case kEtherTypeIpv4:
      return ParseIpv4(frame, len, verify_ip_csum, out);
    case kEtherTypeArp:
      return ParseArpHeader(frame, len, out);
    case kEtherTypeMacControl:
      // Opcode/length checks belong to the PFC codec (dataplane/pause/).
      out->kind = PktKind::kMacControl;
      return PktKind::kMacControl;
    default:
      out->kind = PktKind::kOtherL2;
      return PktKind::kOtherL2;
  }
}

bool ParseArp(const uint8_t* frame, uint32_t len, const ParsedPacket& p, ArpView* out) {
  // Re-checked rather than trusted: the ParsedPacket may not belong to frame.
  if (p.kind != PktKind::kArp || uint32_t{p.l3_off} + kArpEthIpv4Len > len) return false;
  const uint8_t* a = frame + p.l3_off;
  if (Be16(a) != 1 || Be16(a + 2) != kEtherTypeIpv4 || a[4] != 6 || a[5] != 4) return false;
  const uint16_t op = Be16(a + 6);
  if (op != 1 && op != 2) return false;
  out->op = op;
  for (int i = 0; i < 6; ++i) out->sha[i] = a[8 + i];
  out->spa = Be32(a + 14);
  for (int i = 0; i < 6; ++i) out->tha[i] = a[18 + i];
  out->tpa = Be32(a + 24);
  return true;
}

}  // namespace pfc::net
