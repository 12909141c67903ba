// SPDX-License-Identifier: BSD-3-Clause
// The fabric file: which switches, links, hosts, flows and timed events make
// up an emulated lossless fabric. Loaded and validated completely before
// anything starts (names resolved, links to existing nodes, flows between
// reachable hosts, events at non-negative times, include cycles); every
// error names the file, the line, the field and what was expected, like the
// switch's own config (dataplane/config).
//
// The topology is pfc-tagger's (ctrl/tagger/topology.h): a JSON file, a
// generator spec (fattree:4, leafspine:T:S:H, jellyfish:..., bcube:N:K,
// f10:K) or nodes and links written inline. A switch's port i is its i-th
// link in that topology, the same numbering pfc-tagger's rules files use, so
// a switch can include the file `pfc-tagger tag` wrote for it unchanged.
//
// Format (YAML; times take ns/us/ms/s, rates take K/M/G):
//   fabric:   { clock: virtual|real, seed: 1, duration: 100ms, bin: 1ms,
//               out: results-dir, quantum: 0 }
//   topology: { file: topo.json } | { gen: fattree:4 } |
//             { switches: [T1, ...], hosts: [H1, ...], links: [[T1, L1], ...] }
//   links:    { rate: 40G, delay: 1us, fifo: 2us,
//               overrides: [ { between: [T1, L1], rate: 10G, delay: 5us,
//                              devices: { T1: net_af_xdp0 } } ] }
//   switch:   { config: base.yaml, rules: rules-dir/, scheduler: strict|dwrr,
//               mtu: 1500 }
//   routes:   shortest | none
//   hosts:    [ { name: H1, device: "net_af_packet0,iface=h1" } |
//               { name: H2, ignore_pause: true, storm: [3],
//                 storm_quanta: 1000, storm_interval: 20us } |
//               { name: H3, device: ..., address: 10.0.1.2/24,
//                 gateway: 10.0.1.1 } ]
//   flows:    [ { name: f1, from: H1, to: H2, dscp: 24, prio: 3, rate: 10G,
//                 frame: 1000, bytes: 0, ttl: 64, ecn: not-ect|ect0|ect1,
//                 cc: none|dcqcn|hpcc|timely|dctcp, transport: raw|rc, message: 64K,
//                 start: 0, stop: 50ms } ]
//   dcqcn:    { rate_ai: 50M, ... }  keys, kinds and defaults: the table
//               of emulator/model/dcqcn.cc (DcqcnParamTable)
//   rc:       { mtu: 1000, ... }     the table of emulator/model/rc_qp.cc
//   events:   [ { at: 20ms, link: [L2, T1], state: down|up },
//               { at: 20ms, route: { switch: L1, to: H15 | 10.0.3.0/24,
//                                    via: T1 } },
//               { at: 5ms, flow: f1, action: start|stop },
//               { at: 5ms, host: H3, ignore_pause: true, storm: [3] },
//               { at: 10ms, rules: { switch: L1, file: r.yaml } } ]
//   captures: [ { link: [T1, L1], file: t1-l1.pcapng } ]
// Relative paths are relative to the fabric file, except capture files,
// which go to the results directory (fabric.out, default
// ./<fabric file stem>-results). A capture is a pcapng file (nanosecond
// timestamps on the fabric's clock) of both directions of an emulated link.
// Control thread only.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ctrl/tagger/topology.h"
#include "dataplane/emulator/model/dcqcn.h"
#include "dataplane/emulator/model/host_model.h"
#include "dataplane/emulator/model/rc_qp.h"

namespace pfc::emulator {

enum class ClockKind : uint8_t { kVirtual, kReal };

struct LinkOverride {
  uint32_t a = 0, b = 0;  // topology nodes
  uint64_t rate_bps = 0;  // 0 = default
  std::optional<uint64_t> delay_ns;
  // Non-empty: that end's switch port is this real DPDK device (a veth, a
  // NIC cabled to another server running the rest of the fabric).
  std::string device_a, device_b;
};

// A host of the topology. Its faults (ignore_pause; storm: storm_prios,
// storm_quanta, storm_interval_ns) are the model's own struct
// (model/host_model.h HostFaults): a storm's XOFF quanta and how often it
// is sent (0: half the pause time, a pause that never lapses); a short
// pause sent less often than it lasts pauses the switch part of the time, a
// NIC with a flow-control bug.
struct HostSpec : HostFaults {
  uint32_t node = 0;
  // Non-empty: a real host behind this DPDK port, optionally with its vdev
  // arguments after a comma (see fabric_plan.h DeviceName).
  std::string device;
  // Non-zero: the host's own subnet (a real host keeping its addresses);
  // its switch port is `gateway` in it. Zero: the link's planned /30.
  uint32_t ip = 0, gateway = 0;
  uint8_t prefix_len = 0;
};

// A flow of the file: the model's flow (model/host_model.h FlowSpec: dscp,
// prio, rate_bps (0: as fast as allowed), frame_len, bytes, ttl (as sent,
// 1..255: how many switch hops a packet in a routing loop makes before it
// expires, HotNets'16 §3.1), ecn (RFC 3168: 0 Not-ECT, 2 ECT(0), 1 ECT(1)),
// dcqcn (cc: dcqcn), rc (transport: rc, an RC queue pair sending `bytes`
// (0: without end) as RDMA WRITE messages of message_bytes (0: one)),
// start_ns, stop_ns) with its name and ends. The fields are the model's so
// that the fabric hands a flow to its host whole (fabric_plan.h FlowOf);
// id and dst_ip stay 0 here.
struct FlowSpecFile : FlowSpec {
  std::string name;
  uint32_t from = 0, to = 0;  // topology nodes (emulated hosts)
};

struct EventSpec {
  enum class Kind : uint8_t { kLink, kRoute, kFlow, kHost, kRules };
  Kind kind = Kind::kLink;
  uint64_t at_ns = 0;
  int line = 0;  // in the fabric file, for messages
  // kLink: a-b up/down. kRoute: at switch `a`, destination host `b` (or
  // prefix/prefix_len when b is kNoNode) leaves toward neighbour `c`.
  uint32_t a = tagger::kNoNode, b = tagger::kNoNode, c = tagger::kNoNode;
  bool up = false;
  uint32_t prefix = 0;
  uint8_t prefix_len = 0;
  size_t flow = 0;                   // kFlow: index into flows; up = start
  std::optional<bool> ignore_pause;  // kHost
  std::optional<uint8_t> storm_prios;
  std::string file;  // kRules (absolute)
};

struct CaptureSpec {
  uint32_t a = 0, b = 0;
  std::string file;  // relative to out_dir unless absolute
};

enum class RouteMode { kEcmp, kSingle, kNone };

struct FabricSpec {
  std::string path;  // the fabric file (absolute)
  ClockKind clock = ClockKind::kVirtual;
  uint64_t seed = 1;
  uint64_t duration_ns = 0;  // 0 (real clock only): until stopped
  uint64_t bin_ns = 1'000'000;
  // Where the time series (flows.csv, ports.csv, drops.csv) and deadlock
  // detection start: their first bin is [series_start_ns, + bin_ns). A
  // run whose traffic starts late (the HPCC simulator's, at 2 s) keeps no
  // rows of the idle time before it.
  uint64_t series_start_ns = 0;
  std::string out_dir;  // absolute; default ./<file stem>-results
  // Virtual clock step (0 = exact): the clock moves only to multiples of it,
  // so a switch round takes every frame landed in the step at once (up to a
  // step of latency a hop, for fewer, fuller rounds). The fabric widens the
  // links' transmit FIFOs to a step and adds two steps to every switch's
  // pfc.response_ns, so headroom still covers the later reaction.
  uint64_t quantum_ns = 0;
  std::string quantum_at;  // "file:line" of fabric.quantum, for later checks' errors
  // monitor.qlen (virtual clock): every switch port's egress queue bytes
  // (every priority) sampled every interval_ns from start_ns to end_ns
  // inclusive into 1,000-byte buckets, as the HPCC simulator's
  // QLEN_MON_START/END (runtime/qlen_monitor.h); interval_ns 0: off.
  struct QlenMonitor {
    uint64_t start_ns = 0, end_ns = 0, interval_ns = 0;
  } qlen_mon;

  tagger::Topology topo;
  uint64_t link_rate_bps = 40'000'000'000ull;
  uint64_t link_delay_ns = 1000;
  uint64_t link_fifo_ns = 0;                   // 0 = two MTU frames at the link's rate
  int32_t wire_overhead = kWireOverheadBytes;  // links.wire_overhead
  bool wire_ns3 = false;                       // links.wire_time: ns3
  std::vector<LinkOverride> overrides;

  std::string switch_config;  // absolute; empty = built-in defaults
  std::string rules_dir;      // absolute; empty = no Tagger rules
  // Every port's scheduler between priorities (the generated ports'
  // `scheduler.mode`). dwrr: equal shares, so that the higher priority a
  // Tagger rule moves bounced packets to does not starve the lower one.
  bool dwrr = false;
  // Every generated port's `mtu` (jumbo frames for rc.mtu above ~1,400).
  uint32_t switch_mtu = 1500;
  // routes: shortest (every equal-cost next hop, chosen per flow by the
  // switches' hash), shortest_single (one of them per (switch, host), chosen
  // by a hash of the seed), none (connected routes only; events add routes).
  RouteMode routes = RouteMode::kEcmp;
  // switch.ecmp_seeds: switch node -> its switch.ecmp_hash_seed (else the
  // node id with the simulator's hash, a hash of the seed otherwise).
  std::map<uint32_t, uint32_t> ecmp_seeds;

  // The emulated NICs' DCQCN and the class of their CNPs (section dcqcn;
  // line_bps is each host's link).
  DcqcnParams dcqcn;
  RcParams rc;  // section rc: the RC queue pairs' transport
  // Sections hpcc, timely, dctcp: the ACK-driven controls of the RC flows
  // with cc: hpcc / timely / dctcp (emulator/model/ack_cc.h).
  AckCcParams ack_cc;

  std::vector<HostSpec> hosts;  // one per topology host, in node order
  std::vector<FlowSpecFile> flows;
  std::vector<EventSpec> events;  // sorted by time (stable)
  std::vector<CaptureSpec> captures;

  // Placement: the switches this process runs (by node; empty = all). A
  // fabric split over servers runs the same file on each, with --here
  // naming that server's switches; a host runs where its switch does.
  std::vector<bool> here;
  // pfcfabric --threads: the virtual clock's partitions, each on a thread
  // of its own (runtime/virtual_clock.h). Not in the file: a run's results do
  // not depend on it.
  unsigned threads = 1;
  // mpirun -np N pfcfabric: this process is rank `rank` of `ranks`, each
  // running `threads` of the ranks x threads partitions; parts[node] is the
  // partition of every node (spec/partition.h PlaceRanks; empty on one
  // rank). Not in the file either.
  unsigned ranks = 1, rank = 0;
  std::vector<uint16_t> parts;
  // pfcfabric --memory-limit: the memory the fabric may use (bytes; 0: the
  // machine's MemAvailable when it starts). Not in the file either.
  uint64_t memory_limit = 0;
  // The CPUs the process was given when it started (spec/cpu_plan.h
  // AllowedCpus; pfcfabric sets it before EAL pins its main thread): the
  // --threads partitions run on any of them. Not in the file either.
  std::vector<unsigned> cpus;

  // What the file asks that runs but is likely not what was meant, each
  // "file:line: field: what happens" (a flow faster than its host's link,
  // a flow starting after the run's end); pfcfabric prints them.
  std::vector<std::string> warnings;

  const HostSpec* host(uint32_t node) const;
  bool Local(uint32_t node) const;
};

// --here S1,S2: checks and records which switches run in this process. A
// split fabric runs on the real clock, and a link between a switch here and
// one elsewhere is a cable between servers: devices on both of its ends
// (links.overrides[].devices; each server uses its own end's). Captures must
// be of links emulated here. Errors name the switch or link and what was
// expected.
bool PlaceHere(const std::vector<std::string>& switches, FabricSpec* spec, std::string* err);

// Loads and validates. On error returns false with *err such as
// "fab.yaml:14: flows[2].to: expected a host of the topology (got 'H99')".
bool LoadFabric(const std::string& path, FabricSpec* out, std::string* err);

// "20ms" -> 20,000,000; "1.5us" -> 1500; "0" -> 0. False on anything else.
bool ParseDuration(const std::string& s, uint64_t* ns);

}  // namespace pfc::emulator
