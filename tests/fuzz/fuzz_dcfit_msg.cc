// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the DCFIT checking-message decoder and what a switch
// does with a decoded message. The input is one received frame, from the
// destination MAC. Checks, aborting on a violation:
//  * DecodeMsg on the raw bytes and ParseFrameMsg on the frame accept only
//    what message.h documents (magic, version 1, checksum, fields in range),
//    and a decoded message re-encodes to exactly the bytes it came from;
//  * a frame with a message is a PFC frame that BuildPfcWithMsg rebuilds
//    byte for byte (the vector's reserved octet aside, sent as 0);
//  * a detector fed the message (as an XOFF, an XON and a standalone
//    checking packet, on a switch with traffic queued and ports pausing)
//    only asks to send on its own ports, at most one message per port per
//    input plus one piggyback, and never for a priority it does not track.
#include <cstdint>
#include <cstring>

#include "dataplane/dcfit/detector.h"
#include "dataplane/dcfit/message.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace pfc;
using namespace pfc::dcfit;

constexpr int kPorts = 4;
constexpr int kPrio = 3;

void CheckReencodes(const uint8_t* p, const CheckMsg& m) {
  uint8_t again[kMsgLen];
  FUZZ_CHECK(EncodeMsg(m, again, sizeof again) == kMsgLen);
  FUZZ_CHECK(std::memcmp(again, p, kMsgLen) == 0);
  FUZZ_CHECK(m.prio < 8 && m.gen_port < 64 && m.tri_port < 64 && (m.flags & ~kAllFlags) == 0);
}

void CheckOutput(const Output& out) {
  FUZZ_CHECK(out.msgs.size() <= kPorts + 1);
  for (const OutMsg& o : out.msgs) {
    FUZZ_CHECK(o.port < kPorts);
    FUZZ_CHECK(o.msg.prio == kPrio);
    uint8_t b[kMsgLen];
    FUZZ_CHECK(EncodeMsg(o.msg, b, sizeof b) == kMsgLen);  // always sendable
  }
}

// A switch (id 1 .. 3, from the input) where every port has traffic to every
// other, ports 1 and 2 pause their upstream, and port 3 is paused.
void Feed(const CheckMsg& m, uint8_t shape) {
  Detector d;
  DetectorConfig c;
  c.self = static_cast<SwitchId>(1 + shape % 3);
  c.num_ports = kPorts;
  c.lossless_mask = 1 << kPrio;
  std::string err;
  FUZZ_CHECK(d.Configure(c, &err));
  for (PortId in = 0; in < kPorts; ++in)
    for (PortId o = 0; o < kPorts; ++o)
      if (in != o) d.causality().OnEnqueue(in, o, kPrio);
  Output out;
  d.OnPfcReceived(3, kPrio, RxKind::kXoff, nullptr, 1, &out);
  d.OnXoffSent(1, kPrio, 2, &out);
  d.OnXoffSent(2, kPrio, 3, &out);
  CheckOutput(out);
  const PortId e = static_cast<PortId>((shape >> 2) % kPorts);
  for (RxKind k : {RxKind::kXoff, RxKind::kCheckOnly, RxKind::kXoff, RxKind::kXon}) {
    out.clear();
    d.OnPfcReceived(e, m.prio, k, &m, 10, &out);
    CheckOutput(out);
  }
  out.clear();
  d.Tick(~uint64_t{0}, &out);
  CheckOutput(out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CheckMsg raw;
  if (DecodeMsg(data, size, &raw) == MsgStatus::kOk) {
    FUZZ_CHECK(size >= kMsgLen);
    CheckReencodes(data, raw);
  }
  pause::PauseRequest req;
  CheckMsg m;
  const MsgStatus st = ParseFrameMsg(data, size, &req, &m);
  if (st != MsgStatus::kNotPfc)
    FUZZ_CHECK(pause::ParseMacControl(data, size, &req) == pause::MacCtlKind::kPfc);
  if (st != MsgStatus::kOk) return 0;
  CheckReencodes(data + kMsgOffset, m);
  uint8_t f[pause::kPfcFrameLen];
  std::array<uint8_t, 6> src;
  std::memcpy(src.data(), data + 6, 6);
  FUZZ_CHECK(BuildPfcWithMsg(src, req, m, f, sizeof f) == pause::kPfcFrameLen);
  FUZZ_CHECK(std::memcmp(f, data, 16) == 0 && f[16] == 0);
  FUZZ_CHECK(std::memcmp(f + 17, data + 17, kMsgOffset + kMsgLen - 17) == 0);
  Feed(m, size > kMsgOffset + kMsgLen ? data[kMsgOffset + kMsgLen] : 0);
  return 0;
}
