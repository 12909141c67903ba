// SPDX-License-Identifier: BSD-3-Clause
// A minimal pcapng writer for link captures of the fabric emulator: one
// Section Header Block, one Interface Description Block (Ethernet, nanosecond
// timestamps: if_tsresol = 9), then one Enhanced Packet Block per frame.
// Frames are written as they start on the emulated wire, stamped with the
// fabric's clock (virtual or real), FCS not included. tshark and Wireshark
// read the files (PFC frames decode as MAC control). Owned by the thread that
// transmits on the captured link end; buffered through std::ofstream.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>

namespace pfc::emu {

class PcapngWriter {
 public:
  // Creates `path` and writes the headers; ok() tells whether it could.
  PcapngWriter(const std::string& path, const std::string& if_name);
  bool ok() const { return static_cast<bool>(f_); }
  void Write(const uint8_t* frame, uint32_t len, uint64_t t_ns);
  uint64_t frames() const { return frames_; }

 private:
  void Put32(uint32_t v);
  void Put16(uint16_t v);
  std::ofstream f_;
  uint64_t frames_ = 0;
};

}  // namespace pfc::emu
