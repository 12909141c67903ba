// SPDX-License-Identifier: BSD-3-Clause
// RoCEv2 frames the emulated NICs send and read (InfiniBand Architecture
// Specification Vol. 1 Annex A17, "RoCEv2"): Ethernet, IPv4, UDP to port
// 4791, the 12-byte Base Transport Header (BTH), the opcode's extension
// headers and payload, and the 4-byte invariant CRC (ICRC). For now the
// Congestion Notification Packet (CNP, opcode 0x81) that a DCQCN
// notification point sends: BTH with the destination QP, 16 reserved
// bytes, the ICRC; tshark's InfiniBand dissector decodes it.
//
// ICRC: CRC-32 (the Ethernet polynomial, as zlib computes it) over 8 bytes
// of 0xff standing for the absent LRH, then the IPv4 header with TOS, TTL
// and checksum set to all ones, the UDP header with its checksum all ones,
// the BTH with its reserved byte (after the P_Key) all ones, and the rest
// of the packet; stored least significant byte first. The fields masked are
// the ones a switch may change on the way (ECN marks, TTL, DSCP rewrites).
//
// Pure code: frames are built into and read from caller buffers.
#pragma once
#include <array>
#include <cstdint>

namespace pfc::emu {

inline constexpr uint16_t kRoceV2Port = 4791;
inline constexpr uint8_t kBthOpCnp = 0x81;
inline constexpr uint32_t kBthLen = 12, kIcrcLen = 4;
inline constexpr uint32_t kCnpFrameLen = 14 + 20 + 8 + kBthLen + 16 + kIcrcLen;  // 74

struct CnpSpec {
  std::array<uint8_t, 6> dst_mac{}, src_mac{};
  uint32_t src_ip = 0, dst_ip = 0;  // host order
  uint8_t dscp = 48;                // the CNP class (ConnectX default 48)
  uint16_t src_port = 0xc000;       // UDP source port: ECMP entropy
  uint32_t dest_qp = 0;             // 24 bits: the QP the sender is told about
};

// Builds a CNP into buf (at least kCnpFrameLen bytes); returns its length.
uint32_t BuildCnp(const CnpSpec& s, uint8_t* buf);

// What a received frame is, as far as RoCEv2 goes.
struct RoceHeader {
  uint8_t opcode = 0;
  uint32_t dest_qp = 0;
  uint32_t psn = 0;
  bool icrc_ok = false;
};
// True when frame is IPv4/UDP to port 4791 with a complete BTH.
bool ParseRoce(const uint8_t* frame, uint32_t len, RoceHeader* out);

// The ICRC of a RoCEv2 frame of `len` bytes (Ethernet header included,
// no FCS) whose last 4 bytes are the ICRC field, over an IPv4 header of
// 20 bytes; as stored (read the field little-endian to compare).
uint32_t RoceIcrc(const uint8_t* frame, uint32_t len);

}  // namespace pfc::emu
