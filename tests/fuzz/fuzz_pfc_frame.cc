// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the PFC / 802.3x PAUSE decoder (ParseMacControl) and
// what the switch does with a decoded frame (PauseTimer::OnFrame). The input
// is one received frame, from the destination MAC. Checks, aborting on a
// violation:
//  * a frame is accepted only as pfc_frame.h promises (length 60..64,
//    ethertype 0x8808, PFC to 01:80:c2:00:00:01, PAUSE to it or to the
//    port's own MAC), and the request holds exactly the frame's fields;
//  * a decoded PFC request survives BuildPfcFrame -> ParseMacControl;
//  * at every port speed the switch supports, the pause timers do what the
//    request asks: enabled priorities with quanta > 0 are paused for exactly
//    QuantaToNs (rounded up, never shortened), quanta 0 resumes, disabled
//    priorities are untouched.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "dataplane/pause/pause_timer.h"
#include "dataplane/pause/pfc_frame.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace pfc;

uint16_t Get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

constexpr std::array<uint8_t, 6> kPortMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

// Rates a port can be timed at: config speeds and shapers are 1K..1T.
constexpr uint64_t kSpeeds[] = {
    1000,           1'000'000,       100'000'000,     2'500'000'000,    10'000'000'000,
    25'000'000'000, 100'000'000'000, 400'000'000'000, 1'000'000'000'000};

void CheckDecoded(const uint8_t* f, size_t len, pause::MacCtlKind k, const pause::PauseRequest& r,
                  const std::array<uint8_t, 6>* port_mac) {
  if (k == pause::MacCtlKind::kMalformed) return;
  FUZZ_CHECK(len >= pause::kPfcFrameLen && len <= pause::kPfcFrameLenWithFcs);
  FUZZ_CHECK(Get16(f + 12) == pause::kMacCtlEtherType);
  const bool to_group = std::memcmp(f, pause::kPfcDstMac.data(), 6) == 0;
  const bool to_port = port_mac && std::memcmp(f, port_mac->data(), 6) == 0;
  if (k == pause::MacCtlKind::kPfc) {
    FUZZ_CHECK(Get16(f + 14) == pause::kMacCtlOpPfc && to_group);
    FUZZ_CHECK(r.class_enable == f[17]);
    for (int i = 0; i < 8; ++i) FUZZ_CHECK(r.quanta[i] == Get16(f + 18 + 2 * i));
    // Round trip through the builder (the reserved octet is sent as 0).
    std::array<uint8_t, 6> src;
    std::memcpy(src.data(), f + 6, 6);
    uint8_t out[pause::kPfcFrameLen];
    FUZZ_CHECK(pause::BuildPfcFrame(src, r, out, sizeof(out)) == pause::kPfcFrameLen);
    FUZZ_CHECK(std::memcmp(out, f, 16) == 0 && out[16] == 0 &&
               std::memcmp(out + 17, f + 17, 17) == 0);
    pause::PauseRequest again;
    FUZZ_CHECK(pause::ParseMacControl(out, sizeof(out), &again) == pause::MacCtlKind::kPfc);
    FUZZ_CHECK(again.class_enable == r.class_enable && again.quanta == r.quanta);
  } else {
    FUZZ_CHECK(k == pause::MacCtlKind::kPause && Get16(f + 14) == pause::kMacCtlOpPause &&
               (to_group || to_port));
    FUZZ_CHECK(r.class_enable == 0xff);
    for (uint16_t q : r.quanta) FUZZ_CHECK(q == Get16(f + 16));
  }
}

void CheckTimers(const pause::PauseRequest& r) {
  const uint64_t now = 1'000'000;
  for (uint64_t bps : kSpeeds) {
    pause::PauseTimer t;
    FUZZ_CHECK(t.OnFrame(r, now, bps));
    for (int p = 0; p < 8; ++p) {
      const bool on = (r.class_enable >> p) & 1;
      const uint64_t ns = pause::PauseTimer::QuantaToNs(r.quanta[p], bps);
      // ns is the smallest whole number of ns covering quanta x 512 bit times.
      const unsigned __int128 bits =
          static_cast<unsigned __int128>(r.quanta[p]) * 512 * 1'000'000'000;
      FUZZ_CHECK(static_cast<unsigned __int128>(ns) * bps >= bits);
      FUZZ_CHECK(ns == 0 || static_cast<unsigned __int128>(ns - 1) * bps < bits);
      const bool paused = (t.PausedMask(now) >> p) & 1;
      if (on && r.quanta[p] > 0) {
        FUZZ_CHECK(paused && t.PausedUntil(p) == now + ns);
        FUZZ_CHECK(t.xoff_received(p) == 1 && t.xon_received(p) == 0);
      } else {
        FUZZ_CHECK(!paused);
        FUZZ_CHECK(t.xoff_received(p) == 0 && t.xon_received(p) == (on ? 1u : 0u));
      }
    }
    FUZZ_CHECK(t.OnFrame(r, now, 0) == false);  // an unknown speed changes nothing
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pause::PauseRequest r;
  const pause::MacCtlKind k = pause::ParseMacControl(data, size, &r);
  CheckDecoded(data, size, k, r, nullptr);
  pause::PauseRequest rp;
  const pause::MacCtlKind kp = pause::ParseMacControl(data, size, &rp, &kPortMac);
  CheckDecoded(data, size, kp, rp, &kPortMac);
  // Knowing the port's MAC can only add unicast PAUSE frames.
  if (k != pause::MacCtlKind::kMalformed) FUZZ_CHECK(kp == k);
  if (kp != pause::MacCtlKind::kMalformed) CheckTimers(rp);
  return 0;
}
