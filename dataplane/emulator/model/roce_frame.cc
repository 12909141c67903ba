// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/roce_frame.h"

#include <isa-l/crc.h>

#include <cstring>
#include <iterator>

#include "dataplane/net/be_bytes.h"
#include "dataplane/net/ipv4_edit.h"

namespace pfc::emulator {
namespace {

using net::be::Get16;
using net::be::Get32;
using net::be::Get64;
using net::be::Put16;
using net::be::Put32;
using net::be::Put64;

constexpr uint32_t kIp = 14, kUdp = kIp + 20, kBth = kUdp + 8;

// The fields the ICRC masks (all ones), from the IPv4 header: those a switch
// may change on the way (ECN marks, DSCP rewrites, TTL) and their checksums:
// TOS, TTL, the header checksum, the UDP checksum, the BTH's reserved byte
// (FECN/BECN in InfiniBand).
constexpr int kIcrcMasked[] = {1, 8, 10, 11, 20 + 6, 20 + 7, 28 + 4};

// The CRC state after the 8 bytes of 0xff that stand for the absent LRH.
uint32_t LrhState() {
  static const uint32_t k = [] {
    uint8_t ff[8];
    std::memset(ff, 0xff, sizeof ff);
    return crc32_gzip_refl(0, ff, sizeof ff);
  }();
  return k;
}

}  // namespace

uint32_t RoceIcrc(const uint8_t* frame, uint32_t len) {
  // The invariant part of the headers: a copy, masked.
  uint8_t hdr[20 + 8 + kBthLen];
  std::memcpy(hdr, frame + kIp, sizeof hdr);
  for (int o : kIcrcMasked) hdr[o] = 0xff;
  const uint32_t crc = crc32_gzip_refl(LrhState(), hdr, sizeof hdr);
  return crc32_gzip_refl(crc, frame + kBth + kBthLen, len - kBth - kBthLen - kIcrcLen);
}

namespace {

// Ethernet, IPv4, UDP and the BTH of a frame of `len` bytes.
void PutHeaders(const RoceAddr& a, uint8_t opcode, uint32_t len, uint8_t* buf) {
  std::memcpy(buf, a.dst_mac.data(), 6);
  std::memcpy(buf + 6, a.src_mac.data(), 6);
  Put16(buf + 12, 0x0800);
  uint8_t* ip = buf + kIp;
  ip[0] = 0x45;
  ip[1] = static_cast<uint8_t>(a.dscp << 2 | (a.ecn & 3));
  Put16(ip + 2, static_cast<uint16_t>(len - kIp));
  Put16(ip + 4, a.ip_id);
  Put16(ip + 6, 0x4000);  // DF
  ip[8] = 64;
  ip[9] = 17;
  Put32(ip + 12, a.src_ip);
  Put32(ip + 16, a.dst_ip);
  ip[10] = ip[11] = 0;
  const uint16_t csum = net::Ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &csum, 2);
  uint8_t* udp = buf + kUdp;
  Put16(udp, a.src_port);
  Put16(udp + 2, kRoceV2Port);
  Put16(udp + 4, static_cast<uint16_t>(len - kUdp));
  Put16(udp + 6, 0);  // UDP checksum 0: not used over IPv4 (RoCEv2 allows it)
  uint8_t* bth = buf + kBth;
  bth[0] = opcode;
  bth[1] = 0;                            // SE, MigReq, PadCnt, TVer
  Put16(bth + 2, 0xffff);                // P_Key: the default partition
  Put32(bth + 4, a.dest_qp & 0xffffff);  // reserved byte, then the QP
  if (a.becn) bth[4] |= 0x40;
  Put32(bth + 8, 0);  // AckReq, reserved, PSN
}

// The ICRC of a frame being built, in one CRC pass over it: the masked
// fields are set in place and put back (RoceIcrc, for frames it may not
// write, copies the headers instead).
uint32_t IcrcInPlace(uint8_t* buf, uint32_t len) {
  uint8_t* ip = buf + kIp;
  uint8_t saved[std::size(kIcrcMasked)];
  for (size_t i = 0; i < std::size(kIcrcMasked); i++) {
    saved[i] = ip[kIcrcMasked[i]];
    ip[kIcrcMasked[i]] = 0xff;
  }
  const uint32_t crc = crc32_gzip_refl(LrhState(), ip, len - kIp - kIcrcLen);
  for (size_t i = 0; i < std::size(kIcrcMasked); i++) ip[kIcrcMasked[i]] = saved[i];
  return crc;
}

void PutIcrc(uint8_t* buf, uint32_t len) {
  const uint32_t icrc = IcrcInPlace(buf, len);
  uint8_t* f = buf + len - kIcrcLen;
  for (int i = 0; i < 4; i++) f[i] = static_cast<uint8_t>(icrc >> (8 * i));
}

uint32_t Pad4(uint32_t n) { return (4 - n % 4) % 4; }

}  // namespace

uint32_t BuildCnp(const RoceAddr& s, uint8_t* buf) {
  std::memset(buf, 0, kCnpFrameLen);
  RoceAddr a = s;
  a.ecn = 0;  // Not-ECT: a CNP is not marked
  a.ip_id = 0;
  PutHeaders(a, kBthOpCnp, kCnpFrameLen, buf);
  // BTH PSN 0, then 16 reserved bytes (zero).
  PutIcrc(buf, kCnpFrameLen);
  return kCnpFrameLen;
}

uint32_t RoceWriteLen(uint8_t opcode, uint32_t payload) {
  return kRoceHdrLen + (HasReth(opcode) ? kRethLen : 0) + payload + Pad4(payload) + kIcrcLen;
}

uint32_t BuildWrite(const RoceAddr& a, const RoceWrite& w, uint8_t* buf, uint32_t cap) {
  const uint32_t len = RoceWriteLen(w.opcode, w.payload);
  if (len > cap || w.payload > 4096 || !IsWrite(w.opcode)) return 0;
  PutHeaders(a, w.opcode, len, buf);
  uint8_t* bth = buf + kBth;
  bth[1] = static_cast<uint8_t>(Pad4(w.payload) << 4);
  Put32(bth + 8, (w.ack_req ? 0x80000000u : 0) | (w.psn & 0xffffff));
  uint8_t* p = bth + kBthLen;
  if (HasReth(w.opcode)) {
    Put64(p, w.va);
    Put32(p + 8, w.rkey);
    Put32(p + 12, w.dma_len);
    p += kRethLen;
  }
  std::memset(p, 0, w.payload + Pad4(w.payload));
  if (w.payload >= 8) Put64(p, w.stamp_ns);
  PutIcrc(buf, len);
  return len;
}

uint32_t BuildAck(const RoceAddr& a, uint8_t syndrome, uint32_t psn, uint32_t msn, uint8_t* buf) {
  RoceAddr x = a;
  x.ecn = 0;
  PutHeaders(x, kBthOpAck, kAckFrameLen, buf);
  Put32(buf + kBth + 8, psn & 0xffffff);
  Put32(buf + kRoceHdrLen, uint32_t{syndrome} << 24 | (msn & 0xffffff));
  PutIcrc(buf, kAckFrameLen);
  return kAckFrameLen;
}

bool ParseRoce(const uint8_t* frame, uint32_t len, RoceHeader* out) {
  if (len < kRoceHdrLen + kIcrcLen || Get16(frame + 12) != 0x0800) return false;
  const uint8_t* ip = frame + kIp;
  if (ip[0] != 0x45 || ip[9] != 17 || Get16(frame + kUdp + 2) != kRoceV2Port) return false;
  *out = RoceHeader{};
  // A frame beyond its datagram (a trailer, padding) is read to the
  // datagram's end, as a receiver's IP layer trims it; one shorter than
  // its datagram fails the ICRC below.
  const uint32_t end = kIp + Get16(ip + 2);
  if (end < len && end >= kRoceHdrLen + kIcrcLen) len = end;
  out->datagram_end = len;
  out->src_ip = Get32(ip + 12);
  out->dscp = ip[1] >> 2;
  out->ecn = ip[1] & 3;
  const uint8_t* bth = frame + kBth;
  out->opcode = bth[0];
  out->dest_qp = Get32(bth + 4) & 0xffffff;
  out->becn = bth[4] & 0x40;
  out->ack_req = bth[8] & 0x80;
  out->psn = Get32(bth + 8) & 0xffffff;
  const uint8_t* f = frame + len - kIcrcLen;
  const uint32_t stored = f[0] | f[1] << 8 | f[2] << 16 | uint32_t{f[3]} << 24;
  out->icrc_ok = stored == RoceIcrc(frame, len);
  const uint32_t body = len - kRoceHdrLen - kIcrcLen;  // between the BTH and the ICRC
  if (out->opcode == kBthOpAck) {
    out->complete = body >= kAethLen;
    if (!out->complete) return true;
    out->has_aeth = true;
    out->syndrome = frame[kRoceHdrLen];
    out->msn = Get32(frame + kRoceHdrLen) & 0xffffff;
  } else if (IsWrite(out->opcode)) {
    const uint32_t ext = HasReth(out->opcode) ? kRethLen : 0;
    const uint32_t pad = bth[1] >> 4 & 3;
    out->complete = body >= ext + pad;
    if (!out->complete) return true;
    out->payload = body - ext - pad;
    if (out->payload >= 8) {
      out->has_stamp = true;
      out->stamp_ns = Get64(frame + kRoceHdrLen + ext);
    }
  } else {
    out->complete = out->opcode == kBthOpCnp && body >= 16;
  }
  return true;
}

}  // namespace pfc::emulator
