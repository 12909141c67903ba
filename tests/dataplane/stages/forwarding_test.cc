// SPDX-License-Identifier: BSD-3-Clause
// Stage tests of the forwarding path: L3 forwarding with TTL decrement and
// MAC rewrite, Tagger's DSCP rewrite with egress queueing by the NEW tag's
// priority while the buffer charge stays on the ingress priority (Tagger
// Fig. 8b), the lossy fallback, and drops that must never become floods.
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include <algorithm>
#include <cstring>

#include "dataplane/net/ipv4_edit.h"
#include "tests/dataplane/net/frame_builder.h"
#include "tests/dataplane/stages/stage_harness.h"

namespace pfc::stagetest {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;  // virtual clock
constexpr uint32_t kCell = 128;          // config default cell_bytes; 60-byte frames take one

// What a correct switch sends for `in`: next-hop MAC, the out port's MAC,
// TTL - 1, the new DSCP (ECN kept) and a header checksum computed from
// scratch (the switch patches it incrementally; both must agree).
std::vector<uint8_t> Routed(std::vector<uint8_t> f, int out, const std::array<uint8_t, 6>& nh,
                            uint8_t dscp) {
  const auto src = SwitchMac(out);
  std::memcpy(f.data(), nh.data(), 6);
  std::memcpy(f.data() + 6, src.data(), 6);
  uint8_t* ip = f.data() + 14;
  ip[1] = static_cast<uint8_t>(dscp << 2 | (ip[1] & 3));
  ip[8]--;
  const uint16_t c = net::Ipv4HeaderChecksum(ip, 20);
  std::memcpy(ip + 10, &c, 2);
  return f;
}

using Frames = std::vector<std::vector<uint8_t>>;

// 32 frames from p2 to 10.9.0.<i> (out p1), tags 24 (q3) and 26 (q4)
// alternating, UDP source port i.
Frames AlternatingBurst() {
  Frames in;
  for (uint16_t i = 0; i < 32; i++)
    in.push_back(Frame({.in_port = 2,
                        .dst_ip = Ip(10, 9, 0, static_cast<uint8_t>(i)),
                        .dscp = static_cast<uint8_t>(i % 2 ? 26 : 24),
                        .seq = i}));
  return in;
}

// The counters once all of AlternatingBurst() has left p1.
Counters AlternatingBurstSent() {
  return {{"p2.rx_packets", 32},       {"p2.rx_bytes", 32 * 60},    {"p2.rx_bursts", 1},
          {"p2.q3.rx_packets", 16},    {"p2.q3.rx_bytes", 16 * 60}, {"p2.q4.rx_packets", 16},
          {"p2.q4.rx_bytes", 16 * 60}, {"p1.tx_packets", 32},       {"p1.tx_bytes", 32 * 60},
          {"p1.q3.tx_packets", 16},    {"p1.q3.tx_bytes", 16 * 60}, {"p1.q4.tx_packets", 16},
          {"p1.q4.tx_bytes", 16 * 60}};
}

// Cells of 1 byte (the HPCC simulator's converted files: a packet's own
// bytes) and of a size that is no power of two (a division) charge what
// the frame rounds to.
class CellTest : public StageTest {
 protected:
  void ChargesEach(uint32_t cell, uint64_t charge) {
    Start(BaseYaml("  total_bytes: 256K\n  cell_bytes: " + std::to_string(cell) +
                   "\n"
                   "  lossy: { reserved: 0, limit: 64K }\n"
                   "  lossless: { reserved: 0, xoff: 32K, headroom: 16K, xon_hysteresis: 4K }\n"));
    Frames in;
    for (uint16_t i = 0; i < 8; i++)
      in.push_back(Frame({.in_port = 2, .dst_ip = Ip(10, 9, 0, i), .dscp = 24, .seq = i}));
    Ingress(2, in, kT0);
    EXPECT_EQ(Occ(2, 3), 8 * charge);
    EXPECT_EQ(Egress(1, kT0 + 1000), 8);
    EXPECT_EQ(TakeTx(1).size(), 8u);
    EXPECT_EQ(Occ(2, 3), 0u);
  }
};
TEST_F(CellTest, OneByteCellsChargeTheFrame) { ChargesEach(1, 60); }
TEST_F(CellTest, CellsOfNoPowerOfTwoRoundUp) { ChargesEach(100, 100); }

TEST_F(StageTest, RoutesWithTtlDecrementAndMacRewrite) {
  Start(BaseYaml());
  // 32 packets from the host on p2 to 10.9/16, which is behind 10.0.1.2 on p1.
  Frames in;
  for (uint16_t i = 0; i < 32; i++)
    in.push_back(Frame({.in_port = 2, .dst_ip = Ip(10, 9, 0, i), .dscp = 24, .ecn = 2, .seq = i}));
  Ingress(2, in, kT0);

  // Queued at p1's priority-3 queue, charged to (p2, prio 3), nothing sent yet.
  EXPECT_EQ(QueueDepth(1, 3), 32u);
  EXPECT_EQ(Occ(2, 3), 32 * kCell);
  EXPECT_EQ(rte_ring_count(Wire(1).tx), 0u);

  EXPECT_EQ(Egress(1, kT0 + 1000), 32);
  const Frames out = TakeTx(1);
  ASSERT_EQ(out.size(), 32u);
  const auto nh = HostMac(1);  // 10.0.1.2
  for (size_t i = 0; i < out.size(); i++) {
    EXPECT_EQ(out[i], Routed(in[i], 1, nh, 24)) << "packet " << i;
    EXPECT_TRUE(net::Ipv4ChecksumOk(out[i].data() + 14, 20));
  }
  EXPECT_EQ(Occ(2, 3), 0u);
  EXPECT_EQ(sw_->buffer.watermark(2, 3), 32 * kCell);
  ExpectCounters({{"p2.rx_packets", 32},
                  {"p2.rx_bytes", 32 * 60},
                  {"p2.rx_bursts", 1},
                  {"p2.q3.rx_packets", 32},
                  {"p2.q3.rx_bytes", 32 * 60},
                  {"p1.tx_packets", 32},
                  {"p1.tx_bytes", 32 * 60},
                  {"p1.q3.tx_packets", 32},
                  {"p1.q3.tx_bytes", 32 * 60}});
}

// The egress stage sends one tx burst per round straight from the queues it
// dequeued; what the device refuses goes to its priority's stash and leaves
// first next round. A tx ring with 5 free slots takes 5 of 32 packets of two
// priorities: the rest follows in the next round, each priority in order,
// counted once, its buffer released once.
TEST_F(StageTest, DeviceRefusalIsStashedPerPriorityInOrder) {
  Start(BaseYaml());
  // Fillers occupy the tx ring of p1 so that exactly 5 slots stay free.
  const unsigned free_slots = rte_ring_free_count(Wire(1).tx);
  ASSERT_GT(free_slots, 5u);
  for (unsigned i = 0; i < free_slots - 5; i++) {
    rte_mbuf* m = Mbuf(Frame({.in_port = 2, .dst_ip = Ip(10, 9, 9, 9), .seq = 60000}));
    ASSERT_EQ(rte_ring_enqueue(Wire(1).tx, m), 0);
  }
  Ingress(2, AlternatingBurst(), kT0);
  EXPECT_EQ(Egress(1, kT0 + 1000), 5);
  Frames out;
  for (const auto& f : TakeTx(1))
    if (SeqOf(f) != 60000) out.push_back(f);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(sw_->ports[1].owner_state->data_stash[3].n + sw_->ports[1].owner_state->data_stash[4].n,
            27);
  EXPECT_EQ(Occ(2, 3) + Occ(2, 4), 27 * kCell);  // still charged while stashed
  EXPECT_EQ(Egress(1, kT0 + 2000), 27);
  for (const auto& f : TakeTx(1)) out.push_back(f);
  ASSERT_EQ(out.size(), 32u);
  // Each priority in its own order; every packet exactly once.
  std::vector<uint16_t> even, odd;
  for (const auto& f : out) (DscpOf(f) == 24 ? even : odd).push_back(SeqOf(f));
  ASSERT_EQ(even.size(), 16u);
  ASSERT_EQ(odd.size(), 16u);
  for (uint16_t i = 0; i < 16; i++) {
    EXPECT_EQ(even[i], 2 * i);
    EXPECT_EQ(odd[i], 2 * i + 1);
  }
  EXPECT_EQ(Occ(2, 3), 0u);
  EXPECT_EQ(Occ(2, 4), 0u);
  ExpectCounters(AlternatingBurstSent());
}

// A device that reuses what it took: as af_packet, pcap, vhost or memif
// free a packet inside the tx burst and another worker may allocate it at
// once, this one overwrites the metadata of every packet it takes (a tx
// callback, run before the ring takes them) with a charge on p3/q7. The
// switch must account for what it sent from what it read before the burst.
struct ReusingDevice {
  sw::Switch* sw;
  rte_ring* wire_tx;
  static uint16_t Take(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, void* arg) {
    auto* d = static_cast<ReusingDevice*>(arg);
    const unsigned takes = std::min<unsigned>(n, rte_ring_free_count(d->wire_tx));
    for (unsigned i = 0; i < takes; i++)
      *d->sw->Meta(pkts[i]) =
          sw::PktMeta{.in_port = 3, .in_prio = 7, .flags = 0, .charged = 5 * kCell};
    return n;
  }
};

TEST_F(StageTest, WhatTheDeviceTookIsNotReadAgain) {
  Start(BaseYaml());
  // 5 free slots on p1's wire: the first egress sends 5 and stashes 27,
  // the second sends the stash.
  const unsigned free_slots = rte_ring_free_count(Wire(1).tx);
  for (unsigned i = 0; i < free_slots - 5; i++)
    ASSERT_EQ(rte_ring_enqueue(Wire(1).tx, Mbuf(Frame({.in_port = 2, .seq = 60000}))), 0);
  ReusingDevice dev{sw_.get(), Wire(1).tx};
  const rte_eth_rxtx_callback* cb =
      rte_eth_add_tx_callback(Wire(1).dpdk_port, 0, &ReusingDevice::Take, &dev);
  ASSERT_NE(cb, nullptr);
  Ingress(2, AlternatingBurst(), kT0);
  EXPECT_EQ(Egress(1, kT0 + 1000), 5);
  EXPECT_EQ(Occ(2, 3) + Occ(2, 4), 27 * kCell);
  EXPECT_EQ(TakeTx(1).size(), free_slots);
  EXPECT_EQ(Egress(1, kT0 + 2000), 27);
  // Single-threaded: nobody can be inside the callback now.
  EXPECT_EQ(rte_eth_remove_tx_callback(Wire(1).dpdk_port, 0, cb), 0);
  rte_free(const_cast<rte_eth_rxtx_callback*>(cb));
  EXPECT_EQ(TakeTx(1).size(), 27u);
  EXPECT_EQ(Occ(2, 3), 0u);
  EXPECT_EQ(Occ(2, 4), 0u);
  EXPECT_EQ(Occ(3, 7), 0u);
  ExpectCounters(AlternatingBurstSent());
}

TEST_F(StageTest, RewriteQueuesByNewTagButChargesIngressPriority) {
  Start(BaseYaml());
  // From p0, tag 24 (prio 3): even packets to p1, where the Tagger rule
  // rewrites 24 -> 26 (prio 4); odd ones to p3, where the tag is kept.
  Frames in;
  for (uint16_t i = 0; i < 32; i++) {
    const uint32_t dst = (i % 2 == 0) ? Ip(10, 9, 1, 1) : Ip(10, 0, 3, 2);
    in.push_back(Frame({.in_port = 0, .dst_ip = dst, .dscp = 24, .ecn = 1, .seq = i}));
  }
  Ingress(0, in, kT0);

  // Egress queue by the NEW tag (Tagger Fig. 8b)...
  EXPECT_EQ(QueueDepth(1, 4), 16u);
  EXPECT_EQ(QueueDepth(1, 3), 0u);
  EXPECT_EQ(QueueDepth(3, 3), 16u);
  EXPECT_EQ(QueueDepth(3, 4), 0u);
  // ...while every byte stays charged to the ingress priority group.
  EXPECT_EQ(Occ(0, 3), 32 * kCell);
  EXPECT_EQ(Occ(0, 4), 0u);

  EXPECT_EQ(Egress(1, kT0 + 1000), 16);
  EXPECT_EQ(Occ(0, 3), 16 * kCell) << "p1's tx released exactly its 16 packets from (p0, prio 3)";
  EXPECT_EQ(Occ(0, 4), 0u);
  EXPECT_EQ(Egress(3, kT0 + 2000), 16);
  EXPECT_EQ(Occ(0, 3), 0u);

  const Frames o1 = TakeTx(1), o3 = TakeTx(3);
  ASSERT_EQ(o1.size(), 16u);
  ASSERT_EQ(o3.size(), 16u);
  for (size_t k = 0; k < 16; k++) {
    EXPECT_EQ(o1[k], Routed(in[2 * k], 1, HostMac(1), 26)) << "to p1, packet " << 2 * k;
    EXPECT_EQ(DscpOf(o1[k]), 26);
    EXPECT_EQ(o1[k][15] & 3, 1) << "ECN bits kept";
    EXPECT_EQ(o3[k], Routed(in[2 * k + 1], 3, HostMac(3), 24)) << "to p3, packet " << 2 * k + 1;
  }
  ExpectCounters({{"p0.rx_packets", 32},
                  {"p0.rx_bytes", 32 * 60},
                  {"p0.rx_bursts", 1},
                  {"p0.q3.rx_packets", 32},
                  {"p0.q3.rx_bytes", 32 * 60},
                  {"p0.q3.rewrites", 16},
                  {"p1.tx_packets", 16},
                  {"p1.tx_bytes", 16 * 60},
                  {"p1.q4.tx_packets", 16},
                  {"p1.q4.tx_bytes", 16 * 60},
                  {"p3.tx_packets", 16},
                  {"p3.tx_bytes", 16 * 60},
                  {"p3.q3.tx_packets", 16},
                  {"p3.q3.tx_bytes", 16 * 60}});
}

TEST_F(StageTest, UnmappedTagFallsBackToLossy) {
  Start(BaseYaml());
  // Tag 7: no tag_map entry -> lossy priority 0 (fallback) and, with no
  // rule, rewritten to the lossy tag 0. Tag 46: mapped (prio 5) but no rule
  // matches -> rewritten to the lossy tag, so it leaves in queue 0. Tag 0:
  // the lossy tag itself, unmapped -> fallback, not rewritten.
  Frames in;
  for (uint16_t i = 0; i < 24; i++) {
    const uint8_t tag = i < 8 ? 7 : (i < 16 ? 46 : 0);
    in.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = tag, .seq = i}));
  }
  Ingress(0, in, kT0);
  EXPECT_EQ(QueueDepth(1, 0), 24u);
  EXPECT_EQ(Occ(0, 0), 16 * kCell);  // tags 7 and 0
  EXPECT_EQ(Occ(0, 5), 8 * kCell);   // tag 46 keeps its ingress priority's charge
  EXPECT_EQ(Egress(1, kT0 + 1000), 24);
  const Frames out = TakeTx(1);
  ASSERT_EQ(out.size(), 24u);
  for (size_t i = 0; i < out.size(); i++) {
    EXPECT_EQ(out[i], Routed(in[i], 1, HostMac(1), 0)) << "packet " << i;
    EXPECT_EQ(DscpOf(out[i]), 0);
  }
  ExpectCounters({{"p0.rx_packets", 24},
                  {"p0.rx_bytes", 24 * 60},
                  {"p0.rx_bursts", 1},
                  {"p0.q0.rx_packets", 16},
                  {"p0.q0.rx_bytes", 16 * 60},
                  {"p0.q0.lossy_fallback", 16},
                  {"p0.q0.rewrites", 8},
                  {"p0.q0.to_lossy_tag", 8},
                  {"p0.q5.rx_packets", 8},
                  {"p0.q5.rx_bytes", 8 * 60},
                  {"p0.q5.rewrites", 8},
                  {"p0.q5.to_lossy_tag", 8},
                  {"p1.tx_packets", 24},
                  {"p1.tx_bytes", 24 * 60},
                  {"p1.q0.tx_packets", 24},
                  {"p1.q0.tx_bytes", 24 * 60}});
}

TEST_F(StageTest, UnknownDestinationsAreDroppedNeverFlooded) {
  Start(BaseYaml());
  Frames in;
  uint16_t seq = 0;
  auto add = [&](int n, Pkt p) {
    for (int i = 0; i < n; i++) {
      p.seq = seq++;
      in.push_back(Frame(p));
    }
  };
  add(4, {.in_port = 0, .dst_ip = Ip(192, 168, 7, 7), .dscp = 24});  // no route (lossless!)
  add(4, {.in_port = 0, .dst_ip = Ip(10, 8, 1, 1), .dscp = 26});     // via 10.0.2.99: MAC unknown
  add(4, {.in_port = 0, .dst_ip = Ip(10, 0, 2, 50), .dscp = 7});     // connected, host unknown
  add(2, {.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 26, .ttl = 1});  // TTL expires
  std::vector<uint8_t> not_us = Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 24});
  not_us[5] = 0x77;  // unicast to some other MAC
  in.push_back(not_us);
  in.push_back(not_us);
  std::vector<uint8_t> ipv6 = Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1)});
  ipv6[12] = 0x86;
  ipv6[13] = 0xdd;
  in.push_back(ipv6);
  in.push_back(ipv6);
  std::vector<uint8_t> bad_csum = Frame({.in_port = 0, .dst_ip = Ip(10, 9, 0, 1), .dscp = 24});
  bad_csum[24] ^= 0x5a;
  in.push_back(bad_csum);
  in.push_back(bad_csum);
  const std::vector<uint8_t> runt(10, 0xee);
  in.push_back(runt);
  in.push_back(runt);
  ASSERT_EQ(in.size(), 22u);
  Ingress(0, in, kT0);

  for (PortId p = 0; p < kPorts; p++) EXPECT_EQ(Egress(p, kT0 + 1000), p == 2 ? 2 : 0) << "p" << p;
  for (PortId p : {0, 1, 3}) EXPECT_TRUE(TakeTx(p).empty()) << "p" << p;
  // The only frames out: one ARP request per unresolved address, on p2.
  const Frames arp = TakeTx(2);
  ASSERT_EQ(arp.size(), 2u);
  std::set<uint32_t> asked;
  for (const auto& f : arp) {
    ASSERT_EQ(f.size(), 60u);
    EXPECT_EQ(EtherTypeOf(f), 0x0806);
    EXPECT_TRUE(std::all_of(f.begin(), f.begin() + 6, [](uint8_t b) { return b == 0xff; }));
    EXPECT_TRUE(std::equal(f.begin() + 6, f.begin() + 12, SwitchMac(2).begin()));
    EXPECT_EQ(f[20] << 8 | f[21], 1) << "ARP request";
    EXPECT_EQ(static_cast<uint32_t>(f[28] << 24 | f[29] << 16 | f[30] << 8 | f[31]),
              Ip(10, 0, 2, 1));
    asked.insert(static_cast<uint32_t>(f[38] << 24 | f[39] << 16 | f[40] << 8 | f[41]));
  }
  EXPECT_EQ(asked, (std::set<uint32_t>{Ip(10, 0, 2, 99), Ip(10, 0, 2, 50)}));
  // Nothing was charged to any buffer, not even for an instant.
  for (PortId p = 0; p < kPorts; p++)
    for (int q = 0; q < kNumPrio; q++) EXPECT_EQ(sw_->buffer.watermark(p, q), 0u) << p << "/" << q;

  ExpectCounters({{"p0.rx_packets", 22},
                  {"p0.rx_bytes", 20 * 60 + 2 * 10},
                  {"p0.rx_bursts", 1},
                  {"p0.non_ip", 2},
                  {"p0.q3.rx_packets", 6},
                  {"p0.q3.rx_bytes", 6 * 60},
                  {"p0.q3.drop.no_route", 4},
                  {"p0.q3.drop.not_for_us", 2},
                  {"p0.q4.rx_packets", 6},
                  {"p0.q4.rx_bytes", 6 * 60},
                  {"p0.q4.drop.neighbor_miss", 4},
                  {"p0.q4.drop.ttl_expired", 2},
                  {"p0.q0.rx_packets", 6},
                  {"p0.q0.rx_bytes", 6 * 60},
                  {"p0.q0.lossy_fallback", 4},
                  {"p0.q0.drop.neighbor_miss", 4},
                  {"p0.q0.drop.unsupported", 2},
                  {"p0.q0.drop.bad_ip_checksum", 2},
                  {"p0.q0.drop.runt", 2},
                  {"p2.arp_request_tx", 2},
                  {"p2.tx_packets", 2},
                  {"p2.tx_bytes", 120}});
}

// The switch answers an ICMP echo request to any of its ports' addresses,
// whichever port it comes in on (IsLocalAddress: the sorted list of the
// ports' addresses, Switch::local_ipv4), and only to those: a host's
// address in a connected subnet is forwarded, not answered.
TEST_F(StageTest, AnswersEchoToEveryPortAddressOnly) {
  Start(BaseYaml());
  auto echo = [](uint32_t dst, uint16_t seq) {
    std::vector<uint8_t> f = Frame({.in_port = 0, .dst_ip = dst, .seq = seq});
    uint8_t* ip = f.data() + 14;
    ip[9] = 1;  // ICMP
    ip[10] = ip[11] = 0;
    const uint16_t c = net::Ipv4HeaderChecksum(ip, 20);
    std::memcpy(ip + 10, &c, 2);
    ip[20] = 8;  // echo request, code 0
    ip[21] = 0;
    return f;
  };
  const Frames in = {echo(Ip(10, 0, 3, 1), 1), echo(Ip(10, 0, 0, 1), 2), echo(Ip(10, 0, 1, 1), 3)};
  Ingress(0, in, kT0);
  EXPECT_EQ(Egress(0, kT0 + 1000), 3);
  const Frames out = TakeTx(0);
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < out.size(); i++) {
    const uint8_t* ip = out[i].data() + 14;
    EXPECT_EQ(ip[20], 0) << "echo reply " << i;
    EXPECT_TRUE(std::equal(ip + 12, ip + 16, in[i].data() + 14 + 16)) << "from the address asked";
    EXPECT_TRUE(std::equal(ip + 16, ip + 20, in[i].data() + 14 + 12)) << "to the asker";
    EXPECT_TRUE(net::Ipv4ChecksumOk(ip, 20));
  }
  EXPECT_EQ(Snapshot(*sw_)["p0.icmp_echo_reply"], 3u);

  // 10.0.3.2, the host on p3 (a connected subnet), is not the switch: the
  // request is forwarded to it, not answered.
  const std::vector<uint8_t> to_host = echo(Ip(10, 0, 3, 2), 4);
  Ingress(0, {to_host}, kT0 + 2000);
  EXPECT_EQ(Egress(0, kT0 + 3000), 0);
  EXPECT_EQ(Egress(3, kT0 + 3000), 1);
  const Frames fwd = TakeTx(3);
  ASSERT_EQ(fwd.size(), 1u);
  EXPECT_EQ(fwd[0], Routed(to_host, 3, HostMac(3), 0));
  EXPECT_EQ(Snapshot(*sw_)["p0.icmp_echo_reply"], 3u);
}

// A switch served by one worker skips a port's rings while nothing was
// queued to them since they were seen empty (PortOwnerState::queued).
// Every way of queueing must say so: a data packet and an ARP request, each
// to a port whose rings were just seen empty, leave at its next egress.
TEST_F(StageTest, WhatIsQueuedToAnIdlePortLeaves) {
  Start(BaseYaml());
  ASSERT_TRUE(w_.solo);
  for (PortId p = 0; p < kPorts; p++) EXPECT_EQ(Egress(p, kT0), 0) << "p" << p;
  // An unknown neighbour on p3: the packet is dropped, an ARP request is
  // queued to p3's control ring.
  Ingress(0, {Frame({.in_port = 0, .dst_ip = Ip(10, 0, 3, 77), .dscp = 26, .seq = 1})}, kT0 + 10);
  EXPECT_EQ(Egress(3, kT0 + 20), 1);
  const Frames req = TakeTx(3);
  ASSERT_EQ(req.size(), 1u);
  EXPECT_EQ(EtherTypeOf(req[0]), 0x0806);
  // Seen empty again, then a data packet to p2's directly attached host.
  EXPECT_EQ(Egress(2, kT0 + 30), 0);
  Ingress(1, {Frame({.in_port = 1, .dst_ip = Ip(10, 0, 2, 2), .dscp = 26, .seq = 2})}, kT0 + 40);
  EXPECT_EQ(Egress(2, kT0 + 50), 1);
  EXPECT_EQ(TakeTx(2).size(), 1u);
}

TEST_F(StageTest, LearnsNeighbourFromArpThenForwards) {
  Start(BaseYaml());
  const uint32_t host = Ip(10, 0, 3, 77);
  // Before: unknown, dropped (and an ARP request goes out of p3).
  Ingress(0, {Frame({.in_port = 0, .dst_ip = host, .dscp = 26, .seq = 1})}, kT0);
  EXPECT_EQ(Egress(3, kT0 + 10), 1);
  const Frames req = TakeTx(3);
  ASSERT_EQ(req.size(), 1u);
  EXPECT_EQ(EtherTypeOf(req[0]), 0x0806);

  // The host answers (a reply to our request, from MAC 02:11:22:33:44:55).
  test::FrameSpec e;
  const auto sw = SwitchMac(3);
  std::memcpy(e.dst, sw.data(), 6);
  std::vector<uint8_t> reply = test::ArpFrame(e, 2, host, Ip(10, 0, 3, 1));
  Ingress(3, {reply}, kT0 + 20);
  EXPECT_EQ(Egress(3, kT0 + 30), 0) << "a reply is consumed, not answered";

  const std::vector<uint8_t> pkt = Frame({.in_port = 0, .dst_ip = host, .dscp = 26, .seq = 2});
  Ingress(0, {pkt}, kT0 + 40);
  EXPECT_EQ(Egress(3, kT0 + 50), 1);
  const Frames out = TakeTx(3);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], Routed(pkt, 3, {0x02, 0x11, 0x22, 0x33, 0x44, 0x55}, 26));
  ExpectCounters({{"p0.rx_packets", 2},
                  {"p0.rx_bytes", 120},
                  {"p0.rx_bursts", 2},
                  {"p0.q4.rx_packets", 2},
                  {"p0.q4.rx_bytes", 120},
                  {"p0.q4.drop.neighbor_miss", 1},
                  {"p3.rx_packets", 1},
                  {"p3.rx_bytes", reply.size()},
                  {"p3.rx_bursts", 1},
                  {"p3.arp_rx", 1},
                  {"p3.arp_request_tx", 1},
                  {"p3.tx_packets", 2},
                  {"p3.tx_bytes", 120},
                  {"p3.q4.tx_packets", 1},
                  {"p3.q4.tx_bytes", 60}});
}

}  // namespace
}  // namespace pfc::stagetest

namespace pfc::stagetest {
namespace {

// A packet whose next hop is 0.0.0.0 (a connected default route, dst
// 0.0.0.0) must be resolved like any other address: unknown, so dropped as
// neighbor_miss with an ARP request, never sent with an unset MAC (the
// burst's next-hop memo once used address 0 as its "empty" mark).
TEST_F(StageTest, NextHopZeroIsLookedUpNotTakenFromAnEmptyMemo) {
  std::string y = BaseYaml();
  const std::string routes = "routes:\n";
  y.insert(y.find(routes) + routes.size(), "  - { prefix: 0.0.0.0/0, port: p2 }\n");
  Start(y);
  Ingress(0, {Frame({.in_port = 0, .dst_ip = 0, .dscp = 10, .seq = 1})}, kT0);
  EXPECT_EQ(Egress(2, kT0 + 1000), 1);
  const Frames out = TakeTx(2);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(EtherTypeOf(out[0]), 0x0806) << "only the ARP request leaves";
  ExpectCounters({{"p0.rx_packets", 1},
                  {"p0.rx_bytes", 60},
                  {"p0.rx_bursts", 1},
                  {"p0.q1.rx_packets", 1},
                  {"p0.q1.rx_bytes", 60},
                  {"p0.q1.drop.neighbor_miss", 1},
                  {"p2.arp_request_tx", 1},
                  {"p2.tx_packets", 1},
                  {"p2.tx_bytes", 60}});
}

}  // namespace
}  // namespace pfc::stagetest

namespace pfc::stagetest {
namespace {

// The burst's next-hop memo (ingress.cc MacMemo) must follow the next hop of
// every packet: one burst cycling through a gatewayed route (10.9/16 via
// 10.0.1.2 on p1), a host on a connected subnet (10.0.3.2 on p3) and that
// gateway itself as a connected destination (10.0.1.2: another route, the
// same neighbour and port, so the memo may serve it).
TEST_F(StageTest, NextHopMemoFollowsEveryPacketOfABurst) {
  Start(BaseYaml());
  const uint32_t dst[3] = {Ip(10, 9, 0, 1), Ip(10, 0, 3, 2), Ip(10, 0, 1, 2)};
  Frames in;
  for (uint16_t i = 0; i < 30; i++)
    in.push_back(Frame({.in_port = 0, .dst_ip = dst[i % 3], .dscp = 10, .seq = i}));
  Ingress(0, in, kT0);
  EXPECT_EQ(Egress(1, kT0 + 1000), 20);
  EXPECT_EQ(Egress(3, kT0 + 1000), 10);
  const Frames p1 = TakeTx(1), p3 = TakeTx(3);
  ASSERT_EQ(p1.size(), 20u);
  ASSERT_EQ(p3.size(), 10u);
  size_t k1 = 0, k3 = 0;
  for (uint16_t i = 0; i < 30; i++) {
    if (i % 3 == 1)
      EXPECT_EQ(p3[k3++], Routed(in[i], 3, HostMac(3), 10)) << "packet " << i;
    else
      EXPECT_EQ(p1[k1++], Routed(in[i], 1, HostMac(1), 10)) << "packet " << i;
  }
}

}  // namespace
}  // namespace pfc::stagetest

#include "dataplane/tables/ecmp_hash.h"

namespace pfc::stagetest {
namespace {

// A route over two next hops (ECMP): each packet leaves by the next hop its
// flow's hash picks (source port = seq, so 32 flows), with the configured
// algorithm and seed; both hops carry some; the same flows take the same
// hops again; ecmp_tx counts the choices per port.
TEST_F(StageTest, EcmpRouteSpreadsFlowsByTheirHash) {
  for (const char* algo : {"crc32c", "hpcc"}) {
    SCOPED_TRACE(algo);
    std::string y = BaseYaml();
    y.replace(y.find("workers: 1,"), 11,
              std::string("workers: 1, ecmp_hash_algorithm: ") + algo + ", ecmp_hash_seed: 7,");
    y.replace(y.find("routes:\n"), 8,
              "routes:\n  - { prefix: 10.7.0.0/16, next_hops: [{port: p1, via: 10.0.1.2}, "
              "{port: p3, via: 10.0.3.2}] }\n");
    Start(y);
    const auto a =
        std::string(algo) == "hpcc" ? tables::EcmpHashAlgo::kHpcc : tables::EcmpHashAlgo::kCrc32c;
    for (int round = 0; round < 2; ++round) {
      Frames in;
      for (uint16_t i = 0; i < 32; i++)
        in.push_back(Frame({.in_port = 0, .dst_ip = Ip(10, 7, 0, 1), .dscp = 10, .seq = i}));
      Ingress(0, in, kT0 + round * 10000);
      Egress(1, kT0 + round * 10000 + 1000);
      Egress(3, kT0 + round * 10000 + 1000);
      const Frames p1 = TakeTx(1), p3 = TakeTx(3);
      EXPECT_EQ(p1.size() + p3.size(), 32u);
      EXPECT_GT(p1.size(), 4u);
      EXPECT_GT(p3.size(), 4u);
      size_t k1 = 0, k3 = 0;
      for (uint16_t i = 0; i < 32; i++) {
        const tables::FlowKey k{Ip(10, 0, 0, 2), Ip(10, 7, 0, 1), SeqOf(in[i]),
                                static_cast<uint16_t>(in[i][36] << 8 | in[i][37]), 17};
        if (tables::EcmpHash(a, k, 7) % 2 == 0) {
          ASSERT_LT(k1, p1.size());
          EXPECT_EQ(p1[k1++], Routed(in[i], 1, HostMac(1), 10)) << "packet " << i;
        } else {
          ASSERT_LT(k3, p3.size());
          EXPECT_EQ(p3[k3++], Routed(in[i], 3, HostMac(3), 10)) << "packet " << i;
        }
      }
      const Counters c = Snapshot(*sw_);
      EXPECT_EQ(c.at("p1.ecmp_tx"), (round + 1) * p1.size());
      EXPECT_EQ(c.at("p3.ecmp_tx"), (round + 1) * p3.size());
    }
    TearDown();
  }
}

}  // namespace
}  // namespace pfc::stagetest
