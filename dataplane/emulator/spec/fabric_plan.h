// SPDX-License-Identifier: BSD-3-Clause
// From a validated fabric file to what each switch and host is given: the
// address plan, port names and link parameters, shortest-path routes with a
// deterministic ECMP choice, static neighbours, and each switch's complete
// pfcswitch config (written as a file that the switch's own loader reads,
// so an emulated switch is configured exactly like a standalone one).
//
// Address plan (the topology's link i, in file order, gets 10.128.0.0/9's
// i-th /30): a switch port is .1 or .2 of its link's /30; a host is .2 and
// its switch .1. MACs are locally administered: a switch port
// 02:NN:NN:PP:00:01 (NN = node id, PP = port), a host 02:NN:NN:00:00:02.
// Port names are the neighbour's name, as pfc-tagger's rules files list them.
// Ports carried by an emulated link have device "emu:<switch>/<port>".
//
// Routes: for each switch and each host, the next hops are the neighbours
// one switch-hop closer to the host's switch; among several (ECMP) the one
// picked is fixed by a hash of (seed, switch, host), so a run is repeatable
// and different switches spread differently. Control thread only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/config/config.h"
#include "dataplane/emulator/model/fct.h"
#include "dataplane/emulator/model/host_model.h"
#include "dataplane/emulator/spec/fabric_spec.h"

namespace pfc::emulator {

inline constexpr const char* kEmuDevicePrefix = "emu:";
// pfc.response_ns of a real-clock fabric's switches when the template does
// not set it: software switches sharing cores react within a few time slices.
inline constexpr uint32_t kRealClockResponseNs = 2'000'000;

struct PortPlan {
  std::string name;    // the neighbour's name
  std::string device;  // "emu:SW/P" or a real DPDK device
  uint32_t peer_node = 0;
  uint16_t peer_port = 0;
  config::MacAddr mac{};
  uint32_t ip = 0;  // host order
  uint8_t prefix_len = 30;
  uint64_t rate_bps = 0;
  uint64_t delay_ns = 0;
};

// A switch's routes and neighbours go to its loader as values (config.h).
using RoutePlan = config::RouteSpec;
using NeighborPlan = config::NeighborConfig;

struct SwitchPlan {
  uint32_t node = 0;
  std::string name;
  std::vector<PortPlan> ports;
  std::vector<RoutePlan> routes;
  std::vector<NeighborPlan> neighbors;
  std::string config_path;  // the generated pfcswitch config
};

struct HostPlan {
  uint32_t node = 0;
  std::string name;
  config::MacAddr mac{};
  uint32_t ip = 0;
  uint8_t prefix_len = 30;
  uint32_t gw_ip = 0;
  config::MacAddr gw_mac{};
  uint32_t sw_node = 0;
  uint16_t sw_port = 0;
  uint64_t rate_bps = 0;
  std::string device;  // a real host: its switch port's DPDK device
};

struct FabricPlan {
  std::vector<SwitchPlan> switches;  // in topology node order
  std::vector<HostPlan> hosts;
  std::vector<int> switch_index;  // node -> index in switches, -1
  std::vector<int> host_index;    // node -> index in hosts, -1
  // Flow i's idle shortest path (its ideal completion time, model/fct.h).
  std::vector<IdlePath> flow_paths;
  // The largest base RTT and bandwidth-delay product over the flows' paths
  // (BaseRttOf): what every ACK-driven flow uses with hpcc.global_t, as
  // the simulator's GLOBAL_T (its maximum over every host pair; the flows'
  // paths here).
  uint64_t max_base_rtt_ns = 0, max_win_bytes = 0;

  // Every switch of the fabric as KeepLocal found it (empty before), by its
  // index in the whole fabric: what the results name when they come from
  // several processes (MPI ranks); and each kept switch's index there.
  struct SwitchNames {
    uint32_t node = 0;
    std::string name;
    std::vector<std::string> ports;
    std::vector<uint32_t> ips;  // each port's address (a route's next hop)
  };
  static SwitchNames NamesOf(const SwitchPlan& sp);
  std::vector<SwitchNames> all_switches;
  std::vector<uint32_t> global_index;  // switches[i] -> all_switches

  const SwitchPlan* sw(uint32_t node) const {
    return node < switch_index.size() && switch_index[node] >= 0 ? &switches[switch_index[node]]
                                                                 : nullptr;
  }
  const HostPlan* host(uint32_t node) const {
    return node < host_index.size() && host_index[node] >= 0 ? &hosts[host_index[node]] : nullptr;
  }
};

// The HPCC simulator's base RTT of a path (its scratch/third.cc): twice
// the propagation delay plus one `payload`-byte packet's serialisation at
// every link, each rounded down to ns; and its window, the base RTT at the
// path's slowest rate in bytes.
uint64_t BaseRttOf(const IdlePath& p, uint32_t payload);
uint64_t WindowOf(const IdlePath& p, uint64_t base_rtt_ns);

// What the fabric gives the model of emulated host `hp`: its addresses and
// link from the plan, its faults from the file, the file's dcqcn, rc and
// bin.
HostParams HostParamsOf(const FabricSpec& spec, const HostPlan& hp);
// Flow i of the file as its sending host runs it: id i + 1 (0 is no flow),
// to the receiver's planned address.
FlowSpec FlowOf(const FabricSpec& spec, const FabricPlan& plan, size_t i);

// Builds the plan (addresses, routes, neighbours). Pure; never fails for a
// spec LoadFabric accepted.
FabricPlan MakePlan(const FabricSpec& spec);

// The link's rate and delay after overrides, and the real device that
// carries it ("" = emulated).
void LinkParamsOf(const FabricSpec& spec, uint32_t a, uint32_t b, uint64_t* rate_bps,
                  uint64_t* delay_ns, std::string* device);

// Whether end `node` of its link to `peer` is a real device: the port's
// own override, or a host's device at either end.
bool LinkEndOnDevice(const FabricSpec& spec, uint32_t node, uint32_t peer);

// Validation of the devices that carry links (LoadFabric runs it): a link is
// emulated whole or carried by devices on both ends (one process emulates
// a link whole), and a capture is of an emulated link (a device's is
// dpdk-dumpcap's). false with *err naming the link.
bool CheckLinkDevices(const FabricSpec& spec, std::string* err);

// A device as the switch port names it: "net_af_packet0,iface=h1" (vdev
// arguments after the comma, for EAL) -> "net_af_packet0".
std::string DeviceName(const std::string& device);
// Every device of the file written with vdev arguments, as EAL's --vdev
// takes them (pfcfabric passes them when it chooses the EAL options).
std::vector<std::string> VdevArgs(const FabricSpec& spec);

// <out_dir>/hosts.json: every host's name, addresses, gateway, switch port
// and device: how a real host is configured to join the fabric.
bool WriteHostsJson(const FabricSpec& spec, const FabricPlan& plan, std::string* err);

// Writes <out_dir>/switches/<name>.yaml for every switch (the template
// config's sections, the generated ports/routes/neighbours, and an include
// of the switch's Tagger rules file), then loads each with the switch's own
// loader. Returns false with *err naming the file, line and field.
bool WriteSwitchConfigs(const FabricSpec& spec, FabricPlan* plan,
                        std::vector<config::SwitchConfig>* out, std::string* err);

// Placement (FabricSpec::here): keeps only the switches that run here, and
// their configs (parallel to plan->switches); hosts stay in the plan (their
// addresses are routed to) but only those of local switches run.
void KeepLocal(const FabricSpec& spec, FabricPlan* plan,
               std::vector<config::SwitchConfig>* configs);

std::string Ipv4String(uint32_t ip);

}  // namespace pfc::emulator
