// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/ingress.h"

#include <rte_ether.h>
#include <rte_prefetch.h>

#include <cstring>

#include "dataplane/buffer/accountant.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/net/parser.h"
#include "dataplane/net/vlan_edit.h"
#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/local.h"
#include "dataplane/stages/pfc_stage.h"

namespace pfc {
namespace {

inline void Drop(WorkerCtx& w, PortId in, int prio, DropReason r, rte_mbuf* m) {
  w.st->prio[in][prio].drops[static_cast<int>(r)].Add(1);
  rte_pktmbuf_free(m);
}

// Bytes rounded up to whole buffer cells. Power-of-two cells (every shipped
// config) take a mask (Tables::cell_mask) instead of a division.
inline uint32_t CellRound(uint32_t bytes, const Tables& t) {
  if (t.cell_mask) return (bytes + t.cell_mask) & ~t.cell_mask;
  return (bytes + t.cell_bytes - 1) / t.cell_bytes * t.cell_bytes;
}

// The burst's packets grouped by (out port, egress priority), so each group
// is one ring enqueue. Group g's packets are pkts[g][0, n[g]); slot[key] is
// the group of key = out * 8 + prio (kNone: none yet). Rows are a power of
// two apart, so finding a packet's place costs a shift, not a multiply.
struct Groups {
  static constexpr uint8_t kNone = 0xff;
  uint8_t slot[kMaxPorts * kNumPrio];
  uint16_t n[kMaxBurst];
  uint16_t key[kMaxBurst];
  int count = 0;
  rte_mbuf* pkts[kMaxBurst][kMaxBurst];

  Groups() { std::memset(slot, kNone, sizeof slot); }
  void Add(uint16_t k, rte_mbuf* m) {
    uint8_t g = slot[k];
    if (g == kNone) {
      g = static_cast<uint8_t>(count++);
      slot[k] = g;
      key[g] = k;
      n[g] = 0;
    }
    pkts[g][n[g]++] = m;
  }
};
static_assert(kMaxBurst <= Groups::kNone, "group numbers fit in a byte");

}  // namespace

bool SendControl(WorkerCtx& w, PortId port, rte_mbuf* m) {
  if (rte_ring_enqueue(w.sw->ports[port].control, m) != 0) {
    w.st->prio[port][w.t->tag_map.lossy_prio]
        .drops[static_cast<int>(DropReason::kEgressQueueFull)]
        .Add(1);
    rte_pktmbuf_free(m);
    return false;
  }
  return true;
}

void IngressBurst(WorkerCtx& w, PortId in, rte_mbuf** pkts, uint16_t n) {
  Switch& sw = *w.sw;
  const Tables& t = *w.t;
  const PortRuntime& ip = sw.ports[in];
  PortCounters& pc = w.st->port[in];
  const bool l3 = t.l3;
  const uint8_t lossy = t.tag_map.lossy_prio;

  IngressBatch admit(sw.buffer, in);
  // A DCFIT trigger host's port under a hold is lossy for the held
  // priorities: what would need headroom is dropped instead.
  admit.set_no_headroom(DcfitHostHold(w, in));
  ReleaseBatch undo(sw.buffer);
  Groups groups;
  uint64_t rx_bytes = 0;
  // Per-burst accumulators, flushed once (style guide: counters).
  uint32_t prio_rx[kNumPrio] = {}, prio_rx_bytes[kNumPrio] = {};
  // Next-hop MAC memo: a burst usually goes to few next hops. Validity is
  // its own flag: every address, 0.0.0.0 included, can be a lookup target.
  bool memo_valid = false;
  uint32_t memo_ip = 0;
  uint8_t memo_mac[6] = {};

  for (uint16_t i = 0; i < n; i++) {
    if (i + 2 < n) rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 2], void*));
    rte_mbuf* m = pkts[i];
    uint8_t* d = rte_pktmbuf_mtod(m, uint8_t*);
    const uint32_t len = rte_pktmbuf_data_len(m);
    rx_bytes += rte_pktmbuf_pkt_len(m);

    ParsedPacket pp;
    switch (ParseFrame(d, len, t.verify_ip_checksum, &pp)) {
      case PktKind::kBad:
        Drop(w, in, lossy, pp.bad, m);
        continue;
      case PktKind::kMacControl:
        PfcReceive(w, in, m);  // consumed, never forwarded
        continue;
      case PktKind::kArp:
        if (l3) {
          HandleArp(w, in, pp, m);
          continue;
        }
        break;  // L2 mode: ARP is switched like any non-IP frame (unicast only)
      case PktKind::kOtherL2:
      case PktKind::kIpv4:
        break;
    }
    const bool is_ip = pp.kind == PktKind::kIpv4;
    if (__builtin_expect(!is_ip | pp.ip_options | pp.ip_fragment, 0)) {  // one test, rarely taken
      if (!is_ip) pc.non_ip.Add(1);
      if (pp.ip_options) pc.ipv4_options.Add(1);
      if (pp.ip_fragment) pc.ipv4_fragments.Add(1);
    }

    // Step 1 of Tagger's pipeline: the ingress queue by tag. Non-IP traffic
    // has no tag and is always lossy.
    bool fallback = !is_ip;
    const uint8_t tag = is_ip ? pp.dscp : t.tag_map.lossy_tag;
    const uint8_t prio = is_ip ? t.tag_map.Classify(tag, &fallback) : lossy;
    PrioCounters& in_pc = w.st->prio[in][prio];
    prio_rx[prio]++;
    prio_rx_bytes[prio] += rte_pktmbuf_pkt_len(m);
    if (fallback && is_ip) in_pc.lossy_fallback.Add(1);

    // Where does it go? Unknown destinations are dropped, never flooded
    // (SIGCOMM'16 §4.2: flooding lossless packets creates deadlocks).
    PortId out;
    const uint8_t* dst_mac = nullptr;
    uint8_t nh_mac[6];
    if (l3) {
      if (std::memcmp(d, ip.mac.data(), 6) != 0) {
        Drop(w, in, prio, DropReason::kNotForUs, m);
        continue;
      }
      if (!is_ip) {
        Drop(w, in, prio, DropReason::kUnsupported, m);
        continue;
      }
      uint16_t nhi = t.routes.Lookup(pp.dst_ip);
      // Our addresses sit in connected subnets (no gateway) or have no route.
      const bool maybe_local = nhi == RouteTable::kNoRoute || t.routes.next_hop(nhi).gateway == 0;
      if (maybe_local && IsLocalAddress(sw, pp.dst_ip)) {
        HandleLocal(w, in, pp, m, prio);
        continue;
      }
      if (pp.ttl <= 1) {
        Drop(w, in, prio, DropReason::kTtlExpired, m);
        continue;
      }
      if (nhi == RouteTable::kNoRoute) {
        Drop(w, in, prio, DropReason::kNoRoute, m);
        continue;
      }
      const NextHop& nh = t.routes.next_hop(nhi);
      out = nh.port;
      const uint32_t target = nh.gateway ? nh.gateway : pp.dst_ip;
      // Configured neighbours first (they win over anything learnt by ARP).
      if (memo_valid && target == memo_ip) {
        std::memcpy(nh_mac, memo_mac, 6);
      } else if (t.neighbors.Lookup(target, nh_mac) || sw.neighbors.Lookup(target, nh_mac)) {
        memo_valid = true;
        memo_ip = target;
        std::memcpy(memo_mac, nh_mac, 6);
      } else {
        RequestArp(w, out, target);
        Drop(w, in, prio, DropReason::kNeighborMiss, m);
        continue;
      }
      dst_mac = nh_mac;
    } else {
      int p = pp.dst_multicast ? -1 : t.L2Lookup(d);
      if (p < 0) {
        Drop(w, in, prio, DropReason::kUnknownL2Dst, m);
        continue;
      }
      out = static_cast<PortId>(p);
    }

    if (out == in && t.hairpin_drop) {
      Drop(w, in, prio, DropReason::kHairpin, m);
      continue;
    }

    // Buffer admission: charged to the ingress priority group until the
    // packet leaves the switch.
    const uint32_t charge = CellRound(rte_pktmbuf_pkt_len(m), t);
    DropReason why;
    if (!admit.Admit(prio, charge, &why)) {
      Drop(w, in, prio, why, m);
      continue;
    }

    // Steps 2 and 3: rewrite by (tag, in, out), queue by the NEW tag.
    uint8_t eprio = lossy;
    if (is_ip) {
      const uint8_t new_tag = t.rewrite.Lookup(tag, in, out);
      eprio = t.tag_map.prio_of[new_tag];
      uint8_t* iph = d + pp.l3_off;
      if (new_tag != tag) {
        Ipv4SetDscp(iph, new_tag);
        in_pc.rewrites.Add(1);
      }
      if (new_tag == t.tag_map.lossy_tag && tag != t.tag_map.lossy_tag) in_pc.to_lossy_tag.Add(1);
      if (l3) Ipv4DecrementTtl(iph);
    }
    // A tagged frame leaves with PCP = the priority it was queued at, so a
    // next hop that trusts PCP agrees with the DSCP (net/vlan_edit.h).
    if (pp.has_vlan && VlanSetPcp(d + kVlanTciOffset, eprio)) pc.pcp_rewrites.Add(1);
    if (l3) {
      std::memcpy(d, dst_mac, 6);
      std::memcpy(d + 6, sw.ports[out].mac.data(), 6);
    }
    PktMeta* meta = sw.Meta(m);
    meta->in_port = in;
    meta->in_prio = prio;
    meta->flags = 0;
    meta->charged = charge;

    groups.Add(static_cast<uint16_t>(out * kNumPrio + eprio), m);
  }
  pc.rx_packets.Add(n);
  pc.rx_bytes.Add(rx_bytes);
  for (int q = 0; q < kNumPrio; q++) {
    if (!prio_rx[q]) continue;
    w.st->prio[in][q].rx_packets.Add(prio_rx[q]);
    w.st->prio[in][q].rx_bytes.Add(prio_rx_bytes[q]);
  }
  pc.rx_bursts.Add(1);
  admit.Flush();

  for (int g = 0; g < groups.count; g++) {
    const PortId out = groups.key[g] / kNumPrio;
    const int eprio = groups.key[g] % kNumPrio;
    groups.n[g] = DcfitGroup(w, out, eprio, groups.pkts[g], groups.n[g], undo);
    unsigned done =
        rte_ring_enqueue_burst(sw.ports[out].egress[eprio],
                               reinterpret_cast<void**>(groups.pkts[g]), groups.n[g], nullptr);
    DcfitEnqueued(w, in, out, eprio, done);
    for (unsigned k = done; k < groups.n[g]; k++) {
      rte_mbuf* m = groups.pkts[g][k];
      const PktMeta* meta = sw.Meta(m);
      undo.Add(meta->in_port, meta->in_prio, meta->charged);
      Drop(w, in, meta->in_prio, DropReason::kEgressQueueFull, m);
    }
  }
}

}  // namespace pfc
