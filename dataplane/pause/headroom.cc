// SPDX-License-Identifier: BSD-3-Clause
// Default PFC headroom. See headroom.h for the formula and its sources.
#include "dataplane/pause/headroom.h"

#include <cmath>

#include "dataplane/common/types.h"

namespace pfc::pause {
namespace {

// Bytes sent at bps during ns nanoseconds, rounded up.
uint64_t BytesIn(double ns, uint64_t bps) {
  return static_cast<uint64_t>(std::ceil(ns * static_cast<double>(bps) / 8e9 - 1e-9));
}

}  // namespace

double CellTax(uint32_t cell_bytes) {
  // Within one cell count, the shortest frame is charged the most per wire
  // byte: the candidates are 60 and each length just past a cell boundary,
  // all within one cell of 60.
  double worst = 1;
  const uint32_t cell = cell_bytes ? cell_bytes : 1;
  for (uint64_t len = 60; len <= 60 + uint64_t{cell}; len++) {
    const double f = static_cast<double>(CellRoundUp(len, cell)) / static_cast<double>(len + 24);
    if (f > worst) worst = f;
  }
  return worst;
}

bool ComputeHeadroom(const HeadroomParams& p, HeadroomBreakdown* out, std::string* err) {
  auto fail = [&](const std::string& m) {
    if (err) *err = m;
    return false;
  };
  if (p.port_bps < 1'000'000 || p.port_bps > 1'600'000'000'000ull)
    return fail("headroom.port_bps = " + std::to_string(p.port_bps) +
                ": expected 1e6..1.6e12 bits/s");
  if (!std::isfinite(p.cable_m) || p.cable_m < 0 || p.cable_m > 100'000)
    return fail("headroom.cable_m = " + std::to_string(p.cable_m) + ": expected 0..100000 metres");
  if (!std::isfinite(p.ns_per_m) || p.ns_per_m < 3.33 || p.ns_per_m > 10)
    return fail("headroom.ns_per_m = " + std::to_string(p.ns_per_m) +
                ": expected 3.33..10 ns per metre (light in vacuum is 3.34)");
  if (p.mtu_bytes < 64 || p.mtu_bytes > 65535)
    return fail("headroom.mtu_bytes = " + std::to_string(p.mtu_bytes) +
                ": expected 64..65535 (the largest L2 frame on the link)");
  if (p.response_ns > 1'000'000'000 || p.peer_response_ns > 1'000'000'000)
    return fail("headroom.response_ns / peer_response_ns: expected at most 1 s");
  if (!(p.small_packet_share >= 0 && p.small_packet_share <= 1))
    return fail("headroom.small_packet_share: expected 0..1");
  if (p.cell_bytes == 0 || p.cell_bytes > 65536)
    return fail("headroom.cell_bytes = " + std::to_string(p.cell_bytes) + ": expected 1..65536");

  HeadroomBreakdown b;
  b.cable_bytes = BytesIn(2.0 * p.cable_m * p.ns_per_m, p.port_bps);
  b.frames_bytes = 2 * CellRoundUp(p.mtu_bytes, p.cell_bytes);
  b.pause_frame_bytes = kPfcFrameWireBytes;
  const uint64_t peer = p.peer_response_ns ? p.peer_response_ns : p.response_ns;
  b.response_bytes = BytesIn(static_cast<double>(p.response_ns + peer), p.port_bps);
  b.cell_tax = 1 + p.small_packet_share * (CellTax(p.cell_bytes) - 1);
  const double window =
      static_cast<double>(b.cable_bytes + b.pause_frame_bytes + b.response_bytes) * b.cell_tax;
  const uint64_t charged = static_cast<uint64_t>(std::ceil(window - 1e-9));
  b.total_bytes = CellRoundUp(charged, p.cell_bytes) + b.frames_bytes;
  if (b.total_bytes > 0xffffffffull)
    return fail("headroom: " + std::to_string(b.total_bytes) +
                " bytes needed, more than the 4 GiB a priority group can hold "
                "(shorten the cable or the response times)");
  *out = b;
  return true;
}

uint32_t DefaultHeadroomBytes(uint64_t port_bps, double cable_m, uint32_t mtu, uint64_t response_ns,
                              uint32_t cell_bytes) {
  HeadroomParams p;
  p.port_bps = port_bps;
  p.cable_m = cable_m;
  p.mtu_bytes = mtu + 22;
  p.response_ns = response_ns;
  p.cell_bytes = cell_bytes;
  HeadroomBreakdown b;
  if (!ComputeHeadroom(p, &b, nullptr)) return 0;
  return static_cast<uint32_t>(b.total_bytes);
}

}  // namespace pfc::pause
