// SPDX-License-Identifier: BSD-3-Clause
// DCFIT checking-message codec. See message.h for the format.
#include "dataplane/dcfit/message.h"

#include <cstring>

#include "dataplane/common/types.h"
#include "dataplane/net/be_bytes.h"

namespace pfc::dcfit {
namespace {

using net::be::Get16;
using net::be::Put16;

// Internet checksum of the message's first 18 bytes.
uint16_t Checksum(const uint8_t* p) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < kMsgLen - 2; i += 2) sum += Get16(p + i);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

bool FieldsValid(uint8_t prio, uint8_t gen_port, uint8_t tri_port, uint8_t flags) {
  return prio < kNumPrio && gen_port < kMaxPorts && tri_port < kMaxPorts &&
         (flags & ~kAllFlags) == 0;
}

}  // namespace

size_t EncodeMsg(const CheckMsg& m, uint8_t* out, size_t cap) {
  if (out == nullptr || cap < kMsgLen) return 0;
  if (!FieldsValid(m.prio, m.gen_port, m.tri_port, m.flags)) return 0;
  std::memcpy(out, kMagic.data(), kMagic.size());
  out[4] = kVersion;
  out[5] = m.flags;
  out[6] = m.prio;
  out[7] = m.hops;
  Put16(out + 8, m.gen_sw);
  out[10] = m.gen_port;
  out[11] = m.tri_port;
  Put16(out + 12, m.tri_sw);
  Put16(out + 14, static_cast<uint16_t>(m.seq >> 16));
  Put16(out + 16, static_cast<uint16_t>(m.seq));
  Put16(out + 18, Checksum(out));
  return kMsgLen;
}

MsgStatus DecodeMsg(const uint8_t* p, size_t len, CheckMsg* out) {
  if (p == nullptr || len < kMagic.size() || std::memcmp(p, kMagic.data(), kMagic.size()) != 0)
    return MsgStatus::kNone;
  if (len < kMsgLen) return MsgStatus::kTruncated;
  if (p[4] != kVersion) return MsgStatus::kBadVersion;
  if (Get16(p + 18) != Checksum(p)) return MsgStatus::kBadChecksum;
  if (!FieldsValid(p[6], p[10], p[11], p[5])) return MsgStatus::kBadField;
  out->flags = p[5];
  out->prio = p[6];
  out->hops = p[7];
  out->gen_sw = Get16(p + 8);
  out->gen_port = p[10];
  out->tri_port = p[11];
  out->tri_sw = Get16(p + 12);
  out->seq = static_cast<uint32_t>(Get16(p + 14)) << 16 | Get16(p + 16);
  return MsgStatus::kOk;
}

size_t BuildPfcWithMsg(const std::array<uint8_t, 6>& src_mac, const pause::PauseRequest& req,
                       const CheckMsg& m, uint8_t* out, size_t cap) {
  if (pause::BuildPfcFrame(src_mac, req, out, cap) != pause::kPfcFrameLen) return 0;
  if (EncodeMsg(m, out + kMsgOffset, pause::kPfcFrameLen - kMsgOffset) != kMsgLen) return 0;
  return pause::kPfcFrameLen;
}

size_t BuildCheckingPacket(const std::array<uint8_t, 6>& src_mac, const CheckMsg& m, uint8_t* out,
                           size_t cap) {
  return BuildPfcWithMsg(src_mac, pause::PauseRequest{}, m, out, cap);
}

MsgStatus ParseFrameMsg(const uint8_t* frame, size_t len, pause::PauseRequest* req, CheckMsg* out) {
  if (pause::ParseMacControl(frame, len, req) != pause::MacCtlKind::kPfc) return MsgStatus::kNotPfc;
  // ParseMacControl guarantees len >= 60 > kMsgOffset.
  return DecodeMsg(frame + kMsgOffset, len - kMsgOffset, out);
}

}  // namespace pfc::dcfit
