// SPDX-License-Identifier: BSD-3-Clause
// IEEE 802.1Qbb Priority-based Flow Control frames: build one, and classify a
// received MAC control frame (ethertype 0x8808) as PFC, classic IEEE 802.3x
// PAUSE, or malformed. Pure and stateless: any worker calls it on bytes it
// owns; it never reads past frame + len and never writes past out + cap.
//
// Wire format (both are MAC control frames, IEEE 802.3 Clause 31; PFC adds
// opcode 0x0101 in 802.1Qbb; PAUSE is Annex 31B):
//   0  dst 01:80:c2:00:00:01        6  src = the sending port's MAC
//   12 ethertype 0x8808             14 opcode (0x0101 PFC, 0x0001 PAUSE)
//   PFC:   16 class-enable vector (16 bits; the high octet is reserved,
//             sent as 0 and ignored on receipt), 18 eight 16-bit quanta
//             time[0..7], one per priority, big-endian
//   PAUSE: 16 one 16-bit pause_time for the whole link
//   zero padding to 60 bytes; the device appends the 4-byte FCS (64 on wire).
// A quanta unit is the time to send 512 bits at the port speed; 0 = resume.
// Received frames are consumed by the switch, never forwarded; everything a
// ParseMacControl() calls malformed is counted as DropReason::kPfcMalformed.
//
// Reserved vector bits set on receipt: the PFC PDU (IEEE 802.1Qbb, frame
// format in IEEE 802.3 Annex 31D) defines only the low octet of the vector,
// e[0..7]; the high octet is reserved: transmitted as zero and ignored on
// receipt. The switch follows the standard and honours the eight defined
// classes of such a frame exactly as if the octet were zero. Dropping it as
// malformed instead would turn a cosmetic fault of the peer into lost pause
// requests, i.e. into packet loss on a lossless class. The octet is reported
// (PauseRequest::reserved_octet) so the glue counts the frame
// (pfc_reserved_bits_rx, per port) and a user sees a peer that does not
// follow the standard, as tshark's warning shows it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace pfc::pause {

inline constexpr std::array<uint8_t, 6> kPfcDstMac = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
inline constexpr uint16_t kMacCtlEtherType = 0x8808;
inline constexpr uint16_t kMacCtlOpPause = 0x0001;  // IEEE 802.3x, Annex 31B
inline constexpr uint16_t kMacCtlOpPfc = 0x0101;    // IEEE 802.1Qbb
inline constexpr size_t kPfcFrameLen = 60;          // without FCS
inline constexpr size_t kPfcFrameLenWithFcs = 64;

// What a frame asks for, per priority: bit i of class_enable set means
// "priority i: pause for quanta[i] (0 = resume now)"; clear means "no
// change for priority i" (its quanta are ignored).
struct PauseRequest {
  uint8_t class_enable = 0;
  std::array<uint16_t, 8> quanta{};
  // Received only: the vector's reserved high octet as the peer sent it
  // (ignored for pausing; non-zero means a misbehaving peer). BuildPfcFrame()
  // always sends 0 there.
  uint8_t reserved_octet = 0;
};

// Writes a 60-byte PFC frame into out[0..cap). Returns 60, or 0 when cap is
// too small. Quanta of disabled classes are written as given (the standard
// says the receiver ignores them); callers normally leave them 0.
size_t BuildPfcFrame(const std::array<uint8_t, 6>& src_mac, const PauseRequest& req, uint8_t* out,
                     size_t cap);

enum class MacCtlKind : uint8_t {
  kPfc,        // opcode 0x0101: *req holds the vector and quanta
  kPause,      // opcode 0x0001: *req = all eight priorities, one quanta
  kMalformed,  // not a frame this switch honours: count kPfcMalformed, drop
};

// Classifies a received frame (starting at the destination MAC, len bytes,
// with or without the 4-byte FCS). Malformed: shorter than 60 or longer than
// 64 bytes, destination not 01:80:c2:00:00:01 (a PAUSE may also be addressed
// to port_mac, as 802.3 Annex 31B allows, when port_mac is given), ethertype
// not 0x8808 (including a VLAN-tagged MAC control frame: MAC control is never
// tagged), or any opcode other than PFC / PAUSE.
MacCtlKind ParseMacControl(const uint8_t* frame, size_t len, PauseRequest* req,
                           const std::array<uint8_t, 6>* port_mac = nullptr);

}  // namespace pfc::pause
