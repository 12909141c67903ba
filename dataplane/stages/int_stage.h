// SPDX-License-Identifier: BSD-3-Clause
// In-band network telemetry glue (int config section): for packets of the
// egress priorities it names, the switch writes a hop record into the
// packet's INT trailer (net/int_trailer.h) as the packet leaves for
// transmission, with what the HPCC work's simulator records there: the time,
// the bytes its port sent before it, the bytes still queued at the port (all
// priorities) after it, and the port's line rate. The sender's NIC reads the
// records its receiver echoed (HPCC); a real RoCEv2 receiver never sees them.
// Through the pipeline's hook points (hooks.h):
//  * enqueue (after DCFIT's policing, before ECN): the group's bytes count
//    as queued where ECN does not count them (EcnCounts), so the port's
//    depth covers every priority;
//  * refused: what the egress ring did not take was not queued;
//  * leave (before ECN's dequeue marking): the hop records, by the port's
//    owner (stages/egress.cc), which alone counts what the port sent; with
//    int.insert an IPv4 packet without a trailer first gets an empty one
//    (in place of its Ethernet padding), whose bytes count as queued and
//    sent (the buffer stays charged for the packet as it came in).
// The trailer is found on an untagged IPv4 frame in a few compares; tagged
// frames and insertion take an out-of-line path.
// Counters by egress (port, priority): int_hops, int_inserted, int_no_room.
// Not wired without the section: it then costs nothing.
#pragma once
#include <cstdint>

#include "dataplane/stages/mechanism.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::stages {

// Run by a switch with an int section (SwitchConfig::telemetry).
extern const Mechanism kIntMechanism;

// Bytes queued at port p now, every egress priority (what a record's queue
// length says), as seen from p's owner.
int64_t IntPortDepth(const WorkerCtx& w, PortId p);

}  // namespace pfc::stages
