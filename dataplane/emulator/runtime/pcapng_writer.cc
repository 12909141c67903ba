// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/runtime/pcapng_writer.h"

#include <cstring>

namespace pfc::emulator {
namespace {
constexpr uint32_t kShb = 0x0a0d0d0a, kIdb = 0x00000001, kEpb = 0x00000006;
constexpr uint32_t kByteOrderMagic = 0x1a2b3c4d;
constexpr uint16_t kLinkEthernet = 1;
constexpr uint16_t kOptIfName = 2, kOptIfDescription = 3, kOptIfTsresol = 9;
constexpr uint16_t kOptEpbFlags = 2;
uint32_t Pad4(uint32_t n) { return (n + 3) & ~3u; }
}  // namespace

void PcapngWriter::Put32(uint32_t v) { f_.write(reinterpret_cast<const char*>(&v), 4); }
void PcapngWriter::Put16(uint16_t v) { f_.write(reinterpret_cast<const char*>(&v), 2); }
void PcapngWriter::PutOption(uint16_t code, const std::string& value) {
  static const char zeros[4] = {};
  const auto n = static_cast<uint32_t>(value.size());
  Put16(code);
  Put16(static_cast<uint16_t>(n));
  f_.write(value.data(), n);
  f_.write(zeros, Pad4(n) - n);
}

PcapngWriter::PcapngWriter(const std::string& path, const std::string& if_name,
                           const std::string& if_description)
    : f_(path, std::ios::binary | std::ios::trunc) {
  if (!f_) return;
  // Section Header Block (host byte order; the magic tells readers which).
  Put32(kShb);
  Put32(28);
  Put32(kByteOrderMagic);
  Put16(1);           // major
  Put16(0);           // minor
  Put32(0xffffffff);  // section length unknown
  Put32(0xffffffff);
  Put32(28);
  // Interface Description Block: Ethernet, if_name, if_description,
  // nanosecond timestamps.
  const std::string tsresol(1, '\x09');                                         // 10^-9 s
  uint32_t opts = 4 + Pad4(static_cast<uint32_t>(if_name.size())) + 4 + 4 + 4;  // ..., end
  if (!if_description.empty()) opts += 4 + Pad4(static_cast<uint32_t>(if_description.size()));
  const uint32_t len = 20 + opts;
  Put32(kIdb);
  Put32(len);
  Put16(kLinkEthernet);
  Put16(0);
  Put32(0);  // snaplen: no limit
  PutOption(kOptIfName, if_name);
  if (!if_description.empty()) PutOption(kOptIfDescription, if_description);
  PutOption(kOptIfTsresol, tsresol);
  Put32(0);  // opt_endofopt
  Put32(len);
}

void PcapngWriter::Write(const uint8_t* frame, uint32_t len, uint64_t t_ns, Direction dir) {
  const bool flags = dir != Direction::kUnknown;
  const uint32_t block = 32 + Pad4(len) + (flags ? 8 + 4 : 0);  // epb_flags, opt_endofopt
  Put32(kEpb);
  Put32(block);
  Put32(0);  // interface 0
  Put32(static_cast<uint32_t>(t_ns >> 32));
  Put32(static_cast<uint32_t>(t_ns));
  Put32(len);
  Put32(len);
  f_.write(reinterpret_cast<const char*>(frame), len);
  static const char zeros[4] = {};
  f_.write(zeros, Pad4(len) - len);
  if (flags) {
    Put16(kOptEpbFlags);
    Put16(4);
    Put32(static_cast<uint32_t>(dir));
    Put32(0);  // opt_endofopt
  }
  Put32(block);
  frames_++;
}

}  // namespace pfc::emulator
