// SPDX-License-Identifier: BSD-3-Clause
// DCFIT checking messages (DCFIT §3.2, Table 1): what a switch tells its
// upstream neighbour about the pause chain a pause frame belongs to, and the
// only place their wire format is defined. Pure and stateless: any worker
// encodes into or decodes from bytes it owns; nothing here reads past
// frame + len or writes past out + cap, whatever the bytes (fuzzed by
// tests/fuzz/fuzz_dcfit_msg.cc).
//
// A message carries {S_gen-ini, P_gen-ini, Seq} (the generic initiator of a
// detection episode and the episode's number) and {S_tri, P_tri} (the initial
// trigger of the pause chain), plus the priority of the chain, a hop count
// and three flags:
//   kSecondPass     the temporal-consistency pass (§3.2); clear: the first,
//                   causality-loop pass;
//   kTriggerHost    the initial trigger is the host (or any peer that sends
//                   pause without a message) behind port P_tri of switch
//                   S_tri, not the switch itself (§3.1: a server that pauses
//                   is an initial trigger by definition);
//   kMiddle         the generic initiator is a middle switch (§3.4), not the
//                   initial trigger (informational; the state machine keys
//                   its own episodes by it so that the two kinds never mix);
//   kNotice         a trigger notice (trigger_handler.h), not a checking
//                   message: a deadlock was declared whose initial trigger is
//                   {S_tri, P_tri} (with kTriggerHost as in the episode);
//                   S_gen-ini/P_gen-ini/Seq name the declaring switch, port
//                   and episode; hops counts the switches it crossed. It
//                   travels hop by hop towards S_tri, always in a standalone
//                   checking packet, and never enters the detector.
// No RESUME flag travels: a resume is the XON itself (quanta 0 for the
// message's priority), and a switch drops its stored message and sets the
// port's RESUME tag when it receives one. XON frames carry no message.
//
// Wire format: 20 bytes, big-endian, at offset 34 of a 802.1Qbb PFC frame,
// i.e. in the zero padding right after the eight quanta (pfc_frame.h), so the
// frame stays a valid 60-byte (64 on the wire) PFC frame that peers without
// DCFIT, and tshark, accept and honour unchanged:
//   34 magic 'D' 'C' 'F' 'T' (0x44 0x43 0x46 0x54)
//   38 version (1)          39 flags (bits above kAllFlags must be 0)
//   40 priority (0..7)      41 hops (switches the message crossed)
//   42 S_gen-ini (16 bits)  44 P_gen-ini (0..63)   45 P_tri (0..63)
//   46 S_tri (16 bits)      48 Seq (32 bits)
//   52 checksum: the 16-bit ones' complement of the ones' complement sum of
//      the nine 16-bit words at 34..51 (the Internet checksum), so stray
//      padding that happens to start with the magic is not taken for a
//      message;
//   54..59 zero.
// 16-bit switch IDs and 6-bit port IDs cover the paper's 10,000 64-port
// switches (§5: 14 + 6 bits); a 32-bit Seq does not wrap within any run.
//
// Standalone checking packet (§3.3: "piggybacked onto a synthesized packet"
// when no new pause frame is generated): the same PFC frame with an all-zero
// class-enable vector and zero quanta, the message in its padding. Chosen over
// a frame of its own ethertype because: a vector of zero means "no change for
// any priority" to every 802.1Qbb receiver, so a peer without DCFIT ignores
// it harmlessly; a MAC control frame to 01:80:c2:00:00:01 is never relayed by
// a bridge, so a message never leaks past one hop; it leaves ahead of data
// and is never held by pause (the switch sends control frames that way), so
// it crosses a paused link, which is exactly when DCFIT needs it; and one
// codec and one dissector read both forms. The cost: a peer counts it as a
// received PFC frame.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "dataplane/common/named_enum.h"
#include "dataplane/pause/pfc_frame.h"

namespace pfc::dcfit {

using SwitchId = uint16_t;

inline constexpr std::array<uint8_t, 4> kMagic = {0x44, 0x43, 0x46, 0x54};  // "DCFT"
inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kMsgOffset = 34;  // first padding byte of a PFC frame
inline constexpr size_t kMsgLen = 20;

enum MsgFlag : uint8_t {
  kSecondPass = 1 << 0,
  kTriggerHost = 1 << 1,
  kMiddle = 1 << 2,
  kNotice = 1 << 3,
  kAllFlags = kSecondPass | kTriggerHost | kMiddle | kNotice,
};

struct CheckMsg {
  SwitchId gen_sw = 0;   // S_gen-ini
  uint8_t gen_port = 0;  // P_gen-ini: the initiator's port that paused its upstream
  uint32_t seq = 0;      // Seq_id: the initiator's episode
  SwitchId tri_sw = 0;   // S_tri
  uint8_t tri_port = 0;  // P_tri
  uint8_t prio = 0;      // the lossless priority of the pause chain
  uint8_t flags = 0;     // MsgFlag bits
  uint8_t hops = 0;      // switches crossed since the initiator (saturates at 255)

  bool SameGen(const CheckMsg& o) const { return gen_sw == o.gen_sw && gen_port == o.gen_port; }
  bool SameEpisode(const CheckMsg& o) const {
    return SameGen(o) && seq == o.seq && (flags & kMiddle) == (o.flags & kMiddle);
  }
  bool SameTrigger(const CheckMsg& o) const {
    return tri_sw == o.tri_sw && tri_port == o.tri_port &&
           (flags & kTriggerHost) == (o.flags & kTriggerHost);
  }
  bool operator==(const CheckMsg&) const = default;
};

#define PFC_DCFIT_MSG_STATUS(X)                                                   \
  X(kOk, "ok")                                                                    \
  X(kNone, "none")                /* no magic: an ordinary PFC frame (not an      \
                                     error) */                                    \
  X(kTruncated, "truncated")      /* the magic is there but the message does not  \
                                     fit in len */                                \
  X(kBadVersion, "bad_version")   /* a version this switch does not speak */      \
  X(kBadChecksum, "bad_checksum") /* corrupted, or padding that only looks like a \
                                     message */                                   \
  X(kBadField, "bad_field")       /* priority > 7, a port >= 64, or an unknown    \
                                     flag */                                      \
  X(kNotPfc, "not_pfc")           /* (frame functions) not a PFC frame per        \
                                     ParseMacControl */
PFC_NAMED_ENUM(MsgStatus, MsgStatusName, PFC_DCFIT_MSG_STATUS)

// Writes the 20-byte message at out[0..20). Returns 20, or 0 when cap < 20 or
// a field is out of range (the same rules DecodeMsg enforces).
size_t EncodeMsg(const CheckMsg& m, uint8_t* out, size_t cap);
// Reads a message at p[0..len).
MsgStatus DecodeMsg(const uint8_t* p, size_t len, CheckMsg* out);

// A 60-byte PFC frame with `req` and the message in its padding. Returns 60,
// or 0 (cap too small, a field out of range).
size_t BuildPfcWithMsg(const std::array<uint8_t, 6>& src_mac, const pause::PauseRequest& req,
                       const CheckMsg& m, uint8_t* out, size_t cap);
// The standalone checking packet: a PFC frame with class-enable vector 0.
size_t BuildCheckingPacket(const std::array<uint8_t, 6>& src_mac, const CheckMsg& m, uint8_t* out,
                           size_t cap);
// The message of a received frame (from the destination MAC, 60..64 bytes):
// kNotPfc unless ParseMacControl calls it PFC; then *req is filled and the
// padding is decoded. A frame with kOk and req->class_enable == 0 is a
// standalone checking packet.
MsgStatus ParseFrameMsg(const uint8_t* frame, size_t len, pause::PauseRequest* req, CheckMsg* out);

}  // namespace pfc::dcfit
