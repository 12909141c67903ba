// SPDX-License-Identifier: BSD-3-Clause
// Stage-test harness: one EAL per test binary (--no-huge, no PCI, no shared
// config), four net_ring ports whose rx and tx rings are separate and owned
// by the harness (rte_eth_from_rings), and a fixture that builds a real
// switch from a YAML config written to a temp file (LoadConfig +
// CreateStandalone, as pfcswitch does) for each test. Tests push real mbufs
// through IngressBurst / EgressPort / WorkerRound and read what the "wire"
// (the tx rings) got. TearDown checks that the test accounted for every
// packet: tx rings drained, egress queues empty, buffer accountant back to
// zero and the mbuf pool full again.
//
// Single-threaded: everything runs on the main lcore, which plays worker 0.
#pragma once
#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "dataplane/stages/worker_ctx.h"
#include "dataplane/switch/switch.h"
#include "tests/harness/ring_wire.h"

namespace pfc::stagetest {

inline constexpr int kPorts = 4;

// The harness's end of port i: what the switch receives (rx) and what it
// transmitted (tx). Device name "net_ring_s<i>".
using WirePort = harness::RingWire;
const WirePort& Wire(int i);

// Addresses of the test topology (see BaseYaml()).
std::array<uint8_t, 6> SwitchMac(int port);  // 02:00:00:00:00:1<port>
std::array<uint8_t, 6> HostMac(int port);    // the directly attached host: 02:00:00:00:0<port>:02
uint32_t Ip(int a, int b, int c, int d);

// Full switch config for the four ring ports. `buffer` replaces the buffer
// section's body; `extra` is appended verbatim (top-level YAML).
std::string BaseYaml(const std::string& buffer = "", const std::string& extra = "");

// One 60-byte IPv4/UDP frame as a host on `in_port` would send it to the
// switch: dst MAC = the switch port, src = HostMac(in_port), src IP
// 10.0.<in_port>.2. `seq` lands in the UDP source port so tests can follow
// individual packets.
struct Pkt {
  int in_port = 0;
  uint32_t dst_ip = 0;
  uint8_t dscp = 0;
  uint8_t ecn = 0;
  uint8_t ttl = 64;
  uint16_t seq = 0;
};
std::vector<uint8_t> Frame(const Pkt& p);
// An IEEE 802.1Qbb PFC frame from the host on `from_port`: `quanta` for
// every priority of `class_enable`, 0 for the others.
std::vector<uint8_t> PfcFrame(int from_port, uint8_t class_enable, uint16_t quanta);
uint16_t SeqOf(const std::vector<uint8_t>& frame);  // UDP source port of a frame Frame() built
uint8_t DscpOf(const std::vector<uint8_t>& frame);  // of an untagged IPv4 frame
uint16_t EtherTypeOf(const std::vector<uint8_t>& frame);

// Flat view of every counter of every worker, named like
// "p1.tx_packets", "p0.q3.rx_packets", "p0.q3.drop.no_route", and the
// worker counters by their exported names ("worker_loops", "idle_sleeps").
using Counters = std::map<std::string, uint64_t>;
Counters Snapshot(const sw::Switch& sw);

class StageTest : public ::testing::Test {
 protected:
  // Loads `yaml` (written to a temp file) and creates the runtime.
  void Start(const std::string& yaml);
  // A reload as /pfcswitch/reload does it: `update` (a file with qos,
  // rewrite, routes or neighbors sections) validated on top of the running
  // config (LoadUpdate), then Switch::ApplyConfig. On success the result
  // becomes the running config. False with *err otherwise.
  bool Reload(const std::string& update, std::string* err);
  void TearDown() override;

  rte_mbuf* Mbuf(const std::vector<uint8_t>& frame);
  // Runs one IngressBurst of `frames` (<= kMaxBurst) on in_port at now_ns.
  void Ingress(PortId in, const std::vector<std::vector<uint8_t>>& frames, uint64_t now_ns);
  // One egress round of `port`, the worker's own EgressRound (PFC
  // generation, egress under the received-pause mask, the published PFC
  // gauges), at a clock the test chooses. Returns packets sent.
  uint16_t Egress(PortId port, uint64_t now_ns);
  // Puts frames on the port's rx ring (for WorkerRound).
  void Receive(PortId port, const std::vector<std::vector<uint8_t>>& frames);
  // Everything the switch transmitted on `port` so far, in wire order; the
  // mbufs go back to the pool.
  std::vector<std::vector<uint8_t>> TakeTx(PortId port);

  uint64_t Occ(PortId p, int prio) const { return sw_->buffer.occupancy(p, prio); }
  unsigned QueueDepth(PortId p, int prio) const {
    return rte_ring_count(sw_->ports[p].egress[prio]);
  }

  // Every counter must equal `expected` (absent names: 0). Names in
  // `skip` are not compared (the caller checks them some other way).
  void ExpectCounters(const Counters& expected, const std::set<std::string>& skip = {}) const;

  // The worker context that owns `port` (w_ unless switch.workers > 1);
  // Ingress and Egress run as that worker.
  stages::WorkerCtx& Owner(PortId port);

  std::unique_ptr<sw::Dataplane> dp_;
  std::unique_ptr<sw::Switch> sw_;
  stages::WorkerCtx w_;                    // worker 0
  std::vector<stages::WorkerCtx> others_;  // workers 1.. (switch.workers > 1)
  rte_mempool* pool_ = nullptr;
  std::string yaml_path_;
  config::SwitchConfig running_;  // what Reload applies updates on top of
};

}  // namespace pfc::stagetest
