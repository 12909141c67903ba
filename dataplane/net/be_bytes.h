// SPDX-License-Identifier: BSD-3-Clause
// Big-endian (network order) field access for the frame codecs that build
// and read headers byte by byte (PFC, DCFIT messages, the emulator's
// frames), whatever the host's byte order or the field's alignment. Pure.
#pragma once
#include <cstdint>

namespace pfc::net::be {

inline void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
inline void Put32(uint8_t* p, uint32_t v) {
  Put16(p, static_cast<uint16_t>(v >> 16));
  Put16(p + 2, static_cast<uint16_t>(v));
}
inline void Put64(uint8_t* p, uint64_t v) {
  Put32(p, static_cast<uint32_t>(v >> 32));
  Put32(p + 4, static_cast<uint32_t>(v));
}
inline uint16_t Get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t Get32(const uint8_t* p) { return uint32_t{Get16(p)} << 16 | Get16(p + 2); }
inline uint64_t Get64(const uint8_t* p) { return uint64_t{Get32(p)} << 32 | Get32(p + 4); }

}  // namespace pfc::net::be
