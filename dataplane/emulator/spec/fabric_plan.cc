// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/spec/fabric_plan.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "dataplane/common/rng.h"

namespace pfc::emulator {
namespace fs = std::filesystem;
using tagger::Topology;

namespace {

constexpr uint32_t kLinkBase = 0x0a800000;  // 10.128.0.0/9, one /30 per link

// A name as a YAML flow scalar: plain when it can be, else double-quoted.
std::string YamlScalar(const std::string& s) {
  bool plain = !s.empty() && (std::isalnum(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
               s.back() != ':';
  for (const char ch : s)
    plain &= std::isalnum(static_cast<unsigned char>(ch)) || std::strchr("_./:-", ch) != nullptr;
  if (plain && s.find(": ") == std::string::npos) return s;
  std::string q = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') q += '\\';
    q += ch;
  }
  return q + "\"";
}

config::MacAddr NodeMac(uint32_t node, uint8_t port, uint8_t last) {
  return {0x02, uint8_t(node >> 8), uint8_t(node), port, 0x00, last};
}

// For every switch, its neighbours one hop closer to `host` (its equal-cost
// next hops towards it), each list in the order a breadth-first search from
// the host finds them: nodes in queue order, a node's neighbours by node id,
// only switches queued. That is the HPCC simulator's order (third.cc,
// CalculateRoute), so with its hash (switch.ecmp_hash_algorithm: hpcc) a
// flow takes the simulator's path. Empty for a switch that cannot reach it.
std::vector<std::vector<uint32_t>> NextHopsTo(const Topology& t, uint32_t host) {
  std::vector<std::vector<uint32_t>> toward(t.num_nodes());
  std::vector<int> d(t.num_nodes(), -1);
  std::vector<uint32_t> q{host};
  d[host] = 0;
  std::vector<uint32_t> nbrs;
  for (size_t i = 0; i < q.size(); ++i) {
    const uint32_t n = q[i];
    nbrs.clear();
    for (uint16_t p = 0; p < t.node(n).num_ports; ++p) nbrs.push_back(t.neighbor(t.gport(n, p)));
    std::sort(nbrs.begin(), nbrs.end());
    nbrs.erase(std::unique(nbrs.begin(), nbrs.end()), nbrs.end());
    for (uint32_t m : nbrs) {
      if (d[m] < 0) {
        d[m] = d[n] + 1;
        if (t.is_switch(m)) q.push_back(m);
      }
      if (d[m] == d[n] + 1 && t.is_switch(m)) toward[m].push_back(n);
    }
  }
  return toward;
}

// Every flow's idle path: one breadth-first search from each destination
// (switches expanded, hosts not), each node's link towards it the one it
// was first found by (the simulator's pairDelay / pairBw do the same), and
// the path read from the sender along those links.
std::vector<IdlePath> IdlePathsOf(const FabricSpec& spec) {
  const Topology& t = spec.topo;
  std::vector<IdlePath> paths(spec.flows.size());
  std::vector<std::vector<size_t>> by_dst(t.num_nodes());
  for (size_t i = 0; i < spec.flows.size(); ++i) by_dst[spec.flows[i].to].push_back(i);
  std::vector<uint32_t> parent(t.num_nodes());
  std::vector<uint32_t> q;
  for (uint32_t dst = 0; dst < t.num_nodes(); ++dst) {
    if (by_dst[dst].empty()) continue;
    std::fill(parent.begin(), parent.end(), tagger::kNoNode);
    parent[dst] = dst;
    q.assign(1, dst);
    for (size_t i = 0; i < q.size(); ++i) {
      const uint32_t n = q[i];
      for (uint16_t p = 0; p < t.node(n).num_ports; ++p) {
        const uint32_t m = t.neighbor(t.gport(n, p));
        if (parent[m] != tagger::kNoNode) continue;
        parent[m] = n;
        if (t.is_switch(m)) q.push_back(m);
      }
    }
    for (size_t i : by_dst[dst]) {
      IdlePath& ip = paths[i];
      ip.wire_overhead = spec.wire_overhead;
      ip.wire_ns3 = spec.wire_ns3;
      for (uint32_t n = spec.flows[i].from; n != dst && parent[n] != tagger::kNoNode;
           n = parent[n]) {
        uint64_t bps = 0, delay = 0;
        std::string dev;
        LinkParamsOf(spec, n, parent[n], &bps, &delay, &dev);
        ip.bps.push_back(bps);
        ip.delay_ns += delay;
      }
    }
  }
  return paths;
}

std::string MacString(const config::MacAddr& m) {
  char b[18];
  std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return b;
}

// A port speed with its unit: a bare number is Mb/s in a switch config (as
// SONiC's PORT table), so bits/s are written as G, or M with as many
// decimals as the rate needs (exact: 2.5G is 2500M, 1234567 b/s 1.234567M).
std::string RateString(uint64_t bps) {
  if (bps % 1'000'000'000 == 0) return std::to_string(bps / 1'000'000'000) + "G";
  std::string s = std::to_string(bps / 1'000'000);
  if (const uint64_t frac = bps % 1'000'000; frac != 0) {
    char b[8];
    std::snprintf(b, sizeof b, "%06llu", static_cast<unsigned long long>(frac));
    std::string f = b;
    f.erase(f.find_last_not_of('0') + 1);
    s += "." + f;
  }
  return s + "M";
}

}  // namespace

std::string Ipv4String(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string(ip >> 16 & 255) + "." +
         std::to_string(ip >> 8 & 255) + "." + std::to_string(ip & 255);
}

void LinkParamsOf(const FabricSpec& spec, uint32_t a, uint32_t b, uint64_t* rate_bps,
                  uint64_t* delay_ns, std::string* device) {
  *rate_bps = spec.link_rate_bps;
  *delay_ns = spec.link_delay_ns;
  device->clear();
  for (const LinkOverride& o : spec.overrides) {
    if (!((o.a == a && o.b == b) || (o.a == b && o.b == a))) continue;
    if (o.rate_bps) *rate_bps = o.rate_bps;
    if (o.delay_ns) *delay_ns = *o.delay_ns;
    const std::string& d = o.a == a ? o.device_a : o.device_b;
    if (!d.empty()) *device = DeviceName(d);
  }
  if (const HostSpec* h = spec.host(b); h && !h->device.empty()) *device = DeviceName(h->device);
}

bool LinkEndOnDevice(const FabricSpec& spec, uint32_t node, uint32_t peer) {
  uint64_t rate = 0, delay = 0;
  std::string dev;
  LinkParamsOf(spec, node, peer, &rate, &delay, &dev);
  const HostSpec* hs = spec.host(node);
  return !dev.empty() || (hs != nullptr && !hs->device.empty());
}

bool CheckLinkDevices(const FabricSpec& spec, std::string* err) {
  const tagger::Topology& t = spec.topo;
  for (uint32_t g : t.link_order()) {
    const uint32_t a = t.port_node(g), b = t.neighbor(g);
    if (LinkEndOnDevice(spec, a, b) != LinkEndOnDevice(spec, b, a)) {
      *err = spec.path + ": link " + t.node(a).name + "-" + t.node(b).name +
             ": expected both ends on devices or neither (one process emulates a link whole)";
      return false;
    }
  }
  for (const CaptureSpec& c : spec.captures) {
    if (LinkEndOnDevice(spec, c.a, c.b)) {
      *err = spec.path + ": captures: link " + t.node(c.a).name + "-" + t.node(c.b).name +
             " is carried by a DPDK device: capture it with dpdk-dumpcap instead";
      return false;
    }
  }
  return true;
}

std::string DeviceName(const std::string& device) { return device.substr(0, device.find(',')); }

std::vector<std::string> VdevArgs(const FabricSpec& spec) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& d) {
    if (d.find(',') != std::string::npos) out.push_back(d);
  };
  for (const LinkOverride& o : spec.overrides) {
    if (spec.Local(o.a)) add(o.device_a);
    if (spec.Local(o.b)) add(o.device_b);
  }
  for (const HostSpec& h : spec.hosts) {
    if (spec.Local(h.node)) add(h.device);
  }
  return out;
}

uint64_t BaseRttOf(const IdlePath& p, uint32_t payload) {
  uint64_t tx = 0;
  for (uint64_t b : p.bps) tx += uint64_t{payload} * 8'000'000'000 / b;
  return 2 * p.delay_ns + tx;
}

uint64_t WindowOf(const IdlePath& p, uint64_t base_rtt_ns) {
  // As the simulator rounds: to bits, then to bytes.
  return static_cast<uint64_t>(static_cast<unsigned __int128>(base_rtt_ns) * p.min_bps() /
                               1'000'000'000) /
         8;
}

HostParams HostParamsOf(const FabricSpec& spec, const HostPlan& hp) {
  HostParams p;
  static_cast<HostFaults&>(p) = spec.hosts[hp.node];
  p.mac = hp.mac;
  p.ip = hp.ip;
  p.gw_mac = hp.gw_mac;
  p.link_bps = hp.rate_bps;
  p.wire_overhead = spec.wire_overhead;
  p.wire_ns3 = spec.wire_ns3;
  p.bin_ns = spec.bin_ns;
  p.series_start_ns = spec.series_start_ns;
  p.dcqcn = spec.dcqcn;
  p.rc = spec.rc;
  p.ack_cc = spec.ack_cc;
  return p;
}

FlowSpec FlowOf(const FabricSpec& spec, const FabricPlan& plan, size_t i) {
  FlowSpec f = static_cast<const FlowSpec&>(spec.flows[i]);  // less its name and ends
  f.id = static_cast<uint32_t>(i + 1);
  f.dst_ip = plan.host(spec.flows[i].to)->ip;
  if (f.ack_cc != AckCcMode::kNone && i < plan.flow_paths.size()) {
    if (spec.ack_cc.hpcc.global_t) {
      f.base_rtt_ns = plan.max_base_rtt_ns;
      f.win_bytes = plan.max_win_bytes;
    } else {
      f.base_rtt_ns = BaseRttOf(plan.flow_paths[i], spec.rc.mtu);
      f.win_bytes = WindowOf(plan.flow_paths[i], f.base_rtt_ns);
    }
  }
  return f;
}

FabricPlan MakePlan(const FabricSpec& spec) {
  const Topology& t = spec.topo;
  FabricPlan plan;
  plan.switch_index.assign(t.num_nodes(), -1);
  plan.host_index.assign(t.num_nodes(), -1);
  // Link index of every global port, in the topology's link order.
  std::vector<uint32_t> link_of(t.num_ports());
  for (uint32_t i = 0; i < t.link_order().size(); ++i) {
    const uint32_t g = t.link_order()[i];
    link_of[g] = link_of[t.peer(g)] = i;
  }
  auto end_ip = [&](uint32_t g) {
    // .1 for the link's first end, .2 for the second; a host is always .2.
    const uint32_t base = kLinkBase + 4 * link_of[g];
    const bool first = t.link_order()[link_of[g]] == g;
    const uint32_t node = t.port_node(g), peer = t.neighbor(g);
    if (!t.is_switch(node)) return base + 2;
    if (!t.is_switch(peer)) return base + 1;
    return base + (first ? 1 : 2);
  };
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    if (t.is_switch(n)) {
      SwitchPlan sp;
      sp.node = n;
      sp.name = t.node(n).name;
      for (uint16_t p = 0; p < t.node(n).num_ports; ++p) {
        const uint32_t g = t.gport(n, p);
        PortPlan pp;
        pp.peer_node = t.neighbor(g);
        pp.peer_port = uint16_t(t.local(t.peer(g)));
        pp.name = t.node(pp.peer_node).name;
        pp.mac = NodeMac(n, uint8_t(p), 0x01);
        pp.ip = end_ip(g);
        if (const HostSpec* hs = spec.host(pp.peer_node); hs && hs->ip != 0)
          pp.ip = hs->gateway, pp.prefix_len = hs->prefix_len;  // a host's own subnet
        LinkParamsOf(spec, n, pp.peer_node, &pp.rate_bps, &pp.delay_ns, &pp.device);
        if (pp.device.empty())
          pp.device = std::string(kEmuDevicePrefix) + sp.name + "/" + std::to_string(p);
        sp.ports.push_back(pp);
      }
      plan.switch_index[n] = int(plan.switches.size());
      plan.switches.push_back(std::move(sp));
    } else {
      HostPlan hp;
      hp.node = n;
      hp.name = t.node(n).name;
      const uint32_t g = t.gport(n, 0);
      hp.mac = NodeMac(n, 0, 0x02);
      hp.ip = end_ip(g);
      hp.gw_ip = end_ip(t.peer(g));
      if (const HostSpec* hs = spec.host(n); hs && hs->ip != 0)
        hp.ip = hs->ip, hp.gw_ip = hs->gateway, hp.prefix_len = hs->prefix_len;
      hp.sw_node = t.neighbor(g);
      hp.sw_port = uint16_t(t.local(t.peer(g)));
      hp.gw_mac = NodeMac(hp.sw_node, uint8_t(hp.sw_port), 0x01);
      uint64_t delay = 0;
      LinkParamsOf(spec, hp.sw_node, n, &hp.rate_bps, &delay, &hp.device);
      plan.host_index[n] = int(plan.hosts.size());
      plan.hosts.push_back(hp);
    }
  }
  // Neighbours: every port's peer, statically (no ARP inside the fabric),
  // except a real host: its MAC is its NIC's, which the switch learns by ARP.
  for (SwitchPlan& sp : plan.switches) {
    for (uint16_t p = 0; p < sp.ports.size(); ++p) {
      const PortPlan& pp = sp.ports[p];
      if (const HostSpec* h = spec.host(pp.peer_node); h && !h->device.empty()) continue;
      const uint32_t g = t.gport(sp.node, p);
      const config::MacAddr mac = t.is_switch(pp.peer_node)
                                      ? NodeMac(pp.peer_node, uint8_t(pp.peer_port), 0x01)
                                      : NodeMac(pp.peer_node, 0, 0x02);
      const HostSpec* hs = spec.host(pp.peer_node);
      sp.neighbors.push_back({hs && hs->ip != 0 ? hs->ip : end_ip(t.peer(g)), mac, p});
    }
  }
  plan.flow_paths = IdlePathsOf(spec);
  for (const IdlePath& p : plan.flow_paths) {
    const uint64_t rtt = BaseRttOf(p, spec.rc.mtu);
    plan.max_base_rtt_ns = std::max(plan.max_base_rtt_ns, rtt);
    plan.max_win_bytes = std::max(plan.max_win_bytes, WindowOf(p, rtt));
  }
  if (spec.routes == RouteMode::kNone) return plan;
  // Routes to every host's /30 from every switch that is not its ToR.
  for (const HostPlan& hp : plan.hosts) {
    const std::vector<std::vector<uint32_t>> toward = NextHopsTo(t, hp.node);
    const uint32_t mask = ~0u << (32 - hp.prefix_len);
    for (SwitchPlan& sp : plan.switches) {
      if (sp.node == hp.sw_node || toward[sp.node].empty()) continue;
      std::vector<uint16_t> next;  // ports, in the order of `toward`
      for (uint32_t m : toward[sp.node])
        for (uint16_t p = 0; p < sp.ports.size(); ++p)
          if (sp.ports[p].peer_node == m) next.push_back(p);
      if (spec.routes == RouteMode::kSingle) {
        std::sort(next.begin(), next.end());
        next = {next[Mix64(spec.seed ^ (uint64_t(sp.node) << 32) ^ hp.node) % next.size()]};
      }
      if (next.size() > tables::kMaxEcmpNextHops) next.resize(tables::kMaxEcmpNextHops);
      RoutePlan r{hp.ip & mask, hp.prefix_len, {}};
      for (uint16_t p : next) r.next_hops.push_back({p, end_ip(t.peer(t.gport(sp.node, p)))});
      sp.routes.push_back(std::move(r));
    }
  }
  return plan;
}

FabricPlan::SwitchNames FabricPlan::NamesOf(const SwitchPlan& sp) {
  SwitchNames n;
  n.node = sp.node;
  n.name = sp.name;
  for (const PortPlan& p : sp.ports) {
    n.ports.push_back(p.name);
    n.ips.push_back(p.ip);
  }
  return n;
}

void KeepLocal(const FabricSpec& spec, FabricPlan* plan,
               std::vector<config::SwitchConfig>* configs) {
  std::vector<SwitchPlan> sws;
  std::vector<config::SwitchConfig> cfgs;
  plan->switch_index.assign(plan->switch_index.size(), -1);
  plan->all_switches.clear();
  plan->global_index.clear();
  for (size_t i = 0; i < plan->switches.size(); ++i) {
    plan->all_switches.push_back(FabricPlan::NamesOf(plan->switches[i]));
    if (!spec.Local(plan->switches[i].node)) continue;
    plan->global_index.push_back(static_cast<uint32_t>(i));
    plan->switch_index[plan->switches[i].node] = int(sws.size());
    sws.push_back(std::move(plan->switches[i]));
    cfgs.push_back(std::move((*configs)[i]));
  }
  plan->switches = std::move(sws);
  *configs = std::move(cfgs);
}

bool WriteHostsJson(const FabricSpec& spec, const FabricPlan& plan, std::string* err) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const HostPlan& h : plan.hosts) {
    const SwitchPlan& sw = *plan.sw(h.sw_node);
    hosts.push_back({{"name", h.name},
                     {"ip", Ipv4String(h.ip) + "/" + std::to_string(h.prefix_len)},
                     {"gateway", Ipv4String(h.gw_ip)},
                     {"gateway_mac", MacString(h.gw_mac)},
                     // An emulated host's MAC; a real host keeps its NIC's.
                     {"mac", h.device.empty() ? MacString(h.mac) : ""},
                     {"switch", sw.name},
                     {"port", sw.ports[h.sw_port].name},
                     {"device", h.device},
                     {"rate_bps", h.rate_bps}});
  }
  const std::string path = spec.out_dir + "/hosts.json";
  std::ofstream f(path);
  f << nlohmann::json{{"hosts", hosts}}.dump(1) << "\n";
  if (!f) {
    *err = path + ": cannot write";
    return false;
  }
  return true;
}

namespace {

// The node of `root` at a config field path as the loader names it
// ("buffer.lossless.xoff", "qos.tag_map[1]", "ecn.queues[0].profile"): the
// deepest node found on the way.
YAML::Node AtField(const YAML::Node& root, const std::string& field) {
  YAML::Node at = root;
  size_t i = 0;
  while (i < field.size()) {
    const size_t end = field.find_first_of(".[", i);
    std::string key = field.substr(i, end == std::string::npos ? end : end - i);
    i = end == std::string::npos ? field.size() : end;
    if (i < field.size() && field[i] == '[') {  // key[k]: a list index or a map key
      const size_t close = field.find(']', i);
      if (close == std::string::npos) break;
      const std::string k = field.substr(i + 1, close - i - 1);
      YAML::Node next = key.empty() ? at : at[key];
      if (!next) break;
      at.reset(next);
      key = k;
      i = close + 1;
      if (at.IsSequence()) {
        const size_t idx = std::strtoul(k.c_str(), nullptr, 10);
        if (idx >= at.size()) break;
        next = at[idx];
        at.reset(next);
        key.clear();
      }
    }
    if (!key.empty()) {
      if (!at.IsMap() || !at[key]) break;
      YAML::Node next = at[key];
      at.reset(next);
    }
    if (i < field.size() && field[i] == '.') ++i;
  }
  return at;
}

// An error the switch's loader found in a switch's generated config, told
// at the user's template when it comes from there: "tmpl.yaml:3:
// qos.tag_map[1]: expected ... (switch A; in its generated A.yaml:5)". The
// generated file is the template's sections re-emitted plus the fabric's
// tables, so its lines are not the template's.
std::string TemplateError(const std::string& tmpl_path, const YAML::Node& tmpl,
                          const SwitchPlan& sp, const std::string& err) {
  const std::string gen = sp.config_path + ":";
  if (tmpl_path.empty() || err.rfind(gen, 0) != 0) return err;
  const size_t line_end = err.find(": ", gen.size());
  if (line_end == std::string::npos) return err;
  const size_t field_end = err.find(": ", line_end + 2);
  const std::string field = err.substr(line_end + 2, field_end - line_end - 2);
  const std::string section = field.substr(0, field.find_first_of(".["));
  if (!tmpl[section]) return err;  // a generated section: the generated file is the place
  const YAML::Node at = AtField(tmpl, field);
  return tmpl_path + ":" + std::to_string(at.Mark().line + 1) + ": " + err.substr(line_end + 2) +
         " (switch " + sp.name + "; in its generated " + err.substr(0, line_end) + ")";
}

}  // namespace

bool WriteSwitchConfigs(const FabricSpec& spec, FabricPlan* plan,
                        std::vector<config::SwitchConfig>* out, std::string* err) {
  YAML::Node tmpl;
  if (!spec.switch_config.empty()) {
    // As the fabric file itself (fabric_spec.cc's LoadYaml): a directory
    // must be an error, not an exception yaml-cpp does not catch.
    std::string text;
    if (!config::ReadRegularFile(spec.switch_config, &text)) {
      *err = config::CannotOpen(spec.switch_config);
      return false;
    }
    try {
      tmpl = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      *err = spec.switch_config + ": " + e.what();
      return false;
    }
    if (!tmpl.IsMap()) {
      *err = spec.switch_config + ": (document): expected a map of pfcswitch config sections";
      return false;
    }
    for (const char* own : {"ports", "routes", "neighbors", "l2_table", "include"}) {
      if (tmpl[own]) {
        *err = spec.switch_config + ":" + std::to_string(tmpl[own].Mark().line + 1) + ": " + own +
               ": expected no such section in a fabric's switch template (the fabric generates it)";
        return false;
      }
    }
  }
  // HPCC-PINT's flows need switches that write the utilisation, with the
  // log base their NICs decode it by (the template's, else the hpcc
  // section's). The switches' estimate runs over the base RTT the NICs use
  // (the fabric's largest, as the simulator gives its switches maxRtt)
  // unless the template names one.
  YAML::Node pint =
      tmpl.IsMap() && tmpl["int"] && tmpl["int"].IsMap() ? tmpl["int"]["pint"] : YAML::Node();
  const bool pint_flows = std::any_of(spec.flows.begin(), spec.flows.end(), [](const auto& f) {
    return f.ack_cc == AckCcMode::kHpccPint;
  });
  if (pint_flows) {
    const std::string where = spec.switch_config.empty() ? spec.path : spec.switch_config;
    if (!pint || !pint.IsMap()) {
      *err = where +
             ": int.pint: expected the switch template's int section with pint (int: { "
             "priorities: [...], pint: { log_base: ... } }) for the flows with cc: hpcc_pint, "
             "whose switches write the path's utilisation";
      return false;
    }
    const double base = spec.ack_cc.hpcc.pint_log_base;
    if (!pint["log_base"]) {
      pint["log_base"] = base;
    } else if (double t = 0; !YAML::convert<double>::decode(pint["log_base"], t) || t != base) {
      *err = where + ":" + std::to_string(pint["log_base"].Mark().line + 1) +
             ": int.pint.log_base: expected the fabric's hpcc.pint_log_base (" +
             std::to_string(base) + "), the base the NICs decode by (got " +
             pint["log_base"].Scalar() + ")";
      return false;
    }
  }
  if (pint && pint.IsMap() && !pint["rtt"] && plan->max_base_rtt_ns != 0)
    pint["rtt"] = plan->max_base_rtt_ns;
  // On the real clock a switch reacts when its worker gets to it (many
  // switches a worker, sharing cores with the hosts): unless the template
  // says otherwise, its headroom covers that, not a hardware switch's 1 us.
  const bool own = tmpl.IsMap() && tmpl["pfc"] && tmpl["pfc"]["response_ns"];
  if (spec.clock == ClockKind::kReal && !own) tmpl["pfc"]["response_ns"] = kRealClockResponseNs;
  // A virtual clock stepping by a quantum reacts up to a step late, and the
  // link's FIFO (a step long) is committed: two steps more.
  if (spec.quantum_ns != 0)
    tmpl["pfc"]["response_ns"] =
        (own ? tmpl["pfc"]["response_ns"].as<uint64_t>() : 1000) + 2 * spec.quantum_ns;
  const fs::path dir = fs::path(spec.out_dir) / "switches";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *err = dir.string() + ": cannot create: " + ec.message();
    return false;
  }
  // Each switch hashes flows over its equal-cost next hops from its own seed:
  // switch.ecmp_seeds' in the fabric file, else the template's if it sets
  // one for all, else the switch's node id with the simulator's hash (as the
  // simulator seeds it), else one drawn from the fabric's seed.
  const bool own_ecmp_seed = tmpl.IsMap() && tmpl["switch"] && tmpl["switch"]["ecmp_hash_seed"];
  const bool hpcc_hash = tmpl.IsMap() && tmpl["switch"] && tmpl["switch"]["ecmp_hash_algorithm"] &&
                         tmpl["switch"]["ecmp_hash_algorithm"].Scalar() == "hpcc";
  if (!own_ecmp_seed && !(tmpl.IsMap() && tmpl["switch"]))
    tmpl["switch"] = YAML::Node(YAML::NodeType::Map);
  out->clear();
  for (SwitchPlan& sp : plan->switches) {
    YAML::Emitter y;
    y << YAML::BeginMap;
    if (tmpl.IsMap()) {
      for (const auto& kv : tmpl) {
        y << YAML::Key << kv.first << YAML::Value;
        // DCFIT's switch ID defaults to the switch's node in the fabric, so
        // that every switch has its own (S_gen-ini, S_tri).
        if (kv.first.Scalar() == "dcfit" && kv.second.IsMap() && !kv.second["switch_id"]) {
          YAML::Node d = YAML::Clone(kv.second);
          d["switch_id"] = sp.node;
          y << d;
        } else if (kv.first.Scalar() == "switch" && kv.second.IsMap() &&
                   (!own_ecmp_seed || spec.ecmp_seeds.count(sp.node))) {
          YAML::Node w = YAML::Clone(kv.second);
          const auto own = spec.ecmp_seeds.find(sp.node);
          w["ecmp_hash_seed"] = own != spec.ecmp_seeds.end() ? own->second
                                : hpcc_hash
                                    ? sp.node
                                    : uint32_t(Mix64(spec.seed ^ (uint64_t{sp.node} << 24)));
          y << w;
        } else if (kv.first.Scalar() == "int" && kv.second.IsMap() && kv.second["pint"] &&
                   !kv.second["seed"]) {
          // HPCC-PINT's switches round at random: a generator per switch.
          YAML::Node e = YAML::Clone(kv.second);
          e["seed"] = Mix64(spec.seed ^ (uint64_t{sp.node} << 28)) >> 1;
          y << e;
        } else if (kv.first.Scalar() == "ecn" && kv.second.IsMap() && !kv.second["seed"]) {
          // ECN marking draws from a generator per switch: seeded from the
          // fabric's seed and the switch, so a run repeats and switches differ.
          YAML::Node e = YAML::Clone(kv.second);
          e["seed"] = Mix64(spec.seed ^ (uint64_t{sp.node} << 20)) >> 1;  // ecn.seed: 0..2^63-1
          y << e;
        } else {
          y << kv.second;
        }
      }
    }
    if (!spec.rules_dir.empty())
      y << YAML::Key << "include" << YAML::Value
        << (fs::path(spec.rules_dir) / (sp.name + ".yaml")).string();
    y << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq;
    for (const PortPlan& p : sp.ports) {
      y << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << p.name << YAML::Key
        << "device" << YAML::Value << p.device << YAML::Key << "mac" << YAML::Value
        << MacString(p.mac) << YAML::Key << "ipv4" << YAML::Value
        << Ipv4String(p.ip) + "/" + std::to_string(p.prefix_len) << YAML::Key << "speed"
        << YAML::Value << RateString(p.rate_bps) << YAML::Key << "cable_m" << YAML::Value
        << (p.delay_ns + 4) / 5;  // 5 ns/m: headroom covers the delay
      if (spec.switch_mtu != 1500) y << YAML::Key << "mtu" << YAML::Value << spec.switch_mtu;
      if (spec.dwrr)
        y << YAML::Key << "scheduler" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "mode" << YAML::Value << "dwrr" << YAML::EndMap;
      y << YAML::EndMap;
    }
    y << YAML::EndSeq << YAML::EndMap;
    // Routes and neighbours (a thousand a switch in a large fat-tree) go to
    // the switch's loader as values, with the checks of their sections, and
    // to the file as text written here: emitting them with yaml-cpp and
    // parsing them back would be most of a large fabric's start-up.
    config::GeneratedTables gen{sp.routes, sp.neighbors};
    std::string tables;
    tables.reserve(64 * (sp.routes.size() + sp.neighbors.size() + 2));
    if (!sp.routes.empty()) tables += "routes:\n";
    auto hop = [&](const tables::NextHop& nh) {
      return "port: " + YamlScalar(sp.ports[nh.port].name) +
             (nh.gateway ? ", via: " + Ipv4String(nh.gateway) : std::string());
    };
    for (const RoutePlan& r : sp.routes) {
      tables += "  - {prefix: " + Ipv4String(r.prefix) + "/" + std::to_string(r.len);
      if (r.next_hops.size() == 1) {
        tables += ", " + hop(r.next_hops[0]) + "}\n";
        continue;
      }
      tables += ", next_hops: [";
      for (size_t k = 0; k < r.next_hops.size(); ++k)
        tables += (k ? "}, {" : "{") + hop(r.next_hops[k]);
      tables += "}]}\n";
    }
    tables += sp.neighbors.empty() ? "neighbors: []\n" : "neighbors:\n";
    for (const NeighborPlan& nb : sp.neighbors) {
      tables += "  - {ip: " + Ipv4String(nb.ip) + ", mac: " + MacString(nb.mac) +
                ", port: " + YamlScalar(sp.ports[nb.port].name) + "}\n";
    }
    const std::string head = std::string(y.c_str()) + "\n";
    sp.config_path = (dir / (sp.name + ".yaml")).string();
    std::ofstream f(sp.config_path);
    f << "# Generated by the fabric from " << spec.path
      << (spec.switch_config.empty() ? "" : " and " + spec.switch_config) << "; do not edit.\n"
      << head << tables;
    if (!f) {
      *err = sp.config_path + ": cannot write";
      return false;
    }
    f.close();
    // The loader reads the file without its tables, from memory; an
    // include from disk.
    auto read = [&](const std::string& path, std::string* text) {
      if (path != sp.config_path) return config::ReadRegularFile(path, text);
      *text = head;
      return true;
    };
    config::SwitchConfig c;
    if (!config::LoadConfig(sp.config_path, gen, &c, err, read)) {
      *err = TemplateError(spec.switch_config, tmpl, sp, *err);
      return false;
    }
    out->push_back(std::move(c));
  }
  return true;
}

}  // namespace pfc::emulator
