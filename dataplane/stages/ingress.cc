// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/ingress.h"

#include <rte_ether.h>
#include <rte_prefetch.h>

#include <cstddef>
#include <cstring>

#include "dataplane/buffer/accountant.h"
#include "dataplane/net/ipv4_edit.h"
#include "dataplane/net/parser.h"
#include "dataplane/net/vlan_edit.h"
#include "dataplane/stages/egress.h"
#include "dataplane/stages/local.h"
#include "dataplane/stages/pfc_stage.h"

namespace pfc::stages {
namespace {

inline void Drop(WorkerCtx& w, PortId in, int prio, DropReason r, rte_mbuf* m) {
  w.st->prio[in][prio].drops[static_cast<int>(r)].Add(1);
  rte_pktmbuf_free(m);
}

// Bytes rounded up to whole buffer cells. Power-of-two cells (every shipped
// config, and the 1-byte cells of the HPCC simulator's converted files)
// take a mask (Tables::cell_mask) instead of a division. The caller
// passes the table's values as locals: read through `t` after the loop's
// stores to packet data, they would be reloaded for every packet.
inline uint32_t CellRound(uint32_t bytes, uint32_t cell_mask, uint32_t cell_bytes) {
  if (cell_mask != sw::Tables::kCellDivide) [[likely]]
    return (bytes + cell_mask) & ~cell_mask;
  return (bytes + cell_bytes - 1) / cell_bytes * cell_bytes;
}

// The first 8 bytes of a frame (destination MAC + 2) as one load, and a MAC
// as the same 48 bits, so "is it for us" is one compare. Frames reaching the
// check are at least a full Ethernet header long (the parser refused others).
constexpr uint64_t kMac48 = 0xffffffffffffull;
inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Mac48(const config::MacAddr& mac) {
  uint64_t v = 0;
  std::memcpy(&v, mac.data(), 6);
  return v;
}

// Which of a route's `n` equal-cost next hops this packet's flow takes:
// the hash of its 5-tuple (tables/ecmp_hash.h). Ports are read for UDP and
// TCP when the first fragment's header is there; else they count as 0, so
// every fragment of a datagram goes one way.
// Out of line: the hash inlined into the ingress loop would cost every
// packet registers, ECMP or not. Not cold, though: a Clos ToR or leaf takes
// it for every packet going up, and a cold call moved the rest of the
// packet's forwarding to the cold section behind it (dropping the mark:
// 0.985 of the CPU on the HPCC simulator's fat-tree).
[[gnu::noinline]] uint16_t EcmpPick(const sw::Tables& t, const net::ParsedPacket& pp,
                                    const uint8_t* d, uint32_t len, uint16_t n) {
  tables::FlowKey k;
  k.src_ip = pp.src_ip;
  k.dst_ip = pp.dst_ip;
  k.proto = pp.ip_proto;
  const uint32_t l4 = uint32_t{pp.l3_off} + pp.ip_hdr_len;
  if ((pp.ip_proto == 17 || pp.ip_proto == 6) && !pp.ip_fragment && l4 + 4 <= len) {
    k.src_port = static_cast<uint16_t>(d[l4] << 8 | d[l4 + 1]);
    k.dst_port = static_cast<uint16_t>(d[l4 + 2] << 8 | d[l4 + 3]);
  }
  return static_cast<uint16_t>(tables::EcmpHash(t.ecmp_hash, k, t.ecmp_seed) % n);
}

// The L3 rewrite of a burst's Ethernet addresses, memoised: a burst usually
// goes to few next hops. The memo is keyed by (neighbour address, out port):
// two next hops may share a gateway on different ports. It starts on port
// kNoPort, which no packet goes to, so it matches nothing until filled:
// every address, 0.0.0.0 included, can be a target. `hdr_*` hold the new
// destination and source MACs as they are written, in two stores.
struct MacMemo {
  static constexpr PortId kNoPort = 0xffff;
  uint32_t ip = 0;
  PortId port = kNoPort;
  uint64_t hdr_lo = 0;  // bytes 0..7: destination MAC, first 2 of the source
  uint32_t hdr_hi = 0;  // bytes 8..11: the rest of the source MAC
  bool Has(uint32_t target, PortId out) const { return target == ip && out == port; }
  void Fill(uint32_t target, PortId out, const uint8_t* dst, const config::MacAddr& src) {
    uint8_t h[12];
    std::memcpy(h, dst, 6);
    std::memcpy(h + 6, src.data(), 6);
    std::memcpy(&hdr_lo, h, 8);
    std::memcpy(&hdr_hi, h + 8, 4);
    ip = target;
    port = out;
  }
  void Write(uint8_t* frame) const {
    std::memcpy(frame, &hdr_lo, 8);
    std::memcpy(frame + 8, &hdr_hi, 4);
  }
};
static_assert(kMaxPorts <= MacMemo::kNoPort, "kNoPort is no port");

// One 8-byte store instead of four field stores (GCC 12 builds the struct
// field by field otherwise): in_port bytes 0-1, in_prio 2, flags 3 (0),
// charged 4-7, little-endian as on every target DPDK builds this for.
inline void SetMeta(sw::PktMeta* meta, PortId in, uint8_t prio, uint32_t charge) {
  static_assert(sizeof(sw::PktMeta) == 8 && offsetof(sw::PktMeta, in_prio) == 2 &&
                    offsetof(sw::PktMeta, flags) == 3 && offsetof(sw::PktMeta, charged) == 4,
                "PktMeta is written as one word");
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "SetMeta packs little-endian");
  const uint64_t word = uint64_t{in} | uint64_t{prio} << 16 | uint64_t{charge} << 32;
  std::memcpy(meta, &word, 8);
}

// The burst's packets grouped by (out port, egress priority), so each group
// is one ring enqueue. Group g's packets are pkts[g][0, n[g]); slot[key] is
// the group of key = out * 8 + prio (kNone: none yet). Rows are a power of
// two apart, so finding a packet's place costs a shift, not a multiply.
// The slot table is the worker's (WorkerCtx::ingress_group_slots), all
// kNone between bursts: the destructor puts back the entries it used.
struct Groups {
  static constexpr uint8_t kNone = buffer::SlotTable::kNone;
  uint8_t* slot;
  uint16_t n[kMaxBurst];
  uint16_t key[kMaxBurst];
  uint32_t bytes[kMaxBurst];  // Add<true> only: the group's pkt_len summed
  int count = 0;
  rte_mbuf* pkts[kMaxBurst][kMaxBurst];

  explicit Groups(buffer::SlotTable& t) : slot(t.s) {}
  ~Groups() {
    for (int g = 0; g < count; g++) slot[key[g]] = kNone;
  }
  template <bool kBytes>
  void Add(uint16_t k, rte_mbuf* m) {
    uint8_t g = slot[k];
    if (g == kNone) {
      g = static_cast<uint8_t>(count++);
      slot[k] = g;
      key[g] = k;
      n[g] = 0;
      if constexpr (kBytes) bytes[g] = 0;
    }
    pkts[g][n[g]++] = m;
    if constexpr (kBytes) bytes[g] += rte_pktmbuf_pkt_len(m);
  }
};
static_assert(kMaxBurst <= Groups::kNone, "group numbers fit in a byte");

}  // namespace

bool SendControl(WorkerCtx& w, PortId port, rte_mbuf* m) {
  MarkQueued(w, port, sw::PortOwnerState::kControlRing);
  if (rte_ring_enqueue(w.sw->ports[port].control, m) != 0) {
    w.st->prio[port][w.t->tag_map.lossy_prio]
        .drops[static_cast<int>(DropReason::kEgressQueueFull)]
        .Add(1);
    rte_pktmbuf_free(m);
    return false;
  }
  return true;
}

namespace {

// Out of line: a lossless ring full, or packets already waiting behind it.
[[gnu::noinline]] void HoldRefused(WorkerCtx& w, PortId out, int eprio, rte_mbuf** pkts,
                                   unsigned n) {
  for (unsigned i = 0; i < n; i++) w.held->Hold(out, eprio, pkts[i]);
  w.st->prio[out][eprio].egress_queue_held.Add(n);
}

// The burst loop, one instance per forwarding mode: `l3` is known at compile
// time, so the L2 loop carries none of the L3 steps' tests (the mode is the
// snapshot's, fixed for the burst).
template <bool l3>
void IngressBurstMode(WorkerCtx& w, PortId in, rte_mbuf** pkts, uint16_t n) {
  sw::Switch& sw = *w.sw;
  const sw::Tables& t = *w.t;
  const sw::PortRuntime& ip = sw.ports[in];
  sw::PortCounters& pc = w.st->port[in];
  const uint8_t lossy = t.tag_map.lossy_prio;

  buffer::IngressBatch admit(sw.buffer, in, &w.pool_slack, n);
  // Priorities a feature holds lossy on this port (held_lossy, hooks.h):
  // what would need headroom is dropped instead.
  admit.set_held_lossy(w.hooks.HeldLossy(w, in), w.hooks.held_lossy_drop);
  buffer::ReleaseBatch undo(sw.buffer, &w.pool_slack, &w.ingress_undo_slots);
  uint64_t rx_bytes = 0;
  // Per-burst accumulators, flushed once (style guide: counters).
  uint32_t prio_rx[kNumPrio] = {}, prio_rx_bytes[kNumPrio] = {};
  MacMemo memo;
  const uint64_t my_mac = Mac48(ip.mac);
  const uint32_t cell_mask = t.cell_mask, cell_bytes = t.cell_bytes;
  sw::PrioCounters* const in_prio_pc = w.st->prio[in];
  // The per-packet pipeline: a packet that goes on is packed at the front
  // of pkts with its group key (out port * 8 + egress priority) in keys;
  // one consumed here (dropped, a MAC control frame, ARP) is not.
  // seen_prio: the last packet's priority (for the one-packet path's
  // counters; dead in the burst loop's).
  uint16_t keys[kMaxBurst];
  uint16_t kept = 0;
  uint8_t seen_prio = kNumPrio;
  // (Both lambdas inlined at both call sites: out of line, the burst loop
  // would pay a call and reload its state through the closure per packet.)
  // clang-format off
  auto forward = [&](rte_mbuf* m) __attribute__((always_inline)) {
    // clang-format on
    uint8_t* d = rte_pktmbuf_mtod(m, uint8_t*);
    const uint32_t len = rte_pktmbuf_data_len(m);
    rx_bytes += rte_pktmbuf_pkt_len(m);

    net::ParsedPacket pp;
    switch (net::ParseFrame(d, len, t.verify_ip_checksum, &pp)) {
      case net::PktKind::kBad:
        Drop(w, in, lossy, pp.bad, m);
        return;
      case net::PktKind::kMacControl:
        PfcReceive(w, in, m);  // consumed, never forwarded
        return;
      case net::PktKind::kArp:
        if constexpr (l3) {
          HandleArp(w, in, pp, m);
          return;
        }
        break;  // L2 mode: ARP is switched like any non-IP frame (unicast only)
      case net::PktKind::kOtherL2:
      case net::PktKind::kIpv4:
        break;
    }
    const bool is_ip = pp.kind == net::PktKind::kIpv4;
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
    seen_prio = prio;
    prio_rx[prio]++;
    prio_rx_bytes[prio] += rte_pktmbuf_pkt_len(m);
    if (fallback && is_ip) in_prio_pc[prio].lossy_fallback.Add(1);

    // Where does it go? Unknown destinations are dropped, never flooded
    // (SIGCOMM'16 §4.2: flooding lossless packets creates deadlocks).
    PortId out;
    if constexpr (l3) {
      if (((Load64(d) ^ my_mac) & kMac48) != 0) {
        Drop(w, in, prio, DropReason::kNotForUs, m);
        return;
      }
      if (!is_ip) {
        Drop(w, in, prio, DropReason::kUnsupported, m);
        return;
      }
      uint16_t nhi = t.routes.Lookup(pp.dst_ip);
      // Our addresses sit in connected subnets (no gateway) or have no route.
      const bool maybe_local =
          nhi == tables::RouteTable::kNoRoute || t.routes.next_hop(nhi).gateway == 0;
      if (maybe_local && IsLocalAddress(sw, pp.dst_ip)) {
        HandleLocal(w, in, pp, m, prio);
        return;
      }
      if (pp.ttl <= 1) {
        Drop(w, in, prio, DropReason::kTtlExpired, m);
        return;
      }
      if (nhi == tables::RouteTable::kNoRoute) {
        Drop(w, in, prio, DropReason::kNoRoute, m);
        return;
      }
      if (const uint16_t g = t.routes.next_hop(nhi).group; g > 1) {
        nhi = static_cast<uint16_t>(nhi + EcmpPick(t, pp, d, len, g));  // the flow's member
        w.st->port[t.routes.next_hop(nhi).port].ecmp_tx.Add(1);
      }
      const tables::NextHop* nh = &t.routes.next_hop(nhi);
      out = nh->port;
      const uint32_t target = nh->gateway ? nh->gateway : pp.dst_ip;
      // Configured neighbours first (they win over anything learnt by ARP).
      if (!memo.Has(target, out)) {
        uint8_t nh_mac[6];
        if (!t.neighbors.Lookup(target, nh_mac) && !sw.neighbors.Lookup(target, nh_mac)) {
          RequestArp(w, out, target);
          Drop(w, in, prio, DropReason::kNeighborMiss, m);
          return;
        }
        memo.Fill(target, out, nh_mac, sw.ports[out].mac);
      }
    } else {
      int p = pp.dst_multicast ? -1 : t.L2Lookup(d);
      if (p < 0) {
        Drop(w, in, prio, DropReason::kUnknownL2Dst, m);
        return;
      }
      out = static_cast<PortId>(p);
    }

    if (out == in && t.hairpin_drop) {
      Drop(w, in, prio, DropReason::kHairpin, m);
      return;
    }

    // Buffer admission: charged to the ingress priority group until the
    // packet leaves the switch.
    const uint32_t charge = CellRound(rte_pktmbuf_pkt_len(m), cell_mask, cell_bytes);
    DropReason why;
    if (!admit.Admit(prio, charge, &why)) {
      Drop(w, in, prio, why, m);
      return;
    }

    // Steps 2 and 3: rewrite by (tag, in, out), queue by the NEW tag.
    uint8_t eprio = lossy;
    if (is_ip) {
      const uint8_t new_tag = t.rewrite.Lookup(tag, in, out);
      eprio = t.tag_map.prio_of[new_tag];
      uint8_t* iph = d + pp.l3_off;
      if (new_tag != tag) {
        net::Ipv4SetDscp(iph, new_tag);
        in_prio_pc[prio].rewrites.Add(1);
        if (new_tag == t.tag_map.lossy_tag) in_prio_pc[prio].to_lossy_tag.Add(1);
      }
      if constexpr (l3) net::Ipv4DecrementTtl(iph);
    }
    // A tagged frame leaves with PCP = the priority it was queued at, so a
    // next hop that trusts PCP agrees with the DSCP (net/vlan_edit.h).
    if (pp.has_vlan && net::VlanSetPcp(d + net::kVlanTciOffset, eprio)) pc.pcp_rewrites.Add(1);
    if constexpr (l3) memo.Write(d);  // the memo is the packet's next hop here
    SetMeta(sw.Meta(m), in, prio, charge);

    keys[kept] = static_cast<uint16_t>(out * kNumPrio + eprio);
    pkts[kept++] = m;
  };
  // Each group to its queue, through the enqueue hooks; `bytes`: the
  // group's, for the hooks that read them (0 for the others).
  auto enqueue = [&](PortId out, int eprio, rte_mbuf** gp, uint16_t gn, uint64_t bytes)
      __attribute__((always_inline)) {
    uint32_t notes[kMaxHookUsers];
    gn = w.hooks.Enqueue(w, out, eprio, gp, gn, bytes, undo, notes);
    MarkQueued(w, out, static_cast<uint16_t>(1u << eprio));
    // Behind packets already held for this queue, a packet waits too (order).
    const bool behind = w.held->packets != 0 && w.held->At(out, eprio).n != 0;
    unsigned done = behind ? 0
                           : rte_ring_enqueue_burst(sw.ports[out].egress[eprio],
                                                    reinterpret_cast<void**>(gp), gn, nullptr);
    if (done < gn && (w.t->tag_map.lossless_mask >> eprio & 1)) [[unlikely]] {
      // A lossless queue: what the ring cannot take waits, still charged,
      // and counts as queued for the hooks (it is the queue's tail).
      HoldRefused(w, out, eprio, gp + done, gn - done);
      done = gn;
    }
    w.hooks.Enqueued(w, in, out, eprio, gp, notes, done);
    if (done < gn) [[unlikely]]
      w.hooks.Refused(w, out, eprio, gp + done, static_cast<uint16_t>(gn - done));
    for (unsigned k = done; k < gn; k++) {
      rte_mbuf* m = gp[k];
      const sw::PktMeta* meta = sw.Meta(m);
      undo.Add(meta->in_port, meta->in_prio, meta->charged);
      Drop(w, in, meta->in_prio, DropReason::kEgressQueueFull, m);
    }
  };

  // A burst of one frame (an emulated switch's usual round): the frame
  // straight to its queue, with no grouping and no per-priority sums.
  if (n == 1) {
    const uint32_t plen = rte_pktmbuf_pkt_len(pkts[0]);
    forward(pkts[0]);
    // Its ring's producer line, fetched while the counters are settled (as
    // the burst path does for each group, below).
    if (kept != 0)
      __builtin_prefetch(&sw.ports[keys[0] / kNumPrio].egress[keys[0] % kNumPrio]->prod, 1);
    pc.rx_packets.Add(1);
    pc.rx_bytes.Add(plen);
    if (seen_prio < kNumPrio) {
      w.st->prio[in][seen_prio].rx_packets.Add(1);
      w.st->prio[in][seen_prio].rx_bytes.Add(plen);
    }
    pc.rx_bursts.Add(1);
    admit.Flush();
    if (kept != 0)
      enqueue(static_cast<PortId>(keys[0] / kNumPrio), keys[0] % kNumPrio, pkts, 1,
              w.hooks.enqueue_bytes ? plen : 0);
    return;
  }

  // The packets that go on, packed at the front of pkts, and their group
  // keys: grouping is a second pass. Inside this loop, each packet's slot
  // and count loads would wait on its own chain of lookups (tag, rewrite,
  // priority) and hold the next packet back: the pass gains 7% of the L3
  // rate on net_pcap for about 12 more instructions a packet.
  Groups groups(w.ingress_group_slots);
  for (uint16_t i = 0; i < n; i++) {
    if (i + 2 < n) rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 2], void*));
    forward(pkts[i]);
  }
  // With enqueue users that read a group's bytes (ECN, INT), each group's
  // bytes are summed as it is grouped, two instructions a packet, where a
  // walk of their own over the group cost them seven; a switch without such
  // users pays a test a burst. (Not a template parameter of the whole burst
  // loop: four instances of it made LTO stop inlining IngressBatch's
  // constructor, half an instruction a packet.)
  if (w.hooks.enqueue_bytes) [[unlikely]] {
    for (uint16_t i = 0; i < kept; i++) groups.Add<true>(keys[i], pkts[i]);
  } else {
    for (uint16_t i = 0; i < kept; i++) groups.Add<false>(keys[i], pkts[i]);
  }
  // Each queue's ring takes its group below: the ring's producer line, out
  // of the caches when the queue's last frame was long ago (the emulator's
  // switches, a frame a burst), is fetched while the counters and the buffer
  // are settled. Once a group, not a packet: a burst of a busy port has few.
  for (int g = 0; g < groups.count; g++)
    __builtin_prefetch(&sw.ports[groups.key[g] / kNumPrio].egress[groups.key[g] % kNumPrio]->prod,
                       1);
  pc.rx_packets.Add(n);
  pc.rx_bytes.Add(rx_bytes);
  for (int q = 0; q < kNumPrio; q++) {
    if (!prio_rx[q]) continue;
    w.st->prio[in][q].rx_packets.Add(prio_rx[q]);
    w.st->prio[in][q].rx_bytes.Add(prio_rx_bytes[q]);
  }
  pc.rx_bursts.Add(1);
  admit.Flush();

  for (int g = 0; g < groups.count; g++)
    enqueue(static_cast<PortId>(groups.key[g] / kNumPrio), groups.key[g] % kNumPrio, groups.pkts[g],
            groups.n[g], w.hooks.enqueue_bytes ? groups.bytes[g] : 0);
}

}  // namespace

void IngressBurst(WorkerCtx& w, PortId in, rte_mbuf** pkts, uint16_t n) {
  if (w.t->l3)
    IngressBurstMode<true>(w, in, pkts, n);
  else
    IngressBurstMode<false>(w, in, pkts, n);
}

}  // namespace pfc::stages
