// SPDX-License-Identifier: BSD-3-Clause
// PFC / PAUSE frame builder and classifier. See pfc_frame.h.
#include "dataplane/pause/pfc_frame.h"

#include <cstring>

#include "dataplane/net/be_bytes.h"

namespace pfc::pause {
namespace {

using net::be::Get16;
using net::be::Put16;

}  // namespace

size_t BuildPfcFrame(const std::array<uint8_t, 6>& src_mac, const PauseRequest& req, uint8_t* out,
                     size_t cap) {
  if (out == nullptr || cap < kPfcFrameLen) return 0;
  std::memset(out, 0, kPfcFrameLen);
  std::memcpy(out, kPfcDstMac.data(), 6);
  std::memcpy(out + 6, src_mac.data(), 6);
  Put16(out + 12, kMacCtlEtherType);
  Put16(out + 14, kMacCtlOpPfc);
  Put16(out + 16, req.class_enable);  // high (reserved) octet stays 0
  for (int i = 0; i < 8; ++i) Put16(out + 18 + 2 * i, req.quanta[i]);
  return kPfcFrameLen;
}

MacCtlKind ParseMacControl(const uint8_t* frame, size_t len, PauseRequest* req,
                           const std::array<uint8_t, 6>* port_mac) {
  if (frame == nullptr || len < kPfcFrameLen || len > kPfcFrameLenWithFcs)
    return MacCtlKind::kMalformed;
  if (Get16(frame + 12) != kMacCtlEtherType) return MacCtlKind::kMalformed;
  const bool to_group = std::memcmp(frame, kPfcDstMac.data(), 6) == 0;
  const uint16_t op = Get16(frame + 14);
  if (op == kMacCtlOpPfc) {
    if (!to_group) return MacCtlKind::kMalformed;
    req->class_enable = frame[17];
    req->reserved_octet = frame[16];  // ignored, only reported (see pfc_frame.h)
    for (int i = 0; i < 8; ++i) req->quanta[i] = Get16(frame + 18 + 2 * i);
    return MacCtlKind::kPfc;
  }
  if (op == kMacCtlOpPause) {
    const bool to_port = port_mac && std::memcmp(frame, port_mac->data(), 6) == 0;
    if (!to_group && !to_port) return MacCtlKind::kMalformed;
    req->class_enable = 0xff;
    req->reserved_octet = 0;
    req->quanta.fill(Get16(frame + 16));
    return MacCtlKind::kPause;
  }
  return MacCtlKind::kMalformed;
}

}  // namespace pfc::pause
