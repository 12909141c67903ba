// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/ecn_stage.h"

#include "dataplane/net/ipv4_edit.h"
#include "dataplane/net/parser.h"

namespace pfc {
namespace {

// The IPv4 header of a frame as queued (Ethernet, at most one 802.1Q tag),
// or nullptr: only IPv4 carries an ECN field here.
uint8_t* Ipv4Header(rte_mbuf* m) {
  uint8_t* d = rte_pktmbuf_mtod(m, uint8_t*);
  const uint32_t len = rte_pktmbuf_data_len(m);
  uint32_t off = 12;
  if (len < off + 2) return nullptr;
  uint16_t et = static_cast<uint16_t>(d[off] << 8 | d[off + 1]);
  if (et == kEtherTypeVlan) {
    off += 4;
    if (len < off + 2) return nullptr;
    et = static_cast<uint16_t>(d[off] << 8 | d[off + 1]);
  }
  off += 2;
  if (et != kEtherTypeIpv4 || len < off + 20 || (d[off] >> 4) != 4) return nullptr;
  return d + off;
}

}  // namespace

void EcnConsider(WorkerCtx& w, PortId out, int eprio, const RedQueue& red, int64_t depth,
                 rte_mbuf* m) {
  const uint32_t r = red.NeedsDraw(depth) ? w.ecn_rng.Next32() : 0;
  if (!red.Mark(depth, r)) return;
  uint8_t* ip = Ipv4Header(m);
  const uint8_t was = ip ? Ipv4MarkCe(ip) : kEcnNotEct;
  if (was == kEcnEct0 || was == kEcnEct1)
    w.st->prio[out][eprio].ecn_marked.Add(1);
  else if (was == kEcnNotEct)
    w.st->prio[out][eprio].ecn_not_ect.Add(1);
}

}  // namespace pfc
