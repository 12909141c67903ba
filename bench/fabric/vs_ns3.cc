// SPDX-License-Identifier: BSD-3-Clause
// The peer for bench/fabric/vs_ns3.sh: the fabric a pfcfabric run emulates,
// in ns-3 (Debian's libns3-dev, 3.37): the same nodes and links (from the
// topology.json pfcfabric writes), point-to-point links of the same rate
// and delay, shortest-path routes (global routing, ECMP), and the same
// flows as constant-rate UDP. What ns-3 does not model here and pfcfabric
// does: PFC, buffer accounting, DSCP and Tagger; so the comparison gives
// ns-3 the lighter job per frame.
//
//   fabric_scenario TOPOLOGY_JSON FLOWS_TXT RATE_BPS DELAY_NS DURATION_NS
// FLOWS_TXT: one flow a line, "SRC DST RATE_BPS FRAME_BYTES START_NS".
// Prints one line: link_hops=<frames sent over any link, either way>
// sink_bytes=<what the sinks got> wall_s=<Simulator::Run's wall time>.
#include <ns3/applications-module.h>
#include <ns3/core-module.h>
#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <ns3/point-to-point-module.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace {

uint64_t g_link_hops = 0;
void OnPhyTxEnd(ns3::Ptr<const ns3::Packet>) { g_link_hops++; }

int Fail(const std::string& why) {
  std::fprintf(stderr, "fabric_scenario: %s\n", why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ns3;
  if (argc != 6)
    return Fail("usage: fabric_scenario TOPOLOGY_JSON FLOWS_TXT RATE_BPS DELAY_NS DURATION_NS");
  std::ifstream tf(argv[1]);
  if (!tf) return Fail(std::string("cannot read ") + argv[1]);
  const nlohmann::json topo = nlohmann::json::parse(tf, nullptr, false);
  if (topo.is_discarded() || !topo.contains("nodes") || !topo.contains("links"))
    return Fail(std::string(argv[1]) + ": expected pfcfabric's topology.json (nodes, links)");
  const uint64_t rate = std::stoull(argv[3]), delay = std::stoull(argv[4]);
  const uint64_t duration = std::stoull(argv[5]);

  // Per-packet ECMP over the shortest paths (pfcfabric hashes per flow:
  // the paths' lengths, and so the hops, are the same).
  Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));
  std::map<std::string, uint32_t> index;
  NodeContainer nodes;
  for (const auto& n : topo["nodes"]) {
    index[n["name"].get<std::string>()] = nodes.GetN();
    nodes.Create(1);
  }
  InternetStackHelper stack;
  stack.Install(nodes);
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate)));
  p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(delay)));
  Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
  std::map<uint32_t, Ipv4Address> host_ip;  // a host's one interface
  for (const auto& l : topo["links"]) {
    const uint32_t a = index.at(l[0].get<std::string>()), b = index.at(l[1].get<std::string>());
    NetDeviceContainer d = p2p.Install(nodes.Get(a), nodes.Get(b));
    Ipv4InterfaceContainer ifs = addr.Assign(d);
    addr.NewNetwork();
    host_ip.emplace(a, ifs.GetAddress(0));
    host_ip[b] = ifs.GetAddress(1);
  }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  std::ifstream ff(argv[2]);
  if (!ff) return Fail(std::string("cannot read ") + argv[2]);
  std::string src, dst;
  uint64_t bps, frame, start;
  uint16_t port = 9000;
  ApplicationContainer sinks;
  while (ff >> src >> dst >> bps >> frame >> start) {
    if (!index.count(src) || !index.count(dst) || frame < 64)
      return Fail(std::string(argv[2]) + ": expected SRC DST RATE FRAME START with known nodes");
    const uint32_t s = index[src], d = index[dst];
    // The frame pfcfabric sends is Ethernet + IPv4 + UDP + payload: the
    // same payload here, at the same frames per second.
    const uint32_t payload = static_cast<uint32_t>(frame - 42);
    PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sinks.Add(sink.Install(nodes.Get(d)));
    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(host_ip.at(d), port));
    onoff.SetConstantRate(DataRate(bps * payload / frame), payload);
    ApplicationContainer app = onoff.Install(nodes.Get(s));
    app.Start(NanoSeconds(start));
    app.Stop(NanoSeconds(duration));
    port++;
  }
  sinks.Start(NanoSeconds(0));
  Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxEnd",
                                MakeCallback(&OnPhyTxEnd));
  Simulator::Stop(NanoSeconds(duration));
  const auto t0 = std::chrono::steady_clock::now();
  Simulator::Run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t rx = 0;
  for (uint32_t i = 0; i < sinks.GetN(); i++) {
    Ptr<PacketSink> k = DynamicCast<PacketSink>(sinks.Get(i));
    rx += k->GetTotalRx();
  }
  Simulator::Destroy();
  std::printf("link_hops=%llu sink_bytes=%llu wall_s=%.6f\n",
              static_cast<unsigned long long>(g_link_hops), static_cast<unsigned long long>(rx),
              wall);
  return 0;
}
