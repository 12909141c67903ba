// SPDX-License-Identifier: BSD-3-Clause
// Writes the PFC frames our code produces into a classic pcap file, for a
// peer nobody here wrote (tshark) to decode: tshark_pfc_check.sh asserts on
// the decoded class-enable vectors and quanta. Frames 1-4 come from the XOFF/
// XON generator driven through a pause/resume scenario, frame 5 is built
// directly with eight distinct quanta. The expected values live in the
// script, not here.
//
// Usage: pfc_pcap_writer OUT.pcap
#include <cstdio>
#include <vector>

#include "dataplane/pause/pfc_frame.h"
#include "dataplane/pause/pfc_generator.h"

namespace {

void Put32(std::vector<uint8_t>* b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b->push_back(static_cast<uint8_t>(v >> (8 * i)));  // little-endian
}
void Put16(std::vector<uint8_t>* b, uint16_t v) {
  b->push_back(static_cast<uint8_t>(v));
  b->push_back(static_cast<uint8_t>(v >> 8));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.pcap\n", argv[0]);
    return 2;
  }
  const std::array<uint8_t, 6> src = {0x02, 0x00, 0x00, 0x00, 0x00, 0x07};
  std::vector<pfc::pause::PauseRequest> frames;

  pfc::pause::PfcGenerator gen;
  pfc::pause::PfcGenConfig cfg;
  cfg.lossless_mask = (1 << 3) | (1 << 5);
  cfg.port_bps = 10'000'000'000;
  std::string err;
  if (!gen.Configure(cfg, &err)) {
    std::fprintf(stderr, "generator: %s\n", err.c_str());
    return 1;
  }
  // (occupancy of prio 3, occupancy of prio 5) at successive polls; XOFF
  // above 4000, XON at or below 2000.
  const uint64_t steps[][2] = {{5000, 0}, {5000, 4500}, {1500, 4500}, {1500, 100}};
  uint64_t now = 0;
  for (const auto& s : steps) {
    std::array<pfc::pause::PgLevel, 8> lv{};
    lv[3] = {s[0], 4000, 2000};
    lv[5] = {s[1], 4000, 2000};
    pfc::pause::PauseRequest r;
    if (gen.Poll(lv, now, &r)) {
      gen.MarkSent(r, now);
      frames.push_back(r);
    }
    now += 1000;
  }
  pfc::pause::PauseRequest all;
  all.class_enable = 0xff;
  for (int i = 0; i < 8; ++i) all.quanta[i] = static_cast<uint16_t>((i + 1) * 0x1111);
  frames.push_back(all);

  std::vector<uint8_t> out;
  Put32(&out, 0xa1b2c3d4);  // classic pcap, microsecond timestamps
  Put16(&out, 2);
  Put16(&out, 4);
  Put32(&out, 0);      // thiszone
  Put32(&out, 0);      // sigfigs
  Put32(&out, 65535);  // snaplen
  Put32(&out, 1);      // LINKTYPE_ETHERNET
  uint32_t usec = 0;
  for (const auto& r : frames) {
    uint8_t buf[pfc::pause::kPfcFrameLen];
    const size_t n = pfc::pause::BuildPfcFrame(src, r, buf, sizeof buf);
    if (n != pfc::pause::kPfcFrameLen) return 1;
    Put32(&out, 1700000000);
    Put32(&out, usec++);
    Put32(&out, static_cast<uint32_t>(n));
    Put32(&out, static_cast<uint32_t>(n));
    out.insert(out.end(), buf, buf + n);
  }
  FILE* f = std::fopen(argv[1], "wb");
  if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size() || std::fclose(f) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  std::printf("wrote %zu PFC frames to %s\n", frames.size(), argv[1]);
  return 0;
}
