// SPDX-License-Identifier: BSD-3-Clause
// A minimal pcapng writer for link captures of the fabric emulator: one
// Section Header Block, one Interface Description Block (Ethernet, nanosecond
// timestamps: if_tsresol = 9), then one Enhanced Packet Block per frame.
// Frames are written as they start on the emulated wire (on the virtual
// clock, by start time at its boundaries: Fabric::FlushCaptures), stamped
// with the fabric's clock (virtual or real), FCS not included, each with its
// direction (epb_flags): a link capture is taken at the link's first end,
// so what that end sends is outbound and what it receives inbound (tshark
// -e frame.packet_flags_direction: 2 and 1). tshark and Wireshark read the
// files (PFC frames decode as MAC control). Both ends' transmitters write
// to one file, under the capture's lock (Fabric); buffered through
// std::ofstream.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>

namespace pfc::emulator {

// pcapng's epb_flags direction bits.
enum class Direction : uint32_t { kUnknown = 0, kInbound = 1, kOutbound = 2 };

class PcapngWriter {
 public:
  // Creates `path` and writes the headers; ok() tells whether it could.
  // `if_description`: what the interface is (where the capture is taken).
  PcapngWriter(const std::string& path, const std::string& if_name,
               const std::string& if_description = "");
  bool ok() const { return static_cast<bool>(f_); }
  void Write(const uint8_t* frame, uint32_t len, uint64_t t_ns,
             Direction dir = Direction::kUnknown);
  uint64_t frames() const { return frames_; }

 private:
  void Put32(uint32_t v);
  void Put16(uint16_t v);
  void PutOption(uint16_t code, const std::string& value);  // padded to 4
  std::ofstream f_;
  uint64_t frames_ = 0;
};

}  // namespace pfc::emulator
