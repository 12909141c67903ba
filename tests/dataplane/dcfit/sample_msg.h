// SPDX-License-Identifier: BSD-3-Clause
// One checking message with every field distinct and non-zero (a port at
// its maximum, 63), shared by the codec tests and the tshark frames.
#pragma once
#include "dataplane/dcfit/message.h"

namespace pfc::dcfit {

inline CheckMsg SampleMsg() {
  CheckMsg m;
  m.gen_sw = 0x1234;
  m.gen_port = 63;
  m.seq = 0xa1b2c3d4;
  m.tri_sw = 0x0a0b;
  m.tri_port = 7;
  m.prio = 3;
  m.flags = kTriggerHost | kMiddle;
  m.hops = 4;
  return m;
}

}  // namespace pfc::dcfit
