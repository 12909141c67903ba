// SPDX-License-Identifier: BSD-3-Clause
// Sections: switch, ports, routes, neighbors, l2_table.
#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "dataplane/config/sections.h"

namespace pfc::config::sections {

void ParseSwitch(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;  // every field has a documented default
  rd.CheckKeys(n, "switch",
               {"mode", "workers", "idle_sleep_us", "rx_interrupts", "interrupt_sleep_ms", "burst",
                "verify_ip_checksum", "hairpin", "ecmp_hash_algorithm", "ecmp_hash_seed"});
  if (n["ecmp_hash_algorithm"]) {
    const std::string a = rd.Str(n["ecmp_hash_algorithm"], "switch.ecmp_hash_algorithm");
    if (a == "crc32c")
      c->ecmp_hash = tables::EcmpHashAlgo::kCrc32c;
    else if (a == "hpcc")
      c->ecmp_hash = tables::EcmpHashAlgo::kHpcc;
    else
      rd.Fail(n["ecmp_hash_algorithm"], "switch.ecmp_hash_algorithm", "crc32c or hpcc");
  }
  if (n["ecmp_hash_seed"])
    c->ecmp_seed = static_cast<uint32_t>(
        rd.Int(n["ecmp_hash_seed"], "switch.ecmp_hash_seed", 0, 0xffffffffll));
  if (n["hairpin"]) {
    std::string h = rd.Str(n["hairpin"], "switch.hairpin");
    if (h == "drop")
      c->hairpin_drop = true;
    else if (h != "forward")
      rd.Fail(n["hairpin"], "switch.hairpin", "forward or drop");
  }
  if (n["mode"]) {
    std::string m = rd.Str(n["mode"], "switch.mode");
    if (m == "l3")
      c->mode = SwitchConfig::Mode::kL3;
    else if (m == "l2")
      c->mode = SwitchConfig::Mode::kL2;
    else
      rd.Fail(n["mode"], "switch.mode", "l3 or l2");
  }
  if (n["workers"]) c->workers = rd.Int(n["workers"], "switch.workers", 1, 16);
  if (n["idle_sleep_us"])
    c->idle_sleep_us = rd.Int(n["idle_sleep_us"], "switch.idle_sleep_us", 0, 100000);
  if (n["rx_interrupts"]) c->rx_interrupts = rd.Bool(n["rx_interrupts"], "switch.rx_interrupts");
  if (n["interrupt_sleep_ms"])
    c->interrupt_sleep_ms = rd.Int(n["interrupt_sleep_ms"], "switch.interrupt_sleep_ms", 1, 1000);
  if (n["burst"]) c->burst = rd.Int(n["burst"], "switch.burst", 1, kMaxBurst);
  if (n["verify_ip_checksum"])
    c->verify_ip_checksum = rd.Bool(n["verify_ip_checksum"], "switch.verify_ip_checksum");
}

static void ParseScheduler(const config::Reader& rd, const YAML::Node& n, const std::string& f,
                           PortConfig* p) {
  rd.CheckKeys(n, f, {"mode", "quantum"});
  std::string m = n["mode"] ? rd.Str(n["mode"], f + ".mode") : "strict";
  if (m == "strict")
    p->sched.mode = sched::SchedMode::kStrict;
  else if (m == "dwrr")
    p->sched.mode = sched::SchedMode::kDwrr;
  else
    rd.Fail(n["mode"], f + ".mode", "strict or dwrr");
  if (n["quantum"]) {
    const YAML::Node& q = n["quantum"];
    if (!q.IsSequence() || q.size() != kNumPrio)
      rd.Fail(q, f + ".quantum", "a list of 8 byte counts");
    for (int i = 0; i < kNumPrio; i++)
      p->sched.quantum[i] = rd.Int(q[i], f + ".quantum[" + std::to_string(i) + "]", 64, 1 << 20);
  }
}

namespace {

uint32_t PrefixMask(uint8_t len) { return len ? 0xffffffffu << (32 - len) : 0; }

std::string PrefixText(uint32_t ip, uint8_t len) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
         std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255) + "/" +
         std::to_string(len);
}

bool AllDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// SONiC's PORT_QOS_MAP pfc_enable: a list [3, 4], or SONiC's string "3,4"
// ("" or [] for none). Each priority once; whether they are lossless is
// checked once qos is read (CheckPortPfc).
uint8_t PfcEnable(const config::Reader& rd, const YAML::Node& n, const std::string& f) {
  const std::string expected = "a list of priorities 0..7 such as [3, 4], or SONiC's \"3,4\"";
  std::vector<std::string> items;
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); i++) {
      if (!n[i].IsScalar()) rd.Fail(n[i], f + "[" + std::to_string(i) + "]", "a priority 0..7");
      items.push_back(n[i].Scalar());
    }
  } else if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    for (size_t at = 0; !s.empty() && at <= s.size();) {
      const size_t comma = std::min(s.find(',', at), s.size());
      std::string item = s.substr(at, comma - at);
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      items.push_back(item);
      at = comma + 1;
    }
  } else if (!n.IsNull()) {  // `pfc_enable:` with nothing: none, as ""
    rd.Fail(n, f, expected);
  }
  uint8_t mask = 0;
  for (size_t i = 0; i < items.size(); i++) {
    if (items[i].size() != 1 || items[i][0] < '0' || items[i][0] > '7')
      rd.Fail(n.IsSequence() ? n[i] : n, n.IsSequence() ? f + "[" + std::to_string(i) + "]" : f,
              n.IsSequence() ? "a priority 0..7" : expected);
    const uint8_t bit = static_cast<uint8_t>(1u << (items[i][0] - '0'));
    if (mask & bit) rd.Fail(n, f, "each priority once");
    mask |= bit;
  }
  return mask;
}

}  // namespace

// A port's speed. A bare integer is Mb/s, as in SONiC's PORT table (speed:
// 100000 is 100G), taken from SONiC's smallest to its largest port speed;
// a rate with a unit (10G, 2.5G, 25000M) is bits/s as everywhere else. The
// range is the one the PFC timing and the default headroom work in
// (pause/headroom.h), so a speed they would refuse is refused here, at its line.
constexpr uint64_t kMinSpeedMbps = 1000, kMaxSpeedMbps = 1'600'000;
constexpr uint64_t kMinSpeedBps = 1'000'000, kMaxSpeedBps = kMaxSpeedMbps * 1'000'000;

uint64_t PortSpeed(const config::Reader& rd, const YAML::Node& n, const std::string& f) {
  const std::string expected =
      "a speed such as 100G, 2.5G or 25000M (1M..1.6T), or a bare number of Mb/s as in "
      "SONiC's PORT table (100000 = 100G; 1000..1600000)";
  if (!n.IsScalar()) rd.Fail(n, f, expected);
  const std::string& s = n.Scalar();
  if (AllDigits(s)) {
    if (s.size() > 7) rd.Fail(n, f, expected);
    const uint64_t mbps = std::stoull(s);
    if (mbps < kMinSpeedMbps || mbps > kMaxSpeedMbps) rd.Fail(n, f, expected);
    return mbps * 1'000'000;
  }
  uint64_t bps = 0;
  if (!ParseRate(s, &bps) || bps < kMinSpeedBps || bps > kMaxSpeedBps) rd.Fail(n, f, expected);
  return bps;
}

void ParsePorts(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n.IsSequence() || n.size() == 0 || n.size() > kMaxPorts)
    rd.Fail(n, "ports", "a list of 1 to 64 ports");
  std::set<std::string> names, devices;
  for (size_t i = 0; i < n.size(); i++) {
    const YAML::Node& e = n[i];
    const std::string f = "ports[" + std::to_string(i) + "]";
    rd.CheckKeys(e, f,
                 {"name", "device", "mac", "ipv4", "speed", "shaper", "shaper_burst", "cable_m",
                  "mtu", "scheduler", "pfc_enable"});
    PortConfig p;
    p.name = rd.Str(rd.Need(e, "name", f + ".name", "a port name such as p0"), f + ".name");
    if (p.name.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            std::string::npos ||
        !names.insert(p.name).second)
      rd.Fail(e["name"], f + ".name", "a unique name of letters, digits, '_', '.', '-'");
    // Rules, routes and neighbors take a port by name or by 0-based index; a
    // port named "1" would make `in: [1]` mean index 0, so numbers are refused.
    if (AllDigits(p.name))
      rd.Fail(e["name"], f + ".name",
              "a name that is not a number (a number in rules, routes and neighbors is a 0-based "
              "port index)");
    p.device =
        rd.Str(rd.Need(e, "device", f + ".device", "a DPDK device name such as net_af_packet0"),
               f + ".device");
    if (!devices.insert(p.device).second)
      rd.Fail(e["device"], f + ".device", "a device not used by another port");
    if (e["mac"]) {
      p.has_mac = true;
      if (!ParseMac(rd.Str(e["mac"], f + ".mac"), &p.mac) || (p.mac[0] & 1))
        rd.Fail(e["mac"], f + ".mac", "a unicast MAC address like 02:00:00:00:00:01");
    }
    if (e["ipv4"]) {
      p.has_ipv4 = true;
      if (!ParsePrefix(rd.Str(e["ipv4"], f + ".ipv4"), &p.ipv4, &p.prefix_len) ||
          p.prefix_len == 0 || p.prefix_len > 31)
        rd.Fail(e["ipv4"], f + ".ipv4", "an address with prefix length /1../31, like 10.0.1.1/24");
      // Overlapping subnets would make the connected port of an address
      // ambiguous (and the two connected routes conflict).
      for (size_t j = 0; j < c->ports.size(); j++) {
        const PortConfig& o = c->ports[j];
        const uint32_t m = PrefixMask(std::min(o.prefix_len, p.prefix_len));
        if (o.has_ipv4 && (o.ipv4 & m) == (p.ipv4 & m))
          rd.Fail(e["ipv4"], f + ".ipv4",
                  "a subnet apart from port " + o.name + "'s " + PrefixText(o.ipv4, o.prefix_len) +
                      " (overlapping subnets make the connected port ambiguous)");
      }
    } else if (c->mode == SwitchConfig::Mode::kL3) {
      rd.Need(e, "ipv4", f + ".ipv4",
              "an address like 10.0.1.1/24 in l3 mode (hosts use it as their gateway)");
    }
    p.speed_bps = PortSpeed(
        rd, rd.Need(e, "speed", f + ".speed", "the link speed, such as 10G (PFC timing needs it)"),
        f + ".speed");
    if (e["pfc_enable"]) {
      p.has_pfc_enable = true;
      p.pfc_enable = PfcEnable(rd, e["pfc_enable"], f + ".pfc_enable");
    }
    if (e["mtu"]) p.mtu = rd.Int(e["mtu"], f + ".mtu", 68, 9216);
    if (e["cable_m"]) p.cable_m = rd.Int(e["cable_m"], f + ".cable_m", 0, 100000);
    if (e["shaper"]) {
      p.sched.shaper_bps = rd.Rate(e["shaper"], f + ".shaper");
      if (p.sched.shaper_bps > p.speed_bps)
        rd.Fail(e["shaper"], f + ".shaper", "a rate not above the port speed");
    }
    // The bucket is also how far the egress runs ahead of the emulated wire:
    // what it holds when a PFC frame arrives still leaves. Below one frame, at
    // most one frame is queued behind the one on the wire (the scheduler
    // overdraws by one frame, so any depth >= 64 B keeps the rate); measured
    // by bench/dataplane/pfc_reaction.sh.
    p.sched.shaper_burst = 512;
    if (e["shaper_burst"]) {
      if (!e["shaper"])
        rd.Fail(e["shaper_burst"], f + ".shaper_burst", "no shaper_burst without a shaper");
      p.sched.shaper_burst = rd.Bytes(e["shaper_burst"], f + ".shaper_burst", 64, 64 << 20);
    }
    p.sched.quantum.fill(std::max<uint32_t>(p.mtu, 1500));
    if (e["scheduler"]) ParseScheduler(rd, e["scheduler"], f + ".scheduler", &p);
    c->ports.push_back(std::move(p));
  }
}

void CheckPortPfc(const config::Reader& rd, const YAML::Node& ports, const SwitchConfig& c) {
  const uint8_t ll = c.tag_map.lossless_mask;
  for (size_t i = 0; i < c.ports.size(); i++) {
    const PortConfig& p = c.ports[i];
    if (!p.has_pfc_enable || (p.pfc_enable & ~ll) == 0) continue;
    std::string list;
    for (int q = 0; q < kNumPrio; q++)
      if (ll >> q & 1) list += (list.empty() ? "" : ", ") + std::to_string(q);
    rd.Fail(ports[i]["pfc_enable"], "ports[" + std::to_string(i) + "].pfc_enable",
            "priorities of qos.lossless (" + (list.empty() ? std::string("none") : list) + ")");
  }
}

PortId PortRef(const config::Reader& rd, const YAML::Node& n, const std::string& field,
               const SwitchConfig& c) {
  if (n.IsScalar()) {
    int idx = c.PortIndex(n.Scalar());
    if (idx >= 0) return static_cast<PortId>(idx);
    const std::string& s = n.Scalar();
    if (AllDigits(s) && s.size() < 4) {
      int v = std::stoi(s);
      if (v < static_cast<int>(c.ports.size())) return static_cast<PortId>(v);
    }
  }
  rd.Fail(n, field,
          "a port name from 'ports' or an index 0.." + std::to_string(c.ports.size() - 1));
}

NextHopIndex::NextHopIndex(SwitchConfig* c) : c_(c) {
  // An ECMP group's entries are its own: a single route over the same
  // (port, via) as its head must not share the head (it would spread too).
  for (size_t i = 0; i < c->next_hops.size();) {
    const uint16_t g = std::max<uint16_t>(c->next_hops[i].group, 1);
    if (g == 1) {
      index_.emplace(Key(c->next_hops[i]), static_cast<uint16_t>(i));
    } else {
      std::vector<uint64_t> key;
      for (size_t k = i; k < i + g && k < c->next_hops.size(); k++)
        key.push_back(Key(c->next_hops[k]));
      groups_.emplace(std::move(key), static_cast<uint16_t>(i));
    }
    i += g;
  }
}

uint16_t NextHopIndex::Add(const tables::NextHop& nh) {
  auto it = index_.find(Key(nh));
  if (it != index_.end()) return it->second;
  if (c_->next_hops.size() >= tables::RouteTable::kMaxNextHops)
    return tables::RouteTable::kMaxNextHops;
  const auto i = static_cast<uint16_t>(c_->next_hops.size());
  c_->next_hops.push_back(nh);
  index_.emplace(Key(nh), i);
  return i;
}

uint16_t NextHopIndex::AddGroup(const std::vector<tables::NextHop>& hops) {
  std::vector<uint64_t> key;
  for (const tables::NextHop& nh : hops) key.push_back(Key(nh));
  auto it = groups_.find(key);
  if (it != groups_.end()) return it->second;
  if (c_->next_hops.size() + hops.size() > tables::RouteTable::kMaxNextHops)
    return tables::RouteTable::kMaxNextHops;
  const auto first = static_cast<uint16_t>(c_->next_hops.size());
  for (const tables::NextHop& nh : hops) c_->next_hops.push_back({nh.port, nh.gateway, 1});
  c_->next_hops[first].group = static_cast<uint16_t>(hops.size());
  groups_.emplace(std::move(key), first);
  return first;
}

namespace {

// The checks every route gets, parsed or generated (RouteSpec): `e` is the
// route's YAML node, or nullptr for a generated one (its messages then name
// the field without a line).
class RouteChecker {
 public:
  RouteChecker(const config::Reader& rd, SwitchConfig* c) : rd_(rd), c_(c), next_hops_(c) {}
  void Add(const YAML::Node* e, const std::string& f, const RouteSpec& s) {
    auto at = [e](const char* key) { return e ? (*e)[key] : YAML::Node(); };
    if (s.len > 32 || (s.len < 32 && (s.prefix & (0xffffffffu >> s.len))))
      rd_.Fail(at("prefix"), f + ".prefix", "a network like 10.0.9.0/24 with no host bits set");
    const bool ecmp = s.next_hops.size() > 1;
    if (s.next_hops.empty() || s.next_hops.size() > tables::kMaxEcmpNextHops)
      rd_.Fail(at("next_hops"), f + ".next_hops",
               "1.." + std::to_string(tables::kMaxEcmpNextHops) + " next hops");
    std::set<std::pair<PortId, uint32_t>> distinct;
    for (size_t k = 0; k < s.next_hops.size(); ++k) {
      const tables::NextHop& nh = s.next_hops[k];
      // Named as written: next_hops[k] when listed (even one), else the
      // route's own port and via (a generated route: as listed when ECMP).
      const bool listed = e ? static_cast<bool>((*e)["next_hops"]) : ecmp;
      const std::string h = listed ? f + ".next_hops[" + std::to_string(k) + "]" : f;
      const YAML::Node he = e ? (listed ? (*e)["next_hops"][k] : *e) : YAML::Node();
      if (nh.port >= c_->ports.size())
        rd_.Fail(he["port"], h + ".port",
                 "a port name from 'ports' or an index 0.." + std::to_string(c_->ports.size() - 1));
      if (nh.gateway != 0) {
        // The gateway is resolved by ARP on that port, so it must be on its link.
        const PortConfig& p = c_->ports[nh.port];
        const uint32_t m = PrefixMask(p.prefix_len);
        if (p.has_ipv4 && (nh.gateway & m) != (p.ipv4 & m))
          rd_.Fail(he["via"], h + ".via",
                   "a gateway inside port " + p.name + "'s subnet " +
                       PrefixText(p.ipv4 & m, p.prefix_len));
      }
      if (!distinct.emplace(nh.port, nh.gateway).second)
        rd_.Fail(he, h, "a next hop (port, via) not already in this route's next_hops");
    }
    const size_t i = c_->routes.size();
    const auto [prev, fresh] = seen_.emplace((static_cast<uint64_t>(s.prefix) << 8) | s.len, i);
    if (!fresh)
      rd_.Fail(
          at("prefix"), f + ".prefix",
          "a prefix not already routed (routes[" + std::to_string(prev->second) + "] routes it)");
    tables::RouteTable::Route r{};
    r.prefix = s.prefix;
    r.len = s.len;
    r.nh = ecmp ? next_hops_.AddGroup(s.next_hops) : next_hops_.Add(s.next_hops[0]);
    if (r.nh == tables::RouteTable::kMaxNextHops)
      rd_.Fail(e ? *e : YAML::Node(), f,
               "at most " + std::to_string(tables::RouteTable::kMaxNextHops) +
                   " distinct next hops (port, via) over all routes");
    c_->routes.push_back(r);
  }

 private:
  const config::Reader& rd_;
  SwitchConfig* c_;
  NextHopIndex next_hops_;
  // (prefix, length) -> index in `routes`, so a duplicate is found without a
  // quadratic scan over 100,000 routes. Routes are added to an empty route
  // list (LoadConfig and a reload both start from none).
  std::unordered_map<uint64_t, size_t> seen_;
};

void CheckNeighbor(const config::Reader& rd, const YAML::Node* e, const std::string& f,
                   const SwitchConfig& c, const NeighborConfig& nb) {
  auto at = [e](const char* key) { return e ? (*e)[key] : YAML::Node(); };
  if (nb.ip == 0) rd.Fail(at("ip"), f + ".ip", "an IPv4 address");
  if (nb.mac[0] & 1) rd.Fail(at("mac"), f + ".mac", "a unicast MAC address");
  if (nb.port >= c.ports.size())
    rd.Fail(at("port"), f + ".port",
            "a port name from 'ports' or an index 0.." + std::to_string(c.ports.size() - 1));
}

}  // namespace

void ParseRoutes(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.RequireSeq(n, "routes");
  RouteChecker check(rd, c);
  for (size_t i = 0; i < n.size(); i++) {
    const YAML::Node& e = n[i];
    const std::string f = "routes[" + std::to_string(i) + "]";
    rd.CheckKeys(e, f, {"prefix", "port", "via", "next_hops"});
    RouteSpec s{};
    const YAML::Node prefix = rd.Need(e, "prefix", f + ".prefix", "a network like 10.0.9.0/24");
    if (!ParsePrefix(rd.Str(prefix, f + ".prefix"), &s.prefix, &s.len))
      rd.Fail(e["prefix"], f + ".prefix", "a network like 10.0.9.0/24 with no host bits set");
    // One next hop ({port, via}), or several ({next_hops: [{port, via}, ...]}).
    auto hop = [&](const YAML::Node& h, const std::string& hf) {
      tables::NextHop nh{};
      nh.port =
          PortRef(rd, rd.Need(h, "port", hf + ".port", "a port name or index"), hf + ".port", *c);
      if (h["via"] && (!ParseIpv4(rd.Str(h["via"], hf + ".via"), &nh.gateway) || nh.gateway == 0))
        rd.Fail(h["via"], hf + ".via", "the next hop's IPv4 address");
      s.next_hops.push_back(nh);
    };
    if (e["next_hops"]) {
      if (e["port"] || e["via"])
        rd.Fail(e["port"] ? e["port"] : e["via"], f,
                "either port (and via) or next_hops, not both");
      const YAML::Node& hs = e["next_hops"];
      if (!hs.IsSequence() || hs.size() == 0 || hs.size() > tables::kMaxEcmpNextHops)
        rd.Fail(hs, f + ".next_hops",
                "a list of 1.." + std::to_string(tables::kMaxEcmpNextHops) + " {port, via} maps");
      for (size_t k = 0; k < hs.size(); ++k) {
        const std::string hf = f + ".next_hops[" + std::to_string(k) + "]";
        if (!hs[k].IsMap()) rd.Fail(hs[k], hf, "a map {port, via}");
        rd.CheckKeys(hs[k], hf, {"port", "via"});
        hop(hs[k], hf);
      }
    } else {
      hop(e, f);
    }
    check.Add(&e, f, s);
  }
}

void ParseNeighbors(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.RequireSeq(n, "neighbors");
  for (size_t i = 0; i < n.size(); i++) {
    const YAML::Node& e = n[i];
    const std::string f = "neighbors[" + std::to_string(i) + "]";
    rd.CheckKeys(e, f, {"ip", "mac", "port"});
    NeighborConfig nb{};
    if (!ParseIpv4(rd.Str(rd.Need(e, "ip", f + ".ip", "an IPv4 address"), f + ".ip"), &nb.ip))
      rd.Fail(e["ip"], f + ".ip", "an IPv4 address");
    if (!ParseMac(rd.Str(rd.Need(e, "mac", f + ".mac", "a unicast MAC address"), f + ".mac"),
                  &nb.mac))
      rd.Fail(e["mac"], f + ".mac", "a unicast MAC address");
    nb.port = PortRef(rd, rd.Need(e, "port", f + ".port", "a port name or index"), f + ".port", *c);
    CheckNeighbor(rd, &e, f, *c, nb);
    c->neighbors.push_back(nb);
  }
}

void AddTables(const config::Reader& rd, const GeneratedTables& t, SwitchConfig* c) {
  RouteChecker check(rd, c);
  for (size_t i = 0; i < t.routes.size(); i++)
    check.Add(nullptr, "routes[" + std::to_string(i) + "]", t.routes[i]);
  for (size_t i = 0; i < t.neighbors.size(); i++) {
    CheckNeighbor(rd, nullptr, "neighbors[" + std::to_string(i) + "]", *c, t.neighbors[i]);
    c->neighbors.push_back(t.neighbors[i]);
  }
}

void ParseL2(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.RequireSeq(n, "l2_table");
  for (size_t i = 0; i < n.size(); i++) {
    const YAML::Node& e = n[i];
    const std::string f = "l2_table[" + std::to_string(i) + "]";
    rd.CheckKeys(e, f, {"mac", "port"});
    L2Entry l{};
    if (!ParseMac(rd.Str(rd.Need(e, "mac", f + ".mac", "a unicast MAC address"), f + ".mac"),
                  &l.mac) ||
        (l.mac[0] & 1))
      rd.Fail(e["mac"], f + ".mac", "a unicast MAC address");
    l.port = PortRef(rd, rd.Need(e, "port", f + ".port", "a port name or index"), f + ".port", *c);
    for (const auto& o : c->l2_table)
      if (o.mac == l.mac) rd.Fail(e["mac"], f + ".mac", "a MAC not already in l2_table");
    c->l2_table.push_back(l);
  }
}

}  // namespace pfc::config::sections
