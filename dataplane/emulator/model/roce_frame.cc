// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/roce_frame.h"

#include <zlib.h>

#include <cstring>

#include "dataplane/net/be_bytes.h"
#include "dataplane/net/ipv4_edit.h"

namespace pfc::emu {
namespace {

using be::Get16;
using be::Put16;
using be::Put32;

constexpr uint32_t kIp = 14, kUdp = kIp + 20, kBth = kUdp + 8;

}  // namespace

uint32_t RoceIcrc(const uint8_t* frame, uint32_t len) {
  // The invariant part of the headers, with the variant fields masked.
  uint8_t hdr[8 + 20 + 8 + kBthLen];
  std::memset(hdr, 0xff, 8);
  std::memcpy(hdr + 8, frame + kIp, 20 + 8 + kBthLen);
  uint8_t* ip = hdr + 8;
  ip[1] = 0xff;                    // TOS: DSCP and ECN
  ip[8] = 0xff;                    // TTL
  ip[10] = ip[11] = 0xff;          // header checksum
  ip[20 + 6] = ip[20 + 7] = 0xff;  // UDP checksum
  ip[28 + 4] = 0xff;               // BTH reserved byte (FECN/BECN in InfiniBand)
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, hdr, sizeof hdr);
  const uint32_t rest = len - kBth - kBthLen - kIcrcLen;
  crc = crc32(crc, frame + kBth + kBthLen, rest);
  return static_cast<uint32_t>(crc);
}

uint32_t BuildCnp(const CnpSpec& s, uint8_t* buf) {
  std::memset(buf, 0, kCnpFrameLen);
  std::memcpy(buf, s.dst_mac.data(), 6);
  std::memcpy(buf + 6, s.src_mac.data(), 6);
  Put16(buf + 12, 0x0800);
  uint8_t* ip = buf + kIp;
  ip[0] = 0x45;
  ip[1] = static_cast<uint8_t>(s.dscp << 2);  // Not-ECT: a CNP is not marked
  Put16(ip + 2, static_cast<uint16_t>(kCnpFrameLen - kIp));
  Put16(ip + 6, 0x4000);  // DF
  ip[8] = 64;
  ip[9] = 17;
  Put32(ip + 12, s.src_ip);
  Put32(ip + 16, s.dst_ip);
  const uint16_t csum = Ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &csum, 2);
  uint8_t* udp = buf + kUdp;
  Put16(udp, s.src_port);
  Put16(udp + 2, kRoceV2Port);
  Put16(udp + 4, static_cast<uint16_t>(kCnpFrameLen - kUdp));
  // UDP checksum 0: not used over IPv4 (RoCEv2 allows it).
  uint8_t* bth = buf + kBth;
  bth[0] = kBthOpCnp;
  bth[1] = 0;                            // SE, MigReq, PadCnt, TVer
  Put16(bth + 2, 0xffff);                // P_Key: the default partition
  Put32(bth + 4, s.dest_qp & 0xffffff);  // reserved byte, then the QP
  // bytes 8..11: AckReq, reserved, PSN 0; then 16 reserved bytes.
  const uint32_t icrc = RoceIcrc(buf, kCnpFrameLen);
  uint8_t* f = buf + kCnpFrameLen - kIcrcLen;
  for (int i = 0; i < 4; i++) f[i] = static_cast<uint8_t>(icrc >> (8 * i));
  return kCnpFrameLen;
}

bool ParseRoce(const uint8_t* frame, uint32_t len, RoceHeader* out) {
  if (len < kBth + kBthLen + kIcrcLen || Get16(frame + 12) != 0x0800) return false;
  const uint8_t* ip = frame + kIp;
  if (ip[0] != 0x45 || ip[9] != 17 || Get16(frame + kUdp + 2) != kRoceV2Port) return false;
  const uint8_t* bth = frame + kBth;
  out->opcode = bth[0];
  out->dest_qp = uint32_t{bth[5]} << 16 | uint32_t{bth[6]} << 8 | bth[7];
  out->psn = uint32_t{bth[9]} << 16 | uint32_t{bth[10]} << 8 | bth[11];
  const uint8_t* f = frame + len - kIcrcLen;
  const uint32_t stored = f[0] | f[1] << 8 | f[2] << 16 | uint32_t{f[3]} << 24;
  out->icrc_ok = stored == RoceIcrc(frame, len);
  return true;
}

}  // namespace pfc::emu
