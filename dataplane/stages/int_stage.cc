// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/int_stage.h"

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include <array>
#include <bit>

#include "dataplane/net/be_bytes.h"
#include "dataplane/net/int_trailer.h"
#include "dataplane/net/ipv4_locate.h"
#include "dataplane/net/pint.h"
#include "dataplane/stages/ecn_stage.h"

namespace pfc::stages {
namespace {

// The section as the switch started with it, and each port's rate code.
struct IntState final : sw::MechanismState {
  uint8_t prios = 0;
  bool insert = true;
  uint32_t multi = 1;
  std::array<uint8_t, kMaxPorts> rate{};
  // HPCC-PINT: the encoding (log base 0: none) and the estimate's RTT.
  net::PintCodec pint{2.0};
  bool has_pint = false;
  uint64_t pint_rtt_ns = 0;
};

// The port's sent bytes and depth as its burst's first run found them,
// carried to the burst's later runs; HPCC-PINT's estimate of each port's
// utilisation and its generator (owner-only, one worker).
struct IntWorker final : sw::MechanismState {
  uint64_t sent = 0;
  int64_t depth = 0;
  Rng rng;
  std::array<net::PintPort, kMaxPorts> pint{};
};

const IntState& StateOf(const WorkerCtx& w) {
  return MechanismStateOf<IntState>(*w.sw, kIntMechanism);
}

// `bytes`: the group's, as ingress summed them (wired with reads_bytes).
uint16_t IntOnEnqueue(WorkerCtx& w, PortId out, int eprio, rte_mbuf**, uint16_t n, uint64_t bytes,
                      buffer::ReleaseBatch&, uint32_t*) {
  if (!EcnCounts(w, out, eprio)) w.st->prio[out][eprio].ecn_queued_bytes.Add(bytes);
  return n;
}

void IntOnRefused(WorkerCtx& w, PortId out, int eprio, rte_mbuf* const* pkts, uint16_t n) {
  if (!EcnCounts(w, out, eprio))
    w.st->prio[out][eprio].ecn_queued_bytes.Add(-GroupBytes(pkts, n));  // modulo 2^64
}

// An empty trailer at the end of m's datagram (int.insert), in place of
// what followed it (Ethernet padding); nullptr with int_no_room counted
// when the mbuf has no room.
uint8_t* Insert(WorkerCtx& w, PortId out, int q, rte_mbuf* m, uint32_t end, uint32_t multi) {
  const uint32_t len = rte_pktmbuf_data_len(m);
  sw::PrioCounters& pc = w.st->prio[out][q];
  if (m->nb_segs != 1 || rte_pktmbuf_tailroom(m) + (len - end) < net::kIntHopsBytes) {
    pc.int_no_room.Add(1);
    return nullptr;
  }
  rte_pktmbuf_trim(m, static_cast<uint16_t>(len - end));
  auto* t = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, net::kIntHopsBytes));
  net::WriteIntTrailer(t, net::kIntHops, multi);
  pc.int_inserted.Add(1);
  return t;
}

// The first 8 bytes of a trailer the fast path writes into, as a
// little-endian load sees them: magic, kind kIntHops, the switch's own
// multiplier, the reserved 0; kFastMask leaves out the hop count and the
// first record's top bytes.
constexpr uint64_t kFastMask =
    std::bit_cast<uint64_t>(std::array<uint8_t, 8>{0xff, 0xff, 0xff, 0, 0xff, 0xff, 0, 0});
constexpr uint64_t FastHead(uint32_t multi) {
  return std::bit_cast<uint64_t>(std::array<uint8_t, 8>{net::kIntMagic >> 8, net::kIntMagic & 0xff,
                                                        net::kIntHops, 0,
                                                        static_cast<uint8_t>(multi), 0, 0, 0});
}

// A packet's trailer on the fast path, or nullptr: an untagged IPv4
// datagram followed by a trailer of the switch's multiplier, in three
// compares; everything else (tags, no trailer, another multiplier) goes
// out of line. The datagram's end is pointer arithmetic, not a 32-bit
// offset, so that its 14 folds into the addressing.
inline uint8_t* FastTrailer(uint8_t* d, uint32_t len, uint64_t head) {
  uint16_t et;
  std::memcpy(&et, d + 12, 2);
  if (et != RTE_BE16(net::kEtherTypeIpv4)) return nullptr;
  // (A runt's total length is read from the mbuf's data room, past its
  // data; the bound below then refuses it.)
  const size_t total = net::be::Get16(d + 14 + 2);
  if (total + 14 + net::kIntHopsBytes > len) return nullptr;
  uint8_t* t = d + 14 + total;
  uint64_t h;
  std::memcpy(&h, t, 8);
  return (h & kFastMask) == head ? t : nullptr;
}

// The record's byte and queue fields in units of `multi` (u1: multi is 1,
// whose byte unit 128 is a shift and queue unit 80 a multiply).
template <bool u1>
inline uint64_t Fields(uint64_t sent, int64_t depth, uint32_t multi) {
  if constexpr (u1) {
    static_assert(net::kIntByteUnit == 1u << 7);
    constexpr uint64_t kBytesMask = uint64_t{(1u << net::kIntBytesBits) - 1} << 17;
    return (sent << (17 - 7) & kBytesMask) | net::IntQlenField1(depth);
  }
  return uint64_t{net::IntBytesField(sent, uint64_t{net::kIntByteUnit} * multi)} << 17 |
         net::IntQlenField(depth, uint64_t{net::kIntQlenUnit} * multi);
}

// HPCC-PINT at a packet's PINT trailer t: the port's utilisation as the
// packet leaves with `depth` bytes queued behind it, written when larger
// than the trailer's. `prev_size`: the bytes of the packet that left the
// port before it in this burst (0: the port's own record of its last).
void PintHop(WorkerCtx& w, PortId out, int q, uint8_t* t, const IntState& s, int64_t depth,
             uint32_t prev_size) {
  sw::PrioCounters& pc = w.st->prio[out][q];
  if (!s.has_pint) {
    pc.int_pint_unset.Add(1);
    return;
  }
  IntWorker& iw = MechanismStateOf<IntWorker>(w, kIntMechanism);
  net::PintPort& pp = iw.pint[out];
  // The burst leaves at one instant (w.now_ns): a packet after the first
  // sees no time since the one before it.
  if (prev_size != 0) pp = {pp.u, w.now_ns, prev_size};
  pp.u = net::PintNextU(pp, w.now_ns, depth < 0 ? 0 : static_cast<uint64_t>(depth),
                        net::kIntRates[s.rate[out]], s.pint_rtt_ns, iw.rng);
  net::RaiseIntPintPower(t, s.pint.Encode(pp.u, iw.rng.Next32() & 0xffff));
  pc.int_pint.Add(1);
}

// The fast path over packets [p, end) of a run leaving (out, q): the hop
// record of each whose trailer FastTrailer finds, with *sent and *depth
// moved past it. Returns the first packet it passes over (end when none).
// Out of line and calling nothing, so that its loop has the registers to
// itself: inside RecordHops, with what it needs after the loop held across
// it, the loop spilled and reloaded three values a packet.
template <bool u1>
[[gnu::noinline]] rte_mbuf* const* FastHops(rte_mbuf* const* p, rte_mbuf* const* end,
                                            uint64_t fixed, uint32_t multi, uint64_t* sent,
                                            int64_t* depth) {
  const uint64_t head = FastHead(multi);
  uint64_t sent_before = *sent;
  int64_t behind = *depth;
  for (; p != end; p++) {
    rte_mbuf* m = *p;
    uint8_t* t = FastTrailer(rte_pktmbuf_mtod(m, uint8_t*), rte_pktmbuf_data_len(m), head);
    if (t == nullptr) [[unlikely]]
      break;
    const uint32_t plen = rte_pktmbuf_pkt_len(m);
    behind -= plen;
    net::PushIntWord(t, fixed | Fields<u1>(sent_before, behind, multi));
    sent_before += plen;
  }
  *sent = sent_before;
  *depth = behind;
  return p;
}

// A run of packets leaving (out, q), for the packets the fast path passes
// over.
struct HopRun {
  WorkerCtx& w;
  const IntState& s;
  PortId out;
  int q;
  rte_mbuf* const* pkts;  // its first packet
  uint64_t fixed;         // the record's rate and time fields
  uint32_t added = 0;     // bytes trailers added to its packets
  uint32_t missed = 0;    // packets that got no hop record
};

// The slow path of the packet at *p, which FastTrailer passed over: a
// tagged frame's trailer, one of another multiplier, a PINT trailer, or
// (int.insert) a new one where the datagram ends; writes the record with
// `sent` and `depth` as the fast path would, and counts in r what it added
// and whether the packet got no hop record (not IPv4, an echo, a timestamp
// or PINT, no room). Returns the port's bytes sent once the packet left:
// `sent` and the packet as it leaves.
uint64_t SlowHop(HopRun& r, rte_mbuf* const* p, uint64_t sent, int64_t depth) {
  rte_mbuf* m = *p;
  uint8_t* d = rte_pktmbuf_mtod(m, uint8_t*);
  const uint32_t len = rte_pktmbuf_data_len(m), plen = rte_pktmbuf_pkt_len(m);
  uint8_t* t = nullptr;
  const uint32_t off = net::Ipv4Offset(d, len);
  const uint32_t end = off == 0 ? 0 : net::Ipv4End(d, off);
  if (off != 0 && end <= len) {  // a truncated datagram is not ours to mend
    t = net::FindIntTrailer(d, len, end);
    if (t != nullptr && net::IntKind(t) == net::kIntPint) {
      PintHop(r.w, r.out, r.q, t, r.s, depth, p == r.pkts ? 0 : rte_pktmbuf_pkt_len(p[-1]));
      t = nullptr;
    } else if (t == nullptr && r.s.insert) {
      t = Insert(r.w, r.out, r.q, m, end, r.s.multi);
    }
  }
  if (t != nullptr && net::IntKind(t) == net::kIntHops)
    net::PushIntWord(t, r.fixed | Fields<false>(sent, depth, net::IntMulti(t)));
  else
    r.missed++;
  r.added += rte_pktmbuf_pkt_len(m) - plen;
  return sent + rte_pktmbuf_pkt_len(m);
}

// The rest of a run from *p, a packet the fast path passed over: the slow
// path for each such packet, the fast path between them. Out of line.
template <bool u1>
[[gnu::noinline]] void SlowHops(HopRun& r, rte_mbuf* const* p, rte_mbuf* const* end, uint64_t sent,
                                int64_t depth) {
  while (p != end) {
    depth -= rte_pktmbuf_pkt_len(*p);
    sent = SlowHop(r, p, sent, depth);
    p = FastHops<u1>(p + 1, end, r.fixed, r.s.multi, &sent, &depth);
  }
}

// PINT's record of the port's last packet: the time it left and its bytes
// (the simulator keeps them for every packet the port sends).
inline void NoteLast(IntWorker& iw, PortId out, uint64_t now_ns, const rte_mbuf* last) {
  iw.pint[out].last_ns = now_ns;
  iw.pint[out].last_size = rte_pktmbuf_pkt_len(last);
}

// The hop records of packets leaving (out, q), in the order they go: each
// sees the port's bytes sent before it and the bytes queued behind it.
// Returns the bytes trailers added to the packets.
template <bool u1>
uint32_t RecordHops(WorkerCtx& w, const IntState& s, PortId out, int q, rte_mbuf* const* pkts,
                    uint16_t n, uint32_t taken_before) {
  IntWorker& iw = MechanismStateOf<IntWorker>(w, kIntMechanism);
  // The burst's first run reads the counters; what its earlier runs took
  // has left the port, uncounted yet.
  if (taken_before == 0) {
    iw.sent = w.st->port[out].tx_bytes.Get();
    iw.depth = IntPortDepth(w, out);
  }
  uint64_t sent = iw.sent + taken_before;
  int64_t depth = iw.depth - taken_before;
  const uint64_t fixed = uint64_t{s.rate[out]} << 61 | (w.now_ns & ((1u << net::kIntTimeBits) - 1))
                                                           << 37;
  rte_mbuf* const* const end = pkts + n;
  rte_mbuf* const* p = FastHops<u1>(pkts, end, fixed, s.multi, &sent, &depth);
  uint32_t added = 0, missed = 0;
  if (p != end) [[unlikely]] {
    HopRun r{.w = w, .s = s, .out = out, .q = q, .pkts = pkts, .fixed = fixed};
    SlowHops<u1>(r, p, end, sent, depth);
    added = r.added;
    missed = r.missed;
  }
  if (s.has_pint) NoteLast(iw, out, w.now_ns, pkts[n - 1]);
  sw::PrioCounters& pc = w.st->prio[out][q];
  pc.int_hops.Add(n - missed);
  // The port's depth counts what was queued: the bytes added count as
  // queued too, so that sending them leaves it as it was.
  if (added != 0) pc.ecn_queued_bytes.Add(added);
  return added;
}

uint32_t IntOnLeave(WorkerCtx& w, PortId out, int q, rte_mbuf* const* pkts, uint16_t n,
                    uint32_t taken_before) {
  const IntState& s = StateOf(w);
  if (!(s.prios >> q & 1)) {
    if (s.has_pint && n != 0)
      NoteLast(MechanismStateOf<IntWorker>(w, kIntMechanism), out, w.now_ns, pkts[n - 1]);
    return 0;
  }
  return s.multi == 1 ? RecordHops<true>(w, s, out, q, pkts, n, taken_before)
                      : RecordHops<false>(w, s, out, q, pkts, n, taken_before);
}

bool IntWanted(const sw::Switch& sw) { return sw.cfg.telemetry.any(); }
void IntWire(const sw::Switch&, Hooks* h) {
  h->enqueue.Add({.before = IntOnEnqueue, .reads_bytes = true});
  h->refused.Add(IntOnRefused);
  h->leave.Add(IntOnLeave);
}
std::unique_ptr<sw::MechanismState> IntMakeState(const sw::Switch& sw) {
  auto s = std::make_unique<IntState>();
  const config::IntSettings& c = sw.cfg.telemetry;
  s->prios = c.prios;
  s->insert = c.insert;
  s->multi = c.multi;
  if (c.pint()) {
    s->pint = net::PintCodec(c.pint_log_base);
    s->has_pint = true;
    s->pint_rtt_ns = c.pint_rtt_ns;
  }
  // The config checked that every port's speed has a code.
  for (size_t p = 0; p < sw.cfg.ports.size() && p < kMaxPorts; p++)
    s->rate[p] = static_cast<uint8_t>(net::IntRateIndex(sw.cfg.ports[p].speed_bps));
  return s;
}
std::unique_ptr<sw::MechanismState> IntMakeWorkerState(const sw::Switch& sw, const WorkerCtx& w) {
  auto s = std::make_unique<IntWorker>();
  s->rng = Rng(Mix64(sw.cfg.telemetry.seed) ^ w.id);
  return s;
}

}  // namespace

int64_t IntPortDepth(const WorkerCtx& w, PortId p) {
  int64_t d = 0;
  // The test of w.solo outside the loop: inside, the compiler kept it there.
  if (w.solo) {
    for (int q = 0; q < kNumPrio; q++) d += EcnDepthSolo(w.st->prio[p][q]);
  } else {
    for (int q = 0; q < kNumPrio; q++) d += EcnDepth(*w.sw, p, q);
  }
  return d;
}

const Mechanism kIntMechanism = {
    .name = "int",
    // A packet DCFIT drops is not counted as queued.
    .runs_after = {"dcfit"},
    .runs_before = {"ecn"},
    .wanted = IntWanted,
    .wire = IntWire,
    .make_state = IntMakeState,
    .make_worker_state = IntMakeWorkerState,
};

}  // namespace pfc::stages
