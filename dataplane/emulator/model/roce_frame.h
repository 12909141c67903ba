// SPDX-License-Identifier: BSD-3-Clause
// RoCEv2 frames the emulated NICs send and read (InfiniBand Architecture
// Specification Vol. 1 Annex A17, "RoCEv2"): Ethernet, IPv4, UDP to port
// 4791, the 12-byte Base Transport Header (BTH), the opcode's extension
// headers and payload, and the 4-byte invariant CRC (ICRC). tshark's
// InfiniBand dissector decodes all three kinds the emulated NICs send:
//  * RC RDMA WRITE First / Middle / Last / Only (opcodes 0x06-0x08, 0x0a):
//    BTH (AckReq on a message's last packet, PadCnt), the RDMA Extended
//    Transport Header (RETH: virtual address, R_Key, DMA length) on First
//    and Only, the payload padded to 4 bytes; the payload's first 8 bytes
//    carry the send time (ns, big-endian) for the receiver's delay figures;
//  * RC Acknowledge (0x11) with the ACK Extended Transport Header (AETH:
//    syndrome, MSN), an ACK (syndrome 0x1f: credits not counted) or a NAK
//    "PSN sequence error" (0x60);
//  * the Congestion Notification Packet (CNP, opcode 0x81) that a DCQCN
//    notification point sends: BTH with the destination QP, 16 reserved
//    bytes.
//
// ICRC: CRC-32 (the Ethernet polynomial, as zlib computes it; ISA-L's
// PCLMULQDQ version here) over 8 bytes
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

namespace pfc::emulator {

inline constexpr uint16_t kRoceV2Port = 4791;
inline constexpr uint8_t kBthOpWriteFirst = 0x06, kBthOpWriteMiddle = 0x07, kBthOpWriteLast = 0x08,
                         kBthOpWriteOnly = 0x0a, kBthOpAck = 0x11, kBthOpCnp = 0x81;
inline constexpr uint8_t kAethAck = 0x1f;        // ACK, credit count "invalid" (not counted)
inline constexpr uint8_t kAethNakPsnSeq = 0x60;  // NAK: PSN sequence error
inline constexpr uint32_t kBthLen = 12, kRethLen = 16, kAethLen = 4, kIcrcLen = 4;
inline constexpr uint32_t kRoceHdrLen = 14 + 20 + 8 + kBthLen;               // 54
inline constexpr uint32_t kCnpFrameLen = kRoceHdrLen + 16 + kIcrcLen;        // 74
inline constexpr uint32_t kAckFrameLen = kRoceHdrLen + kAethLen + kIcrcLen;  // 62
inline constexpr uint32_t kRoceMaxFrameLen = kRoceHdrLen + kRethLen + 4096 + kIcrcLen;

// Who a frame goes from and to.
struct RoceAddr {
  std::array<uint8_t, 6> dst_mac{}, src_mac{};
  uint32_t src_ip = 0, dst_ip = 0;  // host order
  uint8_t dscp = 48;                // the class (ConnectX sends CNPs on 48)
  uint8_t ecn = 0;                  // the ECN field as sent
  uint16_t src_port = 0xc000;       // UDP source port: ECMP entropy
  uint32_t dest_qp = 0;             // 24 bits: the QP the frame is for
  uint16_t ip_id = 0;
  // BTH BECN (backward explicit congestion notification): set on the ACK
  // of a CE-marked packet, InfiniBand's way back to the sender (DCTCP's
  // echo here); ICRC-masked, as a switch may set it.
  bool becn = false;
};
using CnpSpec = RoceAddr;

// Builds a CNP into buf (at least kCnpFrameLen bytes); returns its length.
uint32_t BuildCnp(const RoceAddr& s, uint8_t* buf);

// One RC RDMA WRITE packet.
struct RoceWrite {
  uint8_t opcode = kBthOpWriteOnly;  // First, Middle, Last or Only
  bool ack_req = false;
  uint32_t psn = 0;       // 24 bits
  uint32_t payload = 0;   // bytes, 0..4096
  uint64_t va = 0;        // RETH (First and Only): where the message goes
  uint32_t rkey = 0;      // RETH
  uint32_t dma_len = 0;   // RETH: the message's length
  uint64_t stamp_ns = 0;  // send time, in the payload when it has 8 bytes
};
// The frame length of such a packet (no FCS).
uint32_t RoceWriteLen(uint8_t opcode, uint32_t payload);
// Builds it into buf; returns its length, or 0 when cap is too small.
uint32_t BuildWrite(const RoceAddr& a, const RoceWrite& w, uint8_t* buf, uint32_t cap);
// Builds an ACK (syndrome kAethAck, psn: the last taken) or a NAK
// (kAethNakPsnSeq, psn: the expected one) into buf (kAckFrameLen bytes).
uint32_t BuildAck(const RoceAddr& a, uint8_t syndrome, uint32_t psn, uint32_t msn, uint8_t* buf);

// What a received frame is, as far as RoCEv2 goes.
struct RoceHeader {
  uint8_t opcode = 0;
  uint32_t dest_qp = 0;
  uint32_t psn = 0;
  bool ack_req = false;
  bool icrc_ok = false;
  bool complete = false;  // the opcode's extension headers and padding fit
  uint32_t src_ip = 0;
  uint8_t dscp = 0, ecn = 0;
  // Only when has_aeth (an Acknowledge) / a WRITE:
  bool has_aeth = false;
  uint8_t syndrome = 0;
  uint32_t msn = 0;
  uint32_t payload = 0;  // WRITE payload bytes (without padding)
  bool has_stamp = false;
  uint64_t stamp_ns = 0;
  bool becn = false;
  // Where the IPv4 datagram ends: a frame longer than that has a trailer
  // there (an INT trailer, net/int_trailer.h, or padding), which every
  // RoCEv2 check here leaves out, as a real receiver trims it.
  uint32_t datagram_end = 0;
};
// True when frame is IPv4/UDP to port 4791 with a BTH and an ICRC;
// `complete` says whether the extension headers of its opcode (for the
// opcodes above) and its padding fit too.
bool ParseRoce(const uint8_t* frame, uint32_t len, RoceHeader* out);
// True for the RDMA WRITE opcodes above.
inline bool IsWrite(uint8_t op) {
  return op >= kBthOpWriteFirst && op <= kBthOpWriteOnly && op != 0x09;
}
inline bool IsLastOrOnly(uint8_t op) { return op == kBthOpWriteLast || op == kBthOpWriteOnly; }
inline bool HasReth(uint8_t op) { return op == kBthOpWriteFirst || op == kBthOpWriteOnly; }

// The ICRC of a RoCEv2 frame of `len` bytes (Ethernet header included,
// no FCS) whose last 4 bytes are the ICRC field, over an IPv4 header of
// 20 bytes; as stored (read the field little-endian to compare).
uint32_t RoceIcrc(const uint8_t* frame, uint32_t len);

}  // namespace pfc::emulator
