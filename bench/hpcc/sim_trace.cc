// SPDX-License-Identifier: BSD-3-Clause
// Prints the HPCC simulator's packet trace (its out_mix.tr, ENABLE_TRACE 1)
// as one text line an event, for following packets through its queues
// beside pfcfabric's captures (docs/howto/rdma-simulator.md):
//   time_ns node intf qidx qlen_bytes sip dip size l3 event sport dport seq ecn flags
// event: 0 received, 1 enqueued, 2 dequeued (wire start), 3 dropped; l3 in
// hex: 11 data, fc ACK, fd NACK, fe PFC (sport: its time, dport: its
// class), ff CNP; ecn: the IP header's ECN bits (3: CE); flags: an ACK's or
// NACK's qbbHeader flags (hex; bit 0x1 is FLAG_CNP: in the simulator's
// DCQCN a marked packet's ACK carries the CNP, no CNP packet), else 0.
// Optional node ids keep those nodes' lines only.
// Built against the simulator's own headers by sim_trace.sh: the file is a
// SimSetting header, then its TraceFormat records as the simulator wrote
// them (same compiler, same layout).
#include <cstdio>
#include <cstdlib>
#include <set>

#include "sim-setting.h"
#include "trace-format.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sim_trace OUT_MIX_TR [NODE...]\n");
    return 2;
  }
  FILE* f = std::fopen(argv[1], "rb");
  if (f == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  std::set<unsigned> nodes;
  for (int i = 2; i < argc; i++) nodes.insert(static_cast<unsigned>(std::atoi(argv[i])));
  SimSetting setting;
  setting.Deserialize(f);
  ns3::TraceFormat tr;
  while (tr.Deserialize(f) > 0) {
    if (!nodes.empty() && nodes.count(tr.node) == 0) continue;
    unsigned sport = 0, dport = 0, seq = 0, flags = 0;
    if (tr.l3Prot == 0x11) {
      sport = tr.data.sport, dport = tr.data.dport, seq = tr.data.seq;
    } else if (tr.l3Prot == 0xFC || tr.l3Prot == 0xFD) {
      sport = tr.ack.sport, dport = tr.ack.dport, seq = tr.ack.seq, flags = tr.ack.flags;
    } else if (tr.l3Prot == 0xFE) {
      sport = tr.pfc.time, dport = tr.pfc.qIndex;
    }
    std::printf("%llu %u %u %u %u %08x %08x %u %x %u %u %u %u %u %x\n",
                static_cast<unsigned long long>(tr.time), tr.node, tr.intf, tr.qidx, tr.qlen,
                tr.sip, tr.dip, tr.size, tr.l3Prot, tr.event, sport, dport, seq, tr.ecn, flags);
  }
  return 0;
}
