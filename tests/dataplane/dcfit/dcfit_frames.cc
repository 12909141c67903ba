// SPDX-License-Identifier: BSD-3-Clause
// Prints, one hex line per frame, PFC frames carrying DCFIT messages as our
// code produces them, for tshark_dcfit_check.py to wrap in a pcap and have
// tshark decode with tools/wireshark/dcfit.lua. The expected decoded fields
// live in the script, not here.
//   1  the XOFF of switch 5, initial trigger on port 1 (from a Detector);
//   2  its XOFF on port 0 caused by a host pausing port 2 (trigger: host);
//   3  a standalone checking packet: SampleMsg (host trigger, middle
//      initiator, every field distinct) on its second pass;
//   4  a plain PFC XOFF, no message;
//   5  frame 3 with one Seq byte corrupted (checksum mismatch).
#include <cstdio>
#include <vector>

#include "dataplane/dcfit/detector.h"
#include "dataplane/dcfit/message.h"
#include "tests/dataplane/dcfit/sample_msg.h"

namespace {

using namespace pfc;
using namespace pfc::dcfit;

constexpr std::array<uint8_t, 6> kSrc = {0x02, 0x00, 0x00, 0x00, 0x00, 0x05};

void Print(const uint8_t* f, size_t n) {
  for (size_t i = 0; i < n; ++i) std::printf("%02x", f[i]);
  std::printf("\n");
}

bool PrintXoff(const CheckMsg* m) {
  pause::PauseRequest r;
  r.class_enable = 1 << 3;
  r.quanta[3] = 0xffff;
  uint8_t f[pause::kPfcFrameLen];
  const size_t n =
      m ? BuildPfcWithMsg(kSrc, r, *m, f, sizeof f) : pause::BuildPfcFrame(kSrc, r, f, sizeof f);
  if (n != pause::kPfcFrameLen) return false;
  Print(f, n);
  return true;
}

}  // namespace

int main() {
  Detector d;
  DetectorConfig c;
  c.self = 5;
  c.num_ports = 4;
  c.lossless_mask = 1 << 3;
  std::string err;
  if (!d.Configure(c, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  d.causality().OnEnqueue(1, 3, 3);  // port 1's packets wait on port 3
  d.causality().OnEnqueue(0, 2, 3);  // port 0's on port 2
  Output out;
  d.OnXoffSent(1, 3, 1000, &out);
  d.OnPfcReceived(2, 3, RxKind::kXoff, nullptr, 2000, &out);  // a host pauses port 2
  d.OnXoffSent(0, 3, 3000, &out);
  if (out.msgs.size() != 2) return 1;
  if (!PrintXoff(&out.msgs[0].msg) || !PrintXoff(&out.msgs[1].msg)) return 1;

  CheckMsg m = SampleMsg();
  m.flags |= kSecondPass;
  uint8_t f[pause::kPfcFrameLen];
  if (BuildCheckingPacket(kSrc, m, f, sizeof f) != pause::kPfcFrameLen) return 1;
  Print(f, sizeof f);
  if (!PrintXoff(nullptr)) return 1;
  f[kMsgOffset + 17] ^= 0x01;
  Print(f, sizeof f);
  return 0;
}
