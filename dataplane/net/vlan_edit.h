// SPDX-License-Identifier: BSD-3-Clause
// In-place edit of an 802.1Q tag: the switch writes the PCP (priority code
// point) of a forwarded tagged frame so that it names the egress priority the
// packet was queued at. The switch classifies by DSCP (its trust mode is
// DSCP, Tagger's tag), so after a Tagger rewrite the old PCP would name the
// old class, and a next hop that trusts PCP would queue the packet (and send
// PFC for it) in a class the switch did not use; remarking PCP keeps both
// markings in agreement, as a ToR with DSCP classification and PCP remarking
// does. Pure code, stateless: called by any worker on the packet it owns.
// Precondition (the parser establishes it): the frame has one 802.1Q tag, so
// its TCI lies at kVlanTciOffset.
#pragma once
#include <cstdint>

namespace pfc::net {

inline constexpr uint32_t kVlanTciOffset = 14;  // after dst, src and the 0x8100 TPID

// Sets the 3-bit PCP of the TCI at tci (big-endian, network order) to
// pcp & 7, keeping DEI and the VID (a priority-tagged frame, VID 0, stays
// priority-tagged). Returns true when the byte changed.
inline bool VlanSetPcp(uint8_t* tci, uint8_t pcp) {
  const uint8_t b = static_cast<uint8_t>(((pcp & 7u) << 5) | (tci[0] & 0x1fu));
  if (b == tci[0]) return false;
  tci[0] = b;
  return true;
}

// The PCP of a TCI as the parser returns it (ParsedPacket::vlan_tci).
inline uint8_t VlanPcp(uint16_t tci) { return static_cast<uint8_t>(tci >> 13); }

}  // namespace pfc::net
