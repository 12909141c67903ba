// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/runtime/pcapng_writer.h"

#include <cstring>

namespace pfc::emu {
namespace {
constexpr uint32_t kShb = 0x0a0d0d0a, kIdb = 0x00000001, kEpb = 0x00000006;
constexpr uint32_t kByteOrderMagic = 0x1a2b3c4d;
constexpr uint16_t kLinkEthernet = 1;
constexpr uint16_t kOptIfName = 2, kOptIfTsresol = 9;
uint32_t Pad4(uint32_t n) { return (n + 3) & ~3u; }
}  // namespace

void PcapngWriter::Put32(uint32_t v) { f_.write(reinterpret_cast<const char*>(&v), 4); }
void PcapngWriter::Put16(uint16_t v) { f_.write(reinterpret_cast<const char*>(&v), 2); }

PcapngWriter::PcapngWriter(const std::string& path, const std::string& if_name)
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
  // Interface Description Block: Ethernet, if_name, nanosecond timestamps.
  const uint32_t name_len = static_cast<uint32_t>(if_name.size());
  const uint32_t opts = 4 + Pad4(name_len) + 4 + 4 + 4;  // if_name, if_tsresol (1 byte + pad), end
  const uint32_t len = 20 + opts;
  Put32(kIdb);
  Put32(len);
  Put16(kLinkEthernet);
  Put16(0);
  Put32(0);  // snaplen: no limit
  Put16(kOptIfName);
  Put16(static_cast<uint16_t>(name_len));
  f_.write(if_name.data(), name_len);
  static const char zeros[4] = {};
  f_.write(zeros, Pad4(name_len) - name_len);
  Put16(kOptIfTsresol);
  Put16(1);
  const char res[4] = {9, 0, 0, 0};  // 10^-9 s
  f_.write(res, 4);
  Put32(0);  // opt_endofopt
  Put32(len);
}

void PcapngWriter::Write(const uint8_t* frame, uint32_t len, uint64_t t_ns) {
  const uint32_t block = 32 + Pad4(len);
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
  Put32(block);
  frames_++;
}

}  // namespace pfc::emu
