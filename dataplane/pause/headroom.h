// SPDX-License-Identifier: BSD-3-Clause
// Default PFC headroom of a lossless priority group: the bytes that can still
// arrive after its occupancy crosses XOFF, before the peer really stops. The
// config computes it per (port, lossless priority) unless it is overridden,
// and rejects a buffer that cannot hold it (buffer/accountant.h checks the
// sum). Pure function, no state: called by the control thread at config time.
//
// Formula (all delays converted to bytes at the port rate R, i.e. R/8 bytes
// per second of delay; each term rounded up, the sum rounded up to cells):
//
//   headroom = F x ( 2 x L x d x R/8           cable, both directions
//                  + 84                        the PFC frame itself on the wire
//                  + (T_self + T_peer) x R/8 ) response of both devices
//            + 2 x cells(MTU)                  one frame in flight at each end
//
//  * Cable (L metres, d ns/m): once XOFF is decided, the PFC frame needs L x d
//    to reach the peer, during which the peer keeps sending; and the bytes the
//    peer put on the wire just before it stopped are still travelling towards
//    us for another L x d. Bits travel at ~0.65-0.7 c (Cisco: 476 ns per
//    100 m of twin-ax copper, 513 ns per 100 m of single-mode fibre, i.e.
//    ~641 bytes per 100 m one way at 10 Gb/s); d defaults to 5 ns/m.
//  * Frames in flight: a PFC frame cannot preempt a frame this port has
//    already started sending (one MTU of delay at our end, any priority, so
//    the largest MTU on the link), and the peer cannot abort the frame it is
//    sending when the PFC frame arrives (one MTU at its end).
//  * The PFC frame: 64 bytes + 8 preamble/SFD + 12 inter-frame gap = 84 bytes
//    of wire time (672 bit times) before the peer has the whole frame and can
//    act on it.
//  * Responses: T_self is this switch's delay from the XOFF crossing to the
//    PFC frame starting on the wire. For pfcswitch that is one poll of the
//    generator (at most one rx burst interval) plus whatever the device's tx
//    ring already holds ahead of the frame: measure it with the reaction-time
//    benchmark and set it here. T_peer is how long the paused device keeps
//    sending after it received the frame: IEEE 802.3 Annex 31B bounds it for
//    hardware MACs in pause quanta (tens of ns to a few us depending on the
//    speed, plus PHY delays); a software peer reacts within its poll loop.
//    T_peer = 0 means "same as T_self" (a pfcswitch on both ends).
//
//  * F, the cell tax: the buffer charges each frame in whole cells (its
//    length without FCS, rounded up), while the window above is wire time,
//    each frame's length plus 24 bytes (FCS, preamble, gap). A window full
//    of frames one byte longer than a cell is charged up to twice its wire
//    bytes. F is the worst charge per wire byte over every frame length
//    from the 60-byte minimum, at least 1: 1.67 for 128-byte cells (129-byte
//    frames: 256 charged for 153 on the wire), 1 for cells of 16 bytes or
//    less. ASIC buffer calculators apply the same worst case (SONiC's
//    headroom scripts: "cell occupancy" for 100% small packets), and take
//    a smaller share of small packets from the operator: so does
//    small_packet_share.
//
// Sources: Cisco, "Priority Flow Control: Build Reliable Layer 2
// Infrastructure" (white paper c11-542809, cited as [36] by Tagger ToN 2019
// §II-B: MTU at the sending end of the receiver, speed of wire, transceiver
// latency, response time of the sender); the delay model of IEEE 802.1Qbb
// (informative annex on PFC buffer requirements) which lists the same terms
// plus the PAUSE frame's own transmission; IEEE 802.3 Clause 31 / Annex 31B
// for the 512-bit pause quantum and the MAC's reaction bound. Counting every
// byte of wire time (including preamble and gap) as buffer is conservative by
// at most 20 bytes per frame.
#pragma once
#include <cstdint>
#include <string>

namespace pfc::pause {

struct HeadroomParams {
  uint64_t port_bps = 0;          // port speed, or the shaper rate when shaped
  double cable_m = 0;             // cable length, metres (0..100 km)
  double ns_per_m = 5.0;          // propagation delay (3.34 = c in vacuum .. 10)
  uint32_t mtu_bytes = 0;         // largest frame on the link, L2 header + payload + FCS
  uint64_t response_ns = 0;       // T_self
  uint64_t peer_response_ns = 0;  // T_peer; 0 = same as response_ns
  uint32_t cell_bytes = 1;        // round the total up to a multiple (1 = bytes)
  // The share of the window's wire bytes that may come in the frames the
  // cells charge the most (0..1): F = 1 + share x (CellTax - 1). 1, the
  // default, is the worst case; a class known to carry full frames only
  // may say less (buffer.lossless.small_packets, in percent).
  double small_packet_share = 1.0;
};

struct HeadroomBreakdown {
  double cell_tax = 1;  // F: charged bytes per wire byte, for the small-packet share
  uint64_t cable_bytes = 0;
  uint64_t frames_bytes = 0;
  uint64_t pause_frame_bytes = 0;
  uint64_t response_bytes = 0;
  uint64_t total_bytes = 0;  // F x (cable + pause frame + response) + frames, in cells
};

inline constexpr uint32_t kPfcFrameWireBytes = 84;  // 64 + 8 preamble/SFD + 12 IFG

// F above: the most bytes a frame of at least 60 bytes (without FCS) is
// charged in cell_bytes cells per byte of its wire time (its length + 24).
double CellTax(uint32_t cell_bytes);

// Computes the headroom; false with *err naming the parameter and its range
// when a parameter is out of range or the result does not fit in 32 bits.
bool ComputeHeadroom(const HeadroomParams& p, HeadroomBreakdown* out, std::string* err);

// Convenience for the config: `mtu` is the IP MTU (the largest frame is
// mtu + 22: Ethernet header, one VLAN tag, FCS), d = 5 ns/m, T_peer = T_self,
// rounded up to cell_bytes. Returns 0 when a parameter is out of range (call
// ComputeHeadroom for the message); the accountant rejects a lossless
// priority with 0 headroom.
uint32_t DefaultHeadroomBytes(uint64_t port_bps, double cable_m, uint32_t mtu, uint64_t response_ns,
                              uint32_t cell_bytes = 1);

}  // namespace pfc::pause
