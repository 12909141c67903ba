// SPDX-License-Identifier: BSD-3-Clause
// In-band network telemetry (INT) as the HPCC work's RDMA simulator defines
// it (simulation/src/network/utils/int-header.h: up to 5 hop records of
// timestamp, bytes the port sent, its queue length and its line rate;
// the receiver echoes them in its ACK), carried on the wire as a trailer.
//
// Where it sits: right after the IPv4 datagram, at frame offset
// l3_off + IPv4 total length, where Ethernet padding would be. IP, UDP,
// BTH and the ICRC are untouched, and every IP receiver trims a frame to
// the datagram's total length (Linux ip_rcv does), so a real RoCEv2
// receiver (rxe, a ConnectX) ignores the trailer; the emulated NICs read it.
// A frame carries it when the two bytes there are kIntMagic.
//
//   offset  size
//   0       2    magic 0x494E ("IN")
//   2       1    kind: kIntHops (switches push onto it), kIntHopsEcho (an
//                ACK's copy: switches leave it alone), kIntTs / kIntTsEcho
//                (a sender timestamp, for TIMELY: no hops), kIntPint /
//                kIntPintEcho (HPCC-PINT's one value: no hops)
//   3       1    hops pushed so far (the record written is hops % 5, as the
//                simulator's nhop)
//   4       1    unit multiplier (the simulator's INT_MULTI, 1..255):
//                chosen by whoever adds the trailer, used by every hop
//   5       1    0
//   6       40   5 hop records, 8 bytes each, big-endian:
//                  line rate index (3 bits) | time ns mod 2^24 (24) |
//                  bytes sent / (128 multi) mod 2^20 (20) |
//                  queue bytes / (80 multi), at most 2^17-1 (17)
//   (kIntTs*: 4 bytes 0 then the 8-byte timestamp at offset 4; 12 bytes)
//   (kIntPint*: byte 3 is 0, then the 16-bit power at offset 4 (net/pint.h),
//    big-endian, which switches only raise; 6 bytes)
// The record is the simulator's 64-bit word and units, so the NIC's HPCC
// sees the same quantisation; the header bytes are ours (the simulator's
// INT header is 42 bytes inside its own packet format, ours 46 outside).
// Rate indexes 0-4 are the simulator's (25, 50, 100, 200, 400G); 5-7,
// which it leaves 0, are 10G, 40G and 800G here.
//
// Pure: no DPDK. Owned by whoever holds the frame.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "dataplane/net/be_bytes.h"

namespace pfc::net {

inline constexpr uint16_t kIntMagic = 0x494E;
inline constexpr uint8_t kIntHops = 1, kIntHopsEcho = 2, kIntTs = 3, kIntTsEcho = 4, kIntPint = 5,
                         kIntPintEcho = 6;
inline constexpr int kIntMaxHops = 5;
inline constexpr uint32_t kIntHopsBytes = 6 + 8 * kIntMaxHops;  // 46
inline constexpr uint32_t kIntTsBytes = 12;
inline constexpr uint32_t kIntPintBytes = 6;
inline constexpr uint32_t kIntByteUnit = 128, kIntQlenUnit = 80;
inline constexpr int kIntTimeBits = 24, kIntBytesBits = 20, kIntQlenBits = 17;

inline constexpr uint64_t kIntRates[8] = {25'000'000'000,  50'000'000'000,  100'000'000'000,
                                          200'000'000'000, 400'000'000'000, 10'000'000'000,
                                          40'000'000'000,  800'000'000'000};

// The index of a line rate, or -1 when the format has none for it.
inline int IntRateIndex(uint64_t bps) {
  for (int i = 0; i < 8; i++)
    if (kIntRates[i] == bps) return i;
  return -1;
}

// A record's byte field: bytes sent in units of `unit` (kIntByteUnit x
// multi), mod 2^20.
inline uint32_t IntBytesField(uint64_t tx_bytes, uint64_t unit) {
  return static_cast<uint32_t>(tx_bytes / unit & ((1u << kIntBytesBits) - 1));
}
// A record's queue field: bytes queued in units of `unit` (kIntQlenUnit x
// multi); 0 for none (or a negative count), and saturated where the
// simulator's bit-field would wrap: a long queue must not read as a short
// one. One compare on the usual path (the packet path calls it per packet).
inline uint32_t IntQlenField(int64_t queued, uint64_t unit) {
  constexpr uint64_t kMax = (1u << kIntQlenBits) - 1;
  if (static_cast<uint64_t>(queued) < kMax * unit) [[likely]]
    return static_cast<uint32_t>(static_cast<uint64_t>(queued) / unit);
  return queued < 0 ? 0 : kMax;
}
// IntQlenField at multiplier 1 (unit kIntQlenUnit), the packet path's
// usual case: the quotient as a multiply and a shift, where dividing by a
// constant 80 takes a 64-bit multiply into two registers and a shift. Below
// the saturation point queued * ceil(2^30 / 80) >> 30 is queued / 80
// exactly: it exceeds queued / 80 by queued * 16 / (80 * 2^30), which stays
// under the 1/80 that separates a quotient from the next (int_trailer_test
// checks every value).
inline constexpr uint64_t kIntQlenMagic = ((uint64_t{1} << 30) + kIntQlenUnit - 1) / kIntQlenUnit;
static_assert(((1u << kIntQlenBits) - 1) * uint64_t{kIntQlenUnit} *
                      (kIntQlenMagic * kIntQlenUnit - (uint64_t{1} << 30)) <
                  (uint64_t{1} << 30),
              "the multiply is the quotient for every queue below the saturation point");
inline uint32_t IntQlenField1(int64_t queued) {
  constexpr uint64_t kMax = (1u << kIntQlenBits) - 1;
  if (static_cast<uint64_t>(queued) < kMax * kIntQlenUnit) [[likely]]
    return static_cast<uint32_t>(static_cast<uint64_t>(queued) * kIntQlenMagic >> 30);
  return queued < 0 ? 0 : kMax;
}

// One hop's record, decoded; Word/FromWord are the wire form.
struct IntHop {
  uint8_t rate = 0;    // index into kIntRates
  uint32_t time = 0;   // ns mod 2^24
  uint32_t bytes = 0;  // units of kIntByteUnit * multi, mod 2^20
  uint32_t qlen = 0;   // units of kIntQlenUnit * multi

  static IntHop Make(uint64_t now_ns, uint64_t tx_bytes, uint64_t qlen_bytes, int rate_index,
                     uint32_t multi) {
    IntHop h;
    h.rate = static_cast<uint8_t>(rate_index & 7);
    h.time = static_cast<uint32_t>(now_ns & ((1u << kIntTimeBits) - 1));
    h.bytes = IntBytesField(tx_bytes, uint64_t{kIntByteUnit} * multi);
    h.qlen = IntQlenField(static_cast<int64_t>(qlen_bytes), uint64_t{kIntQlenUnit} * multi);
    return h;
  }
  uint64_t Word() const {
    return uint64_t{rate} << 61 | uint64_t{time} << 37 | uint64_t{bytes} << 17 | qlen;
  }
  static IntHop FromWord(uint64_t w) {
    IntHop h;
    h.rate = static_cast<uint8_t>(w >> 61);
    h.time = static_cast<uint32_t>(w >> 37 & ((1u << kIntTimeBits) - 1));
    h.bytes = static_cast<uint32_t>(w >> 17 & ((1u << kIntBytesBits) - 1));
    h.qlen = static_cast<uint32_t>(w & ((1u << kIntQlenBits) - 1));
    return h;
  }
  uint64_t LineRate() const { return kIntRates[rate]; }
  uint64_t Bytes(uint32_t multi) const { return uint64_t{bytes} * kIntByteUnit * multi; }
  uint64_t Qlen(uint32_t multi) const { return uint64_t{qlen} * kIntQlenUnit * multi; }
  // Bytes sent between an earlier record `b` of the same hop and this one
  // (the counter wraps), and the time between them (ns, wraps).
  uint64_t BytesDelta(const IntHop& b, uint32_t multi) const {
    const uint32_t d = (bytes - b.bytes) & ((1u << kIntBytesBits) - 1);
    return uint64_t{d} * kIntByteUnit * multi;
  }
  uint64_t TimeDelta(const IntHop& b) const { return (time - b.time) & ((1u << kIntTimeBits) - 1); }
};

// The size of a trailer of `kind`; 0 for a kind there is none of.
inline constexpr uint32_t IntTrailerBytes(uint8_t kind) {
  return kind == kIntHops || kind == kIntHopsEcho   ? kIntHopsBytes
         : kind == kIntTs || kind == kIntTsEcho     ? kIntTsBytes
         : kind == kIntPint || kind == kIntPintEcho ? kIntPintBytes
                                                    : 0;
}
// The kind of an ACK's echo of a data frame's trailer of `kind`: 0 for
// one that is not a data frame's.
inline constexpr uint8_t IntEchoKind(uint8_t kind) {
  return kind == kIntHops   ? kIntHopsEcho
         : kind == kIntTs   ? kIntTsEcho
         : kind == kIntPint ? kIntPintEcho
                            : 0;
}

// The trailer of a frame whose IPv4 datagram ends at `ip_end` (l3 offset +
// total length) in `len` bytes: its first byte, or nullptr when the frame
// has none (or too short a one for its kind).
inline uint8_t* FindIntTrailer(uint8_t* frame, uint32_t len, uint32_t ip_end) {
  if (ip_end + 4 > len || be::Get16(frame + ip_end) != kIntMagic) return nullptr;
  const uint8_t kind = frame[ip_end + 2];
  const uint32_t need = IntTrailerBytes(kind);
  if (need == 0 || ip_end + need > len) return nullptr;
  return frame + ip_end;
}

// Writes an empty trailer of `kind` (kIntHops: no hops yet, unit `multi`;
// kIntTs: timestamp `ts`; kIntPint: power 0) at t; returns its size.
inline uint32_t WriteIntTrailer(uint8_t* t, uint8_t kind, uint32_t multi, uint64_t ts = 0) {
  be::Put16(t, kIntMagic);
  t[2] = kind;
  if (kind == kIntPint || kind == kIntPintEcho) {
    t[3] = 0;
    be::Put16(t + 4, 0);
    return kIntPintBytes;
  }
  if (kind == kIntTs || kind == kIntTsEcho) {
    t[3] = 0;
    be::Put64(t + 4, ts);
    return kIntTsBytes;
  }
  t[3] = 0;
  t[4] = static_cast<uint8_t>(multi);
  t[5] = 0;
  std::memset(t + 6, 0, 8 * kIntMaxHops);
  return kIntHopsBytes;
}

inline uint8_t IntKind(const uint8_t* t) { return t[2]; }
inline uint8_t IntHopCount(const uint8_t* t) { return t[3]; }
// A trailer's unit multiplier; 0 on the wire reads as 1.
inline uint32_t IntMulti(const uint8_t* t) { return t[4] == 0 ? 1u : t[4]; }
inline uint64_t IntTimestamp(const uint8_t* t) { return be::Get64(t + 4); }
// A PINT trailer's power (net/pint.h), and raising it: a switch writes its
// own only when it is the larger (the path's largest utilisation wins).
inline uint16_t IntPintPower(const uint8_t* t) { return be::Get16(t + 4); }
inline void RaiseIntPintPower(uint8_t* t, uint16_t p) {
  if (p > IntPintPower(t)) be::Put16(t + 4, p);
}
inline IntHop IntHopAt(const uint8_t* t, int i) {
  return IntHop::FromWord(be::Get64(t + 6 + 8 * i));
}

// A big-endian 64-bit store in one instruction on a little-endian host
// (the packet path writes a record per packet).
inline void StoreBe64(uint8_t* p, uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

// For a hop count n: where record n % 5 starts, and the count after it
// (n + 1, stopping at 255). Tables, since the packet path pushes a record
// per packet and a load is cheaper than the modulo.
struct IntPushStep {
  uint8_t at, next;
};
inline constexpr std::array<IntPushStep, 256> kIntPushSteps = [] {
  std::array<IntPushStep, 256> a{};
  for (int n = 0; n < 256; n++)
    a[n] = {static_cast<uint8_t>(6 + 8 * (n % kIntMaxHops)), static_cast<uint8_t>(n + (n != 255))};
  return a;
}();

// Pushes a record word onto a kIntHops trailer: record hops % 5, as the
// simulator. The count stops at 255 (the records keep rotating).
// (The step's two bytes read one by one: as one 16-bit load they take two
// more instructions to split.)
inline void PushIntWord(uint8_t* t, uint64_t word) {
  const IntPushStep* step = &kIntPushSteps[t[3]];
  StoreBe64(t + step->at, word);
  t[3] = step->next;
}
inline void PushIntHop(uint8_t* t, const IntHop& h) { PushIntWord(t, h.Word()); }

// The hops a receiver reads from a trailer: the simulator's receiver
// assumes at most 5; past that the last 5 pushed are kept, in record order.
inline int IntHopsHeld(const uint8_t* t) {
  return IntHopCount(t) < kIntMaxHops ? IntHopCount(t) : kIntMaxHops;
}

}  // namespace pfc::net
