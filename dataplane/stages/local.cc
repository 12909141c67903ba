// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/local.h"

#include <rte_byteorder.h>

#include <cstring>

#include "dataplane/net/ipv4_edit.h"
#include "dataplane/stages/ingress.h"

namespace pfc::stages {
namespace {

constexpr uint8_t kBroadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

void PutU16(uint8_t* p, uint16_t v) {
  p[0] = v >> 8;
  p[1] = v & 0xff;
}
void PutU32(uint8_t* p, uint32_t v) {
  PutU16(p, v >> 16);
  PutU16(p + 2, v & 0xffff);
}

constexpr uint16_t kArpFrameLen = 60;  // minimum Ethernet frame without FCS

// Writes an Ethernet/IPv4 ARP frame, zero padded to 60 bytes. With `tag` (the
// 4 bytes TPID + TCI of an 802.1Q tag, not pointing into f) the tag follows
// the source MAC and the frame is 64 bytes, so it is still a minimum-size
// frame after a bridge strips the tag. Returns the frame's length.
uint16_t WriteArp(uint8_t* f, const uint8_t* tag, const uint8_t* eth_dst, const uint8_t* eth_src,
                  uint16_t op, const uint8_t* sha, uint32_t spa, const uint8_t* tha, uint32_t tpa) {
  const uint16_t len = tag ? kArpFrameLen + 4 : kArpFrameLen;
  std::memset(f, 0, len);
  std::memcpy(f, eth_dst, 6);
  std::memcpy(f + 6, eth_src, 6);
  uint8_t* l2 = f + 12;
  if (tag) {
    std::memcpy(l2, tag, 4);
    l2 += 4;
  }
  PutU16(l2, net::kEtherTypeArp);
  uint8_t* a = l2 + 2;
  PutU16(a, 1);           // hardware: Ethernet
  PutU16(a + 2, 0x0800);  // protocol: IPv4
  a[4] = 6;
  a[5] = 4;
  PutU16(a + 6, op);
  std::memcpy(a + 8, sha, 6);
  PutU32(a + 14, spa);
  std::memcpy(a + 18, tha, 6);
  PutU32(a + 24, tpa);
  return len;
}

void DropLocal(WorkerCtx& w, PortId in, DropReason r, rte_mbuf* m) {
  w.st->prio[in][w.t->tag_map.lossy_prio].drops[static_cast<int>(r)].Add(1);
  rte_pktmbuf_free(m);
}

}  // namespace

bool IsLocalAddress(const sw::Switch& sw, uint32_t ip) {
  for (const uint32_t a : sw.local_ipv4)
    if (a == ip) return true;
  return false;
}

void HandleArp(WorkerCtx& w, PortId in, const net::ParsedPacket& pp, rte_mbuf* m) {
  sw::Switch& sw = *w.sw;
  const sw::PortRuntime& port = sw.ports[in];
  w.st->port[in].arp_rx.Add(1);
  net::ArpView arp;
  if (!w.t->l3 ||
      !net::ParseArp(rte_pktmbuf_mtod(m, uint8_t*), rte_pktmbuf_data_len(m), pp, &arp)) {
    // The parser vouched for the rest: an opcode other than request/reply.
    DropLocal(w, in, DropReason::kArpUnsupported, m);
    return;
  }
  // Learn the sender when it is on this port's subnet (gratuitous ARP,
  // requests for our address, and replies to our requests all qualify). A
  // configured neighbour is not learnt: the snapshot's entry wins anyway.
  if (arp.spa != 0 && (arp.spa & port.mask) == (port.ipv4 & port.mask) && arp.spa != port.ipv4 &&
      !(arp.sha[0] & 1) && !w.t->neighbors.Contains(arp.spa))
    sw.neighbors.Learn(arp.spa, arp.sha, false);
  if (arp.op != 1 || arp.tpa != port.ipv4) {
    rte_pktmbuf_free(m);  // consumed: a reply, or a request for someone else
    return;
  }
  // Answer in place: the request's buffer becomes the reply. A request that
  // came with an 802.1Q tag is answered with the same tag: a host on a VLAN
  // interface only hears its VLAN (the switch has no VLAN configuration of
  // its own; the tag travels with the traffic, see docs/explanation/tagger.md).
  uint8_t* f = rte_pktmbuf_mtod(m, uint8_t*);
  uint8_t sha[6], tag[4];
  std::memcpy(sha, arp.sha, 6);
  if (pp.has_vlan) std::memcpy(tag, f + 12, 4);
  const uint16_t len = WriteArp(f, pp.has_vlan ? tag : nullptr, sha, port.mac.data(), 2,
                                port.mac.data(), port.ipv4, sha, arp.spa);
  m->data_len = m->pkt_len = len;
  if (SendControl(w, in, m)) w.st->port[in].arp_reply_tx.Add(1);
}

void RequestArp(WorkerCtx& w, PortId port, uint32_t ip) {
  const size_t slot = (ip * 2654435761u) >> 26;  // 64 slots
  if (w.arp_ip[slot] == ip && w.now_ns - w.arp_last_ns[slot] < WorkerCtx::kArpRetryNs) return;
  w.arp_ip[slot] = ip;
  w.arp_last_ns[slot] = w.now_ns;
  sw::Switch& sw = *w.sw;
  const sw::PortRuntime& p = sw.ports[port];
  rte_mbuf* m = sw.dp.Alloc();
  if (!m) return;  // pool empty: the next packet to this host retries
  uint8_t* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, kArpFrameLen));
  if (!f) {
    rte_pktmbuf_free(m);
    return;
  }
  const uint8_t zero[6] = {};
  WriteArp(f, nullptr, kBroadcast, p.mac.data(), 1, p.mac.data(), p.ipv4, zero, ip);
  if (SendControl(w, port, m)) w.st->port[port].arp_request_tx.Add(1);
}

void HandleLocal(WorkerCtx& w, PortId in, const net::ParsedPacket& pp, rte_mbuf* m, int prio) {
  uint8_t* f = rte_pktmbuf_mtod(m, uint8_t*);
  uint8_t* ip = f + pp.l3_off;
  const uint32_t len = rte_pktmbuf_data_len(m);
  // Only ICMP echo requests (type 8), unfragmented, with the ICMP header present.
  if (pp.ip_proto != 1 || pp.ip_fragment || pp.l3_off + pp.ip_hdr_len + 8u > len ||
      ip[pp.ip_hdr_len] != 8) {
    w.st->prio[in][prio].drops[static_cast<int>(DropReason::kUnsupported)].Add(1);
    rte_pktmbuf_free(m);
    return;
  }
  uint8_t* icmp = ip + pp.ip_hdr_len;
  icmp[0] = 0;  // echo reply
  // Type 8 -> 0 lowers the one's-complement sum by 0x0800, so the stored
  // checksum (its complement) rises by 0x0800 with end-around carry.
  uint32_t c = (uint32_t{icmp[2]} << 8 | icmp[3]) + 0x0800;
  c = (c & 0xffff) + (c >> 16);
  icmp[2] = c >> 8;
  icmp[3] = c & 0xff;
  uint8_t tmp[6];
  std::memcpy(tmp, ip + 12, 4);
  std::memcpy(ip + 12, ip + 16, 4);
  std::memcpy(ip + 16, tmp, 4);
  ip[8] = 64;
  ip[10] = ip[11] = 0;
  const uint16_t cs = net::Ipv4HeaderChecksum(ip, pp.ip_hdr_len);
  std::memcpy(ip + 10, &cs, 2);
  std::memcpy(tmp, f, 6);
  std::memcpy(f, f + 6, 6);
  std::memcpy(f + 6, tmp, 6);
  if (SendControl(w, in, m)) w.st->port[in].icmp_echo_reply.Add(1);
}

}  // namespace pfc::stages
