// SPDX-License-Identifier: BSD-3-Clause
// Fabric file loader: one parser per section, each throwing ConfigError with
// file:line: field: expectation (dataplane/config/yaml_util.h), then checks
// that span sections (flows between reachable hosts). `include:` pulls in
// other fabric files (their lists are appended, a map section given twice is
// an error); a file that includes itself, directly or not, is refused.
#include "dataplane/emulator/spec/fabric_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <queue>

#include "ctrl/tagger/topo_gen.h"
#include "dataplane/config/config.h"
#include "dataplane/config/yaml_util.h"
#include "dataplane/emulator/spec/fabric_plan.h"
#include "dataplane/emulator/spec/nic_sections.h"

namespace pfc::emulator {
namespace fs = std::filesystem;
using config::ConfigError;
using config::Reader;
using tagger::kNoNode;

namespace {

// A switch port's largest MTU (the switch config's ports[].mtu): jumbo
// frames of 9216 bytes, as SONiC's PORT mtu allows.
constexpr uint32_t kMaxMtu = 9216;

// A section with the file it came from (includes keep their own file name
// for messages).
struct Section {
  YAML::Node node;
  std::string file;
};
using Sections = std::map<std::string, std::vector<Section>>;

bool IsListSection(const std::string& s) {
  return s == "hosts" || s == "flows" || s == "events" || s == "captures";
}

// Read through config::ReadRegularFile, not YAML::LoadFile: yaml-cpp reads
// the stream's buffer directly, so a directory's read error escapes it as
// std::ios_base::failure and ends the process (e.g. `include: [/]`).
YAML::Node LoadYaml(const std::string& path) {
  std::string text;
  if (!config::ReadRegularFile(path, &text)) throw ConfigError(config::CannotOpen(path));
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax: " + e.msg);
  }
}

std::string Resolve(const std::string& base_file, const std::string& rel) {
  fs::path p(rel);
  if (p.is_relative()) p = fs::path(base_file).parent_path() / p;
  return fs::absolute(p).lexically_normal().string();
}

void Collect(const std::string& path, std::vector<std::string>* stack, Sections* out) {
  if (std::find(stack->begin(), stack->end(), path) != stack->end()) {
    std::string chain;
    for (const auto& f : *stack) chain += f + " -> ";
    throw ConfigError(stack->back() + ": include: cycle of includes (" + chain + path + ")");
  }
  stack->push_back(path);
  const Reader rd(path);
  YAML::Node root = LoadYaml(path);
  if (!root.IsMap()) rd.Fail(root, "(document)", "a map of sections (fabric, topology, ...)");
  rd.CheckKeys(root, "",
               {"fabric", "topology", "links", "switch", "routes", "hosts", "flows", "events",
                "captures", "dcqcn", "rc", "hpcc", "timely", "dctcp", "monitor", "include"});
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (key == "include") continue;
    auto& v = (*out)[key];
    if (!v.empty() && !IsListSection(key))
      rd.Fail(kv.second, key, "this section once (it is also in " + v.front().file + ")");
    v.push_back({kv.second, path});
  }
  if (YAML::Node inc = root["include"]) {
    if (inc.IsScalar()) {
      Collect(Resolve(path, rd.Str(inc, "include")), stack, out);
    } else {
      rd.RequireSeq(inc, "include");
      for (size_t i = 0; i < inc.size(); ++i)
        Collect(Resolve(path, rd.Str(inc[i], "include[" + std::to_string(i) + "]")), stack, out);
    }
  }
  stack->pop_back();
}

// What a name that is no node of the topology might have meant: the node
// spelt so in another case, else the topology's names of that kind (the
// generators' names are in docs/reference/fabric-file.md).
std::string NameHint(const tagger::Topology& t, const std::string& name, int kind) {
  auto lower = [](std::string x) {
    for (char& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return x;
  };
  std::vector<std::string> names;
  size_t count = 0;
  for (uint32_t i = 0; i < t.num_nodes(); ++i) {
    if (kind == 0 && !t.is_switch(i)) continue;
    if (kind == 1 && t.is_switch(i)) continue;
    if (lower(t.node(i).name) == lower(name)) return " (did you mean '" + t.node(i).name + "'?)";
    if (++count <= 4) names.push_back(t.node(i).name);
  }
  if (count == 0) return "";
  std::string h = ", such as ";
  for (size_t i = 0; i < names.size(); ++i) h += (i ? ", " : "") + names[i];
  if (count > names.size()) h += " (" + std::to_string(count) + " in all)";
  return h;
}

uint32_t Node(const Reader& rd, const FabricSpec& s, const YAML::Node& n, const std::string& field,
              int kind /* -1 any, 0 switch, 1 host */) {
  const std::string name = rd.Str(n, field);
  const uint32_t id = s.topo.Find(name);
  const char* what = kind == 0 ? "a switch" : kind == 1 ? "a host" : "a switch or host";
  if (id == kNoNode)
    rd.Fail(n, field, std::string(what) + " of the topology" + NameHint(s.topo, name, kind));
  if (kind == 0 && !s.topo.is_switch(id)) rd.Fail(n, field, "a switch (this is a host)");
  if (kind == 1 && s.topo.is_switch(id)) rd.Fail(n, field, "a host (this is a switch)");
  return id;
}

// [A, B] naming two nodes joined by a link of the topology.
std::pair<uint32_t, uint32_t> LinkRef(const Reader& rd, const FabricSpec& s, const YAML::Node& n,
                                      const std::string& field) {
  if (!n.IsSequence() || n.size() != 2) rd.Fail(n, field, "a link as [NODE, NODE]");
  const uint32_t a = Node(rd, s, n[0], field + "[0]", -1);
  const uint32_t b = Node(rd, s, n[1], field + "[1]", -1);
  if (s.topo.PortTo(a, b) < 0) rd.Fail(n, field, "two nodes joined by a link of the topology");
  return {a, b};
}

uint8_t PrioMask(const Reader& rd, const YAML::Node& n, const std::string& field) {
  rd.RequireSeq(n, field);
  uint8_t m = 0;
  for (size_t i = 0; i < n.size(); ++i)
    m |= uint8_t(1u << rd.Int(n[i], field + "[" + std::to_string(i) + "]", 0, 7));
  return m;
}

void ParseFabric(const Section& sec, FabricSpec* s) {
  const Reader rd(sec.file);
  const YAML::Node& n = sec.node;
  rd.CheckKeys(n, "fabric", {"clock", "seed", "duration", "bin", "series_start", "out", "quantum"});
  if (n["clock"]) {
    const std::string c = rd.Str(n["clock"], "fabric.clock");
    if (c == "virtual")
      s->clock = ClockKind::kVirtual;
    else if (c == "real")
      s->clock = ClockKind::kReal;
    else
      rd.Fail(n["clock"], "fabric.clock", "virtual or real");
  }
  if (n["seed"]) s->seed = uint64_t(rd.Int(n["seed"], "fabric.seed", 0, INT64_MAX));
  if (n["duration"]) s->duration_ns = Duration(rd, n["duration"], "fabric.duration");
  if (s->clock == ClockKind::kVirtual && s->duration_ns == 0)
    rd.Fail(n["duration"], "fabric.duration",
            "a run length > 0 for the virtual clock (e.g. 100ms)");
  if (n["bin"]) {
    s->bin_ns = Duration(rd, n["bin"], "fabric.bin");
    if (s->bin_ns < 1000) rd.Fail(n["bin"], "fabric.bin", "a time-series bin of at least 1us");
  }
  if (n["series_start"]) {
    s->series_start_ns = Duration(rd, n["series_start"], "fabric.series_start");
    if (s->duration_ns != 0 && s->series_start_ns >= s->duration_ns)
      rd.Fail(n["series_start"], "fabric.series_start",
              "a time before fabric.duration (" + std::to_string(s->duration_ns) + " ns)");
  }
  if (n["out"]) s->out_dir = Resolve(sec.file, rd.Str(n["out"], "fabric.out"));
  if (n["quantum"]) {
    s->quantum_ns = Duration(rd, n["quantum"], "fabric.quantum");
    s->quantum_at = rd.Where(n["quantum"]);
    if (s->quantum_ns != 0 && s->clock != ClockKind::kVirtual)
      rd.Fail(n["quantum"], "fabric.quantum", "0 on the real clock (a step of the virtual one)");
    if (s->quantum_ns > 1'000'000)
      rd.Fail(n["quantum"], "fabric.quantum", "a step of at most 1ms (0 = exact)");
  }
}

// monitor: { qlen: { start, end, interval } } (FabricSpec::qlen_mon).
void ParseMonitor(const Section& sec, FabricSpec* s) {
  const Reader rd(sec.file);
  const YAML::Node& n = sec.node;
  rd.CheckKeys(n, "monitor", {"qlen"});
  const YAML::Node q = n["qlen"];
  if (!q) return;
  rd.CheckKeys(q, "monitor.qlen", {"start", "end", "interval"});
  FabricSpec::QlenMonitor& m = s->qlen_mon;
  if (s->clock != ClockKind::kVirtual)
    rd.Fail(q, "monitor.qlen", "the virtual clock (queues are sampled between switch rounds)");
  if (q["start"]) m.start_ns = Duration(rd, q["start"], "monitor.qlen.start");
  m.end_ns = q["end"] ? Duration(rd, q["end"], "monitor.qlen.end") : s->duration_ns;
  m.interval_ns = q["interval"] ? Duration(rd, q["interval"], "monitor.qlen.interval") : 100;
  if (m.interval_ns == 0)
    rd.Fail(q["interval"], "monitor.qlen.interval", "a sampling interval of at least 1ns");
  if (m.end_ns < m.start_ns)
    rd.Fail(q["end"] ? q["end"] : q, "monitor.qlen.end",
            "a time at or after monitor.qlen.start (" + std::to_string(m.start_ns) + " ns)");
}

void ParseTopology(const Section& sec, FabricSpec* s) {
  const Reader rd(sec.file);
  const YAML::Node& n = sec.node;
  rd.CheckKeys(n, "topology", {"file", "gen", "switches", "hosts", "links"});
  const int kinds = !!n["file"] + !!n["gen"] + !!n["links"];
  if (kinds != 1) rd.Fail(n, "topology", "exactly one of file, gen, or switches/hosts/links");
  std::string err;
  if (n["file"]) {
    const std::string p = Resolve(sec.file, rd.Str(n["file"], "topology.file"));
    if (!tagger::LoadTopology(p, &s->topo, &err))
      throw ConfigError(sec.file + ": topology.file: " + err);
  } else if (n["gen"]) {
    if (!tagger::GenTopoSpec(rd.Str(n["gen"], "topology.gen"), &s->topo, &err))
      rd.Fail(n["gen"], "topology.gen", err.substr(err.find("expected ") + 9));
  } else {
    for (const char* kind : {"switches", "hosts"}) {
      const YAML::Node l = n[kind];
      const std::string f = std::string("topology.") + kind;
      if (!l) continue;
      rd.RequireSeq(l, f);
      for (size_t i = 0; i < l.size(); ++i) {
        // A name, or {name, layer} (the Clos layer pfc-tagger's clos scheme reads).
        const std::string fi = f + "[" + std::to_string(i) + "]";
        const bool is_sw = kind[0] == 's';
        int layer = is_sw ? 1 : 0;
        // Copy-constructed: assigning a yaml-cpp Node would overwrite the
        // node it refers to.
        const YAML::Node nm = l[i].IsMap() ? l[i]["name"] : l[i];
        if (l[i].IsMap()) {
          rd.CheckKeys(l[i], fi, {"name", "layer"});
          if (l[i]["layer"])
            layer = int(rd.Int(l[i]["layer"], fi + ".layer", is_sw ? 1 : 0, is_sw ? 16 : 0));
        }
        const std::string name = rd.Str(nm, fi + (l[i].IsMap() ? ".name" : ""));
        if (s->topo.Find(name) != kNoNode) rd.Fail(nm, fi, "a node name not used before");
        s->topo.AddNode(name, is_sw ? tagger::NodeKind::kSwitch : tagger::NodeKind::kHost, layer);
      }
    }
    const YAML::Node l = n["links"];
    rd.RequireSeq(l, "topology.links");
    for (size_t i = 0; i < l.size(); ++i) {
      const std::string f = "topology.links[" + std::to_string(i) + "]";
      if (!l[i].IsSequence() || l[i].size() != 2) rd.Fail(l[i], f, "[NODE, NODE]");
      uint32_t ends[2];
      for (int e = 0; e < 2; ++e) {
        ends[e] = s->topo.Find(rd.Str(l[i][e], f));
        if (ends[e] == kNoNode)
          rd.Fail(l[i][e], f + "[" + std::to_string(e) + "]", "a node listed in switches or hosts");
      }
      s->topo.AddLink(ends[0], ends[1]);
    }
    if (!s->topo.Finalize(&err)) rd.Fail(l, "topology.links", err);
  }
  if (s->topo.has_relays())
    rd.Fail(n, "topology",
            "a topology without relay hosts (BCube servers do not forward in the emulator yet)");
  for (uint32_t h = 0; h < s->topo.num_nodes(); ++h) {
    if (!s->topo.is_switch(h) && s->topo.node(h).num_ports != 1)
      rd.Fail(n, "topology",
              "every host on exactly one link (" + s->topo.node(h).name + " has " +
                  std::to_string(s->topo.node(h).num_ports) + ")");
  }
}

void ParseLinks(const Section& sec, FabricSpec* s) {
  const Reader rd(sec.file);
  const YAML::Node& n = sec.node;
  rd.CheckKeys(n, "links", {"rate", "delay", "fifo", "wire_overhead", "wire_time", "overrides"});
  if (n["wire_overhead"])
    s->wire_overhead = int32_t(rd.Int(n["wire_overhead"], "links.wire_overhead", -32, 64));
  if (n["wire_time"]) {
    const std::string wt = rd.Str(n["wire_time"], "links.wire_time");
    if (wt != "ceil" && wt != "ns3") rd.Fail(n["wire_time"], "links.wire_time", "ceil or ns3");
    s->wire_ns3 = wt == "ns3";
  }
  if (n["rate"]) s->link_rate_bps = rd.Rate(n["rate"], "links.rate");
  if (n["delay"]) s->link_delay_ns = Duration(rd, n["delay"], "links.delay");
  if (n["fifo"]) s->link_fifo_ns = Duration(rd, n["fifo"], "links.fifo");
  if (!n["overrides"]) return;
  rd.RequireSeq(n["overrides"], "links.overrides");
  for (size_t i = 0; i < n["overrides"].size(); ++i) {
    const YAML::Node o = n["overrides"][i];
    const std::string f = "links.overrides[" + std::to_string(i) + "]";
    rd.CheckKeys(o, f, {"between", "rate", "delay", "devices"});
    LinkOverride lo;
    std::tie(lo.a, lo.b) = LinkRef(rd, *s, o["between"], f + ".between");
    if (o["rate"]) lo.rate_bps = rd.Rate(o["rate"], f + ".rate");
    if (o["delay"]) lo.delay_ns = Duration(rd, o["delay"], f + ".delay");
    if (const YAML::Node d = o["devices"]) {
      rd.RequireMap(d, f + ".devices");
      for (const auto& kv : d) {
        const std::string end = kv.first.as<std::string>();
        const std::string df = f + ".devices." + end;
        const uint32_t id = s->topo.Find(end);
        if (id != lo.a && id != lo.b) rd.Fail(kv.first, df, "one of the link's two nodes");
        if (!s->topo.is_switch(id))
          rd.Fail(kv.first, df, "a switch end (a host's device goes in hosts[].device)");
        (id == lo.a ? lo.device_a : lo.device_b) = rd.Str(kv.second, df);
      }
    }
    s->overrides.push_back(lo);
  }
}

void ParseSwitch(const Section& sec, FabricSpec* s) {
  const Reader rd(sec.file);
  const YAML::Node& n = sec.node;
  rd.CheckKeys(n, "switch", {"config", "rules", "scheduler", "mtu", "ecmp_seeds"});
  if (const YAML::Node& m = n["ecmp_seeds"]) {
    if (!m.IsMap()) rd.Fail(m, "switch.ecmp_seeds", "a map of switch name to seed");
    for (const auto& kv : m) {
      const std::string f = "switch.ecmp_seeds." + kv.first.Scalar();
      const uint32_t sw = Node(rd, *s, kv.first, f, 0);
      s->ecmp_seeds[sw] = uint32_t(rd.Int(kv.second, f, 0, 0xffffffffll));
    }
  }
  if (n["mtu"]) s->switch_mtu = uint32_t(rd.Int(n["mtu"], "switch.mtu", 1500, kMaxMtu));
  if (n["scheduler"]) {
    const std::string m = rd.Str(n["scheduler"], "switch.scheduler");
    if (m != "strict" && m != "dwrr") rd.Fail(n["scheduler"], "switch.scheduler", "strict or dwrr");
    s->dwrr = m == "dwrr";
  }
  if (n["config"]) {
    s->switch_config = Resolve(sec.file, rd.Str(n["config"], "switch.config"));
    if (!fs::is_regular_file(s->switch_config))
      rd.Fail(n["config"], "switch.config",
              "a readable pfcswitch config (" + s->switch_config + ")");
  }
  if (n["rules"]) {
    s->rules_dir = Resolve(sec.file, rd.Str(n["rules"], "switch.rules"));
    if (!fs::is_directory(s->rules_dir))
      rd.Fail(n["rules"], "switch.rules",
              "a directory written by pfc-tagger tag (" + s->rules_dir + ")");
    for (uint32_t sw : s->topo.Switches()) {
      const fs::path p = fs::path(s->rules_dir) / (s->topo.node(sw).name + ".yaml");
      if (!fs::is_regular_file(p))
        rd.Fail(n["rules"], "switch.rules",
                "a rules file for every switch (missing " + p.string() + ")");
    }
  }
}

// A host's own subnet: `address` a.b.c.d/len and `gateway` (its switch
// port) in it, overlapping neither the fabric's link plan nor another host.
void ParseHostAddress(const Reader& rd, const YAML::Node& h, const std::string& f,
                      const FabricSpec* s, HostSpec* hs) {
  if (!h["address"] || !h["gateway"])
    rd.Fail(h, f, "address and gateway together (a host's own subnet)");
  uint32_t ip = 0, gw = 0;
  uint8_t len = 0;
  if (!config::ParsePrefix(rd.Str(h["address"], f + ".address"), &ip, &len) || len == 0 || len > 30)
    rd.Fail(h["address"], f + ".address", "a host address with its prefix, a.b.c.d/len, len 1-30");
  const uint32_t mask = ~0u << (32 - len);
  if (!config::ParseIpv4(rd.Str(h["gateway"], f + ".gateway"), &gw) || (gw & mask) != (ip & mask) ||
      gw == ip)
    rd.Fail(h["gateway"], f + ".gateway",
            "another address of the host's subnet " + rd.Str(h["address"], f + ".address"));
  auto overlap = [&](uint32_t net, uint8_t l) {
    const uint32_t m = ~0u << (32 - std::min(l, len));
    return (net & m) == (ip & m);
  };
  if (overlap(0x0a800000, 9))
    rd.Fail(h["address"], f + ".address", "a subnet outside 10.128.0.0/9 (the fabric's links)");
  for (const HostSpec& o : s->hosts) {
    if (o.ip != 0 && &o != hs && overlap(o.ip, o.prefix_len))
      rd.Fail(h["address"], f + ".address",
              "a subnet of its own (it overlaps " + s->topo.node(o.node).name + "'s)");
  }
  hs->ip = ip, hs->gateway = gw, hs->prefix_len = len;
}

void ParseHost(const Reader& rd, const YAML::Node& h, const std::string& f, FabricSpec* s) {
  rd.CheckKeys(h, f,
               {"name", "device", "ignore_pause", "storm", "storm_quanta", "storm_interval",
                "address", "gateway"});
  HostSpec& hs = s->hosts[Node(rd, *s, rd.Need(h, "name", f + ".name", "a host of the topology"),
                               f + ".name", 1)];
  if (h["device"]) hs.device = rd.Str(h["device"], f + ".device");
  if (h["address"] || h["gateway"]) ParseHostAddress(rd, h, f, s, &hs);
  if (h["ignore_pause"]) hs.ignore_pause = rd.Bool(h["ignore_pause"], f + ".ignore_pause");
  if (h["storm"]) hs.storm_prios = PrioMask(rd, h["storm"], f + ".storm");
  if (h["storm_quanta"])
    hs.storm_quanta =
        static_cast<uint16_t>(rd.Int(h["storm_quanta"], f + ".storm_quanta", 1, 65535));
  if (h["storm_interval"]) {
    hs.storm_interval_ns = Duration(rd, h["storm_interval"], f + ".storm_interval");
    if (hs.storm_interval_ns == 0) rd.Fail(h["storm_interval"], f + ".storm_interval", "> 0");
  }
  if (!hs.device.empty() && (hs.ignore_pause || hs.storm_prios))
    rd.Fail(h, f, "either a real host (device) or an emulated host's options, not both");
}

// Hosts reachable from `from` through switches (hosts do not forward).
std::vector<bool> Reachable(const tagger::Topology& t, uint32_t from) {
  std::vector<bool> seen(t.num_nodes(), false);
  std::queue<uint32_t> q;
  q.push(from);
  seen[from] = true;
  while (!q.empty()) {
    const uint32_t n = q.front();
    q.pop();
    if (n != from && !t.is_switch(n)) continue;
    for (uint16_t p = 0; p < t.node(n).num_ports; ++p) {
      const uint32_t m = t.neighbor(t.gport(n, p));
      if (!seen[m]) seen[m] = true, q.push(m);
    }
  }
  return seen;
}

// The rate of a host's link (its first, as the plan wires it): the
// override's, else the fabric's default (LinkParamsOf, fabric_plan.h).
uint64_t HostLinkBps(const FabricSpec& s, uint32_t host) {
  uint64_t rate = 0, delay = 0;
  std::string device;
  const uint32_t g = s.topo.gport(host, 0);
  LinkParamsOf(s, s.topo.neighbor(g), host, &rate, &delay, &device);
  return rate;
}

// The end of the warning for a flow that starts after the run's end
// (FoldNeverStarts finds them by it).
constexpr const char* kNeverStarts = ": the flow never starts";

void ParseFlow(const Reader& rd, const YAML::Node& n, const std::string& f, FabricSpec* s) {
  rd.CheckKeys(n, f,
               {"name", "from", "to", "dscp", "prio", "ecn", "cc", "rate", "frame", "bytes", "ttl",
                "transport", "message", "start", "stop", "src_port", "ack_src_port"});
  FlowSpecFile fl;
  fl.name = rd.Str(rd.Need(n, "name", f + ".name", "a flow name"), f + ".name");
  for (const auto& o : s->flows)
    if (o.name == fl.name) rd.Fail(n["name"], f + ".name", "a unique flow name");
  fl.from = Node(rd, *s, rd.Need(n, "from", f + ".from", "the sending host"), f + ".from", 1);
  fl.to = Node(rd, *s, rd.Need(n, "to", f + ".to", "the receiving host"), f + ".to", 1);
  if (fl.from == fl.to) rd.Fail(n["to"], f + ".to", "a host other than the sender");
  if (!s->hosts[fl.from].device.empty())
    rd.Fail(n["from"], f + ".from",
            "an emulated host (this one is a real host on " + s->hosts[fl.from].device + ")");
  if (n["dscp"]) fl.dscp = uint8_t(rd.Int(n["dscp"], f + ".dscp", 0, 63));
  if (n["prio"]) fl.prio = uint8_t(rd.Int(n["prio"], f + ".prio", 0, 7));
  if (n["ecn"]) {
    const std::string e = rd.Str(n["ecn"], f + ".ecn");
    if (e == "not-ect")
      fl.ecn = 0;
    else if (e == "ect0")
      fl.ecn = 2;
    else if (e == "ect1")
      fl.ecn = 1;
    else
      rd.Fail(n["ecn"], f + ".ecn", "not-ect, ect0 or ect1 (the ECN field the host sends)");
  }
  if (n["cc"]) {
    const std::string cc = rd.Str(n["cc"], f + ".cc");
    fl.dcqcn = cc == "dcqcn";
    if (cc == "hpcc")
      fl.ack_cc = AckCcMode::kHpcc;
    else if (cc == "timely")
      fl.ack_cc = AckCcMode::kTimely;
    else if (cc == "dctcp")
      fl.ack_cc = AckCcMode::kDctcp;
    else if (cc == "hpcc_pint")
      fl.ack_cc = AckCcMode::kHpccPint;
    else if (cc != "none" && cc != "dcqcn")
      rd.Fail(n["cc"], f + ".cc",
              "none, dcqcn (on CNPs), or on an RC flow's ACKs hpcc (INT), hpcc_pint (one INT "
              "value), timely (RTT) or dctcp (ECN echoes)");
  }
  if (n["rate"]) fl.rate_bps = rd.Rate(n["rate"], f + ".rate");
  if (n["frame"]) {
    // An Ethernet frame without FCS: up to the ports' MTU plus its 14-byte
    // header. The switch section is parsed before the flows whichever file
    // or place it is in, so switch.mtu is known here.
    fl.frame_len = uint32_t(rd.Int(n["frame"], f + ".frame", 66, kMaxMtu + 14));
    if (fl.frame_len > s->switch_mtu + 14)
      rd.Fail(n["frame"], f + ".frame",
              "at most " + std::to_string(s->switch_mtu + 14) + " bytes, switch.mtu " +
                  std::to_string(s->switch_mtu) + " + 14 (a " + std::to_string(fl.frame_len) +
                  "-byte frame needs switch.mtu >= " + std::to_string(fl.frame_len - 14) + ")");
  }
  if (n["bytes"]) fl.bytes = rd.Bytes(n["bytes"], f + ".bytes", 1, uint64_t{1} << 50);
  if (n["ttl"]) fl.ttl = uint8_t(rd.Int(n["ttl"], f + ".ttl", 1, 255));
  if (n["src_port"]) fl.src_port = uint16_t(rd.Int(n["src_port"], f + ".src_port", 1, 65535));
  ParseFlowTransport(rd, n, f, *s, &fl);
  if (n["ack_src_port"]) {
    if (!fl.rc)
      rd.Fail(n["ack_src_port"], f + ".ack_src_port",
              "transport: rc (the UDP source port of its responder's ACKs)");
    fl.ack_src_port = uint16_t(rd.Int(n["ack_src_port"], f + ".ack_src_port", 1, 65535));
  }
  if (fl.rc && s->flows.size() + 32 >= kPsnMask)
    rd.Fail(n, f, "fewer than 2^24 - 32 flows (an rc flow's QP number is 16 + its id)");
  if (n["start"]) fl.start_ns = Duration(rd, n["start"], f + ".start");
  if (n["stop"]) fl.stop_ns = Duration(rd, n["stop"], f + ".stop");
  if (fl.stop_ns <= fl.start_ns) rd.Fail(n["stop"], f + ".stop", "a time after start");
  if (!Reachable(s->topo, fl.from)[fl.to])
    rd.Fail(n["to"], f + ".to",
            "a host joined to " + s->topo.node(fl.from).name + " through switches (unreachable)");
  const auto gbps = [](uint64_t bps) {
    char b[32];
    std::snprintf(b, sizeof b, "%g Gb/s", static_cast<double>(bps) / 1e9);
    return std::string(b);
  };
  if (const uint64_t link = HostLinkBps(*s, fl.from); fl.rate_bps > link)
    s->warnings.push_back(rd.Where(n["rate"]) + ": " + f + ".rate: " + gbps(fl.rate_bps) +
                          " is more than " + s->topo.node(fl.from).name + "'s link (" + gbps(link) +
                          "): it sends at the link's rate");
  if (s->duration_ns != 0 && fl.start_ns >= s->duration_ns)
    s->warnings.push_back(rd.Where(n["start"]) + ": " + f +
                          ".start: " + std::to_string(fl.start_ns) +
                          " ns is not before the run's end (fabric.duration " +
                          std::to_string(s->duration_ns) + " ns)" + kNeverStarts);
  s->flows.push_back(fl);
}

// Flows that start after the run's end: the first three warned of one by
// one, the rest in one line (a converted experiment cut short, its flows
// starting at 2 s, printed thousands of lines).
void FoldNeverStarts(FabricSpec* s) {
  constexpr size_t kShown = 3;
  const std::string tail = kNeverStarts;
  const auto never = [&tail](const std::string& w) {
    return w.size() >= tail.size() && w.compare(w.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::vector<std::string> kept;
  size_t seen = 0;
  for (std::string& w : s->warnings) {
    if (never(w) && seen++ >= kShown) continue;
    kept.push_back(std::move(w));
  }
  if (seen > kShown)
    kept.push_back(s->path + ": flows: " + std::to_string(seen - kShown) +
                   " more flows start at or after the run's end (fabric.duration " +
                   std::to_string(s->duration_ns) + " ns): they never start");
  s->warnings = std::move(kept);
}

// cc: dcqcn on a flow that does not send ECT: nothing marks it, so DCQCN
// never acts. One warning for them all (a converted experiment has
// thousands of flows), naming the first.
void WarnDcqcnNotEct(FabricSpec* s) {
  const FlowSpecFile* first = nullptr;
  size_t n = 0;
  for (const FlowSpecFile& fl : s->flows) {
    if (!fl.dcqcn || fl.ecn != 0) continue;
    if (n++ == 0) first = &fl;
  }
  if (n == 0) return;
  s->warnings.push_back(
      s->path + ": flows: " + first->name +
      (n > 1 ? " and " + std::to_string(n - 1) + " more flows" : std::string()) +
      " have cc: dcqcn but send Not-ECT (no ecn: ect0): no switch marks them, so DCQCN never "
      "cuts their rate; add ecn: ect0 to the flow");
}

void ParseEvent(const Reader& rd, const YAML::Node& n, const std::string& f, FabricSpec* s) {
  rd.RequireMap(n, f);
  EventSpec e;
  e.line = n.Mark().line + 1;
  e.at_ns = Duration(rd, rd.Need(n, "at", f + ".at", "the time of the event"), f + ".at");
  if (n["link"]) {
    rd.CheckKeys(n, f, {"at", "link", "state"});
    e.kind = EventSpec::Kind::kLink;
    std::tie(e.a, e.b) = LinkRef(rd, *s, n["link"], f + ".link");
    const std::string st = n["state"] ? rd.Str(n["state"], f + ".state") : "";
    if (st != "up" && st != "down") rd.Fail(n["state"], f + ".state", "up or down");
    e.up = st == "up";
  } else if (n["route"]) {
    rd.CheckKeys(n, f, {"at", "route"});
    const YAML::Node r = n["route"];
    rd.CheckKeys(r, f + ".route", {"switch", "to", "via"});
    e.kind = EventSpec::Kind::kRoute;
    e.a =
        Node(rd, *s, rd.Need(r, "switch", f + ".route.switch", "a switch"), f + ".route.switch", 0);
    const std::string to =
        rd.Str(rd.Need(r, "to", f + ".route.to", "a host or a prefix"), f + ".route.to");
    e.b = s->topo.Find(to);
    if (e.b == kNoNode ? !config::ParsePrefix(to, &e.prefix, &e.prefix_len)
                       : s->topo.is_switch(e.b))
      rd.Fail(r["to"], f + ".route.to", "a host of the topology or a prefix a.b.c.d/len");
    e.c = Node(rd, *s, rd.Need(r, "via", f + ".route.via", "a neighbour"), f + ".route.via", -1);
    if (s->topo.PortTo(e.a, e.c) < 0)
      rd.Fail(r["via"], f + ".route.via", "a neighbour of " + s->topo.node(e.a).name);
  } else if (n["flow"]) {
    rd.CheckKeys(n, f, {"at", "flow", "action"});
    e.kind = EventSpec::Kind::kFlow;
    const std::string name = rd.Str(n["flow"], f + ".flow");
    auto it =
        std::find_if(s->flows.begin(), s->flows.end(), [&](auto& x) { return x.name == name; });
    if (it == s->flows.end()) rd.Fail(n["flow"], f + ".flow", "a flow named in flows");
    e.flow = size_t(it - s->flows.begin());
    const std::string act = n["action"] ? rd.Str(n["action"], f + ".action") : "";
    if (act != "start" && act != "stop") rd.Fail(n["action"], f + ".action", "start or stop");
    e.up = act == "start";
  } else if (n["host"]) {
    rd.CheckKeys(n, f, {"at", "host", "ignore_pause", "storm"});
    e.kind = EventSpec::Kind::kHost;
    e.a = Node(rd, *s, n["host"], f + ".host", 1);
    if (!s->hosts[e.a].device.empty()) rd.Fail(n["host"], f + ".host", "an emulated host");
    if (n["ignore_pause"]) e.ignore_pause = rd.Bool(n["ignore_pause"], f + ".ignore_pause");
    if (n["storm"]) e.storm_prios = PrioMask(rd, n["storm"], f + ".storm");
    if (!e.ignore_pause && !e.storm_prios) rd.Fail(n, f, "ignore_pause or storm to change");
  } else if (n["rules"]) {
    rd.CheckKeys(n, f, {"at", "rules"});
    const YAML::Node r = n["rules"];
    rd.CheckKeys(r, f + ".rules", {"switch", "file"});
    e.kind = EventSpec::Kind::kRules;
    e.a =
        Node(rd, *s, rd.Need(r, "switch", f + ".rules.switch", "a switch"), f + ".rules.switch", 0);
    e.file = Resolve(rd.file(), rd.Str(rd.Need(r, "file", f + ".rules.file", "a rules file"),
                                       f + ".rules.file"));
    if (!fs::is_regular_file(e.file))
      rd.Fail(r["file"], f + ".rules.file", "a readable rules file (" + e.file + ")");
  } else {
    rd.Fail(n, f, "one of link, route, flow, host, rules");
  }
  s->events.push_back(e);
}

void ParseCapture(const Reader& rd, const YAML::Node& n, const std::string& f, FabricSpec* s) {
  rd.CheckKeys(n, f, {"link", "file"});
  CaptureSpec c;
  std::tie(c.a, c.b) =
      LinkRef(rd, *s, rd.Need(n, "link", f + ".link", "the two ends of a link"), f + ".link");
  c.file = rd.Str(rd.Need(n, "file", f + ".file", "a pcapng file name"), f + ".file");
  s->captures.push_back(c);
}

// Runs parse(reader, item, "section[i]", spec) over every item of every
// occurrence of a list section.
template <typename F>
void EachItem(const Sections& secs, const char* name, FabricSpec* s, F parse) {
  auto it = secs.find(name);
  if (it == secs.end()) return;
  size_t idx = 0;
  for (const Section& sec : it->second) {
    const Reader rd(sec.file);
    rd.RequireSeq(sec.node, name);
    for (size_t i = 0; i < sec.node.size(); ++i, ++idx)
      parse(rd, sec.node[i], std::string(name) + "[" + std::to_string(idx) + "]", s);
  }
}

}  // namespace

const HostSpec* FabricSpec::host(uint32_t node) const {
  return node < hosts.size() && !topo.is_switch(node) ? &hosts[node] : nullptr;
}

bool FabricSpec::Local(uint32_t node) const {
  if (here.empty()) return true;
  if (topo.is_switch(node)) return here[node];
  return here[topo.neighbor(topo.gport(node, 0))];  // a host runs with its switch
}

bool PlaceHere(const std::vector<std::string>& switches, FabricSpec* s, std::string* err) {
  auto fail = [&](const std::string& why) {
    *err = why;
    s->here.clear();  // a refused placement changes nothing
    return false;
  };
  const tagger::Topology& t = s->topo;
  std::vector<bool> here(t.num_nodes(), false);
  for (const std::string& name : switches) {
    const uint32_t n = t.Find(name);
    if (n == kNoNode || !t.is_switch(n)) {
      return fail("--here: expected switches of the topology (got '" + name + "')");
    }
    here[n] = true;
  }
  s->here = here;
  auto name = [&](uint32_t n) { return t.node(n).name; };
  bool split = false;
  for (uint32_t g : t.link_order()) {
    const uint32_t a = t.port_node(g), b = t.neighbor(g);
    if (s->Local(a) == s->Local(b)) continue;
    split = true;
    const LinkOverride* o = nullptr;
    for (const LinkOverride& x : s->overrides) {
      if ((x.a == a && x.b == b) || (x.a == b && x.b == a)) o = &x;
    }
    if (!t.is_switch(a) || !t.is_switch(b) || o == nullptr || o->device_a.empty() ||
        o->device_b.empty()) {
      return fail(s->path + ": link " + name(a) + "-" + name(b) + " joins " +
                  name(s->Local(a) ? a : b) + " (here) and " + name(s->Local(a) ? b : a) +
                  " (elsewhere): expected devices on both ends in links.overrides (the cable "
                  "between the servers)");
    }
  }
  if (split && s->clock != ClockKind::kReal) {
    return fail(s->path + ": fabric.clock: expected real for a fabric split over servers (--here)");
  }
  for (size_t i = 0; i < s->captures.size(); ++i) {
    const CaptureSpec& c = s->captures[i];
    if (!s->Local(c.a) || !s->Local(c.b)) {
      return fail(s->path + ": captures[" + std::to_string(i) + "]: link " + name(c.a) + "-" +
                  name(c.b) + " is not emulated here (--here): capture it where it runs");
    }
  }
  return true;
}

bool ParseDuration(const std::string& s, uint64_t* ns) {
  size_t pos = 0;
  double v = 0;
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  try {
    v = std::stod(s, &pos);
  } catch (...) {
    return false;
  }
  const std::string unit = s.substr(pos);
  double mult = 0;
  if (unit == "ns" || (unit.empty() && v == 0))
    mult = 1;
  else if (unit == "us")
    mult = 1e3;
  else if (unit == "ms")
    mult = 1e6;
  else if (unit == "s")
    mult = 1e9;
  if (mult == 0 || !std::isfinite(v) || v < 0 || v * mult > 1e18) return false;
  *ns = static_cast<uint64_t>(std::llround(v * mult));
  return true;
}

bool LoadFabric(const std::string& path, FabricSpec* out, std::string* err) {
  try {
    FabricSpec s;
    s.path = fs::absolute(path).lexically_normal().string();
    Sections secs;
    std::vector<std::string> stack;
    Collect(s.path, &stack, &secs);
    auto one = [&](const char* name) -> const Section* {
      auto it = secs.find(name);
      return it == secs.end() ? nullptr : &it->second.front();
    };
    if (!one("topology"))
      throw ConfigError(s.path + ": topology: expected a section (file, gen or links)");
    if (const Section* f = one("fabric"))
      ParseFabric(*f, &s);
    else
      throw ConfigError(s.path + ": fabric: expected a section with at least duration");
    ParseTopology(*one("topology"), &s);
    if (const Section* m = one("monitor")) ParseMonitor(*m, &s);
    if (s.topo.Switches().empty())
      throw ConfigError(s.path + ": topology: expected at least one switch");
    s.hosts.resize(s.topo.num_nodes());
    for (uint32_t i = 0; i < s.topo.num_nodes(); ++i) s.hosts[i].node = i;
    if (const Section* l = one("links")) ParseLinks(*l, &s);
    if (const Section* sw = one("switch")) ParseSwitch(*sw, &s);
    if (const Section* r = one("routes")) {
      const Reader rd(r->file);
      const std::string v = rd.Str(r->node, "routes");
      if (v == "shortest")
        s.routes = RouteMode::kEcmp;
      else if (v == "shortest_single")
        s.routes = RouteMode::kSingle;
      else if (v == "none")
        s.routes = RouteMode::kNone;
      else
        rd.Fail(r->node, "routes", "shortest, shortest_single or none");
    }
    if (const Section* d = one("dcqcn")) ParseDcqcn(Reader(d->file), d->node, &s);
    if (const Section* r = one("rc")) ParseRc(Reader(r->file), r->node, &s);
    if (const Section* h = one("hpcc")) ParseAckCc(Reader(h->file), h->node, "hpcc", &s);
    if (const Section* t = one("timely")) ParseAckCc(Reader(t->file), t->node, "timely", &s);
    if (const Section* d = one("dctcp")) ParseAckCc(Reader(d->file), d->node, "dctcp", &s);
    EachItem(secs, "hosts", &s, ParseHost);
    EachItem(secs, "flows", &s, ParseFlow);
    FoldNeverStarts(&s);
    WarnDcqcnNotEct(&s);
    EachItem(secs, "events", &s, ParseEvent);
    EachItem(secs, "captures", &s, ParseCapture);
    if (std::string e; !CheckRcFrames(s, &e)) throw ConfigError(e);
    if (std::string e; !CheckLinkDevices(s, &e)) throw ConfigError(e);
    if (s.quantum_ns != 0) {
      // A step no longer than any link's delay: a frame sent in a step lands
      // in a later one (and host pacing stays within a frame of exact).
      uint64_t shortest = s.link_delay_ns;
      for (const LinkOverride& o : s.overrides)
        shortest = std::min(shortest, o.delay_ns.value_or(shortest));
      if (s.quantum_ns > shortest)
        throw ConfigError(s.quantum_at +
                          ": fabric.quantum: expected at most the shortest link "
                          "delay, " +
                          std::to_string(shortest) + " ns (got " + std::to_string(s.quantum_ns) +
                          " ns)");
    }
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const EventSpec& a, const EventSpec& b) { return a.at_ns < b.at_ns; });
    // Results go to the working directory, not beside the (possibly
    // read-only) fabric file.
    if (s.out_dir.empty())
      s.out_dir = (fs::current_path() / fs::path(s.path).stem()).string() + "-results";
    *out = std::move(s);
    return true;
  } catch (const ConfigError& e) {
    *err = e.what();
  } catch (const YAML::Exception& e) {
    *err = path + ": " + e.what();
  }
  return false;
}

}  // namespace pfc::emulator
