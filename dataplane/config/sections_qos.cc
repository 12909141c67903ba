// SPDX-License-Identifier: BSD-3-Clause
// Sections: qos (tag map), pfc, buffer, rewrite; and the cross-section checks.
#include <set>

#include "dataplane/config/sections.h"
#include "dataplane/pause/headroom.h"

namespace pfc::config::sections {

void ParseQos(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  tables::TagMap& t = c->tag_map;
  t = tables::TagMap{};
  if (!n) return;  // no qos: every packet is lossy (documented)
  rd.CheckKeys(n, "qos", {"tag_map", "lossless", "lossy_priority", "lossy_tag"});
  if (n["lossy_priority"]) t.lossy_prio = rd.Int(n["lossy_priority"], "qos.lossy_priority", 0, 7);
  if (n["lossy_tag"]) t.lossy_tag = rd.Int(n["lossy_tag"], "qos.lossy_tag", 0, 63);
  t.prio_of.fill(t.lossy_prio);
  t.mapped.fill(false);
  if (n["tag_map"]) {
    const YAML::Node& m = n["tag_map"];
    rd.RequireMap(m, "qos.tag_map");
    for (const auto& kv : m) {
      int tag = rd.Int(kv.first, "qos.tag_map (key)", 0, 63);
      const std::string f = "qos.tag_map[" + std::to_string(tag) + "]";
      // Distinct texts can be the same number (24, 0x18).
      if (t.mapped[tag]) rd.Fail(kv.first, "qos.tag_map (key)", "a tag not already mapped");
      t.prio_of[tag] = rd.Int(kv.second, f, 0, 7);
      t.mapped[tag] = true;
    }
  }
  if (n["lossless"]) {
    const YAML::Node& l = n["lossless"];
    if (!l.IsSequence()) rd.Fail(l, "qos.lossless", "a list of priorities 0..7");
    for (size_t i = 0; i < l.size(); i++)
      t.lossless_mask |= 1u << rd.Int(l[i], "qos.lossless[" + std::to_string(i) + "]", 0, 7);
  }
  if (t.IsLossless(t.lossy_prio))
    rd.Fail(n["lossy_priority"], "qos.lossy_priority", "a priority that is not in qos.lossless");
  if (t.mapped[t.lossy_tag] && t.IsLossless(t.prio_of[t.lossy_tag]))
    rd.Fail(n["lossy_tag"], "qos.lossy_tag", "a tag that does not map to a lossless priority");
}

void ParsePfc(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.CheckKeys(n, "pfc",
               {"pause_quanta", "refresh_fraction", "honor_8023x", "response_ns", "decide"});
  if (n["pause_quanta"])
    c->pfc.pause_quanta = rd.Int(n["pause_quanta"], "pfc.pause_quanta", 1, 0xffff);
  if (n["refresh_fraction"])
    c->pfc.refresh_fraction = rd.Real(n["refresh_fraction"], "pfc.refresh_fraction", 0.05, 0.95);
  if (n["honor_8023x"]) c->pfc.honor_pause_8023x = rd.Bool(n["honor_8023x"], "pfc.honor_8023x");
  if (n["response_ns"])
    c->pfc.response_ns = rd.Int(n["response_ns"], "pfc.response_ns", 0, 100'000'000);
  if (n["decide"]) {
    const std::string d = rd.Str(n["decide"], "pfc.decide");
    if (d != "poll" && d != "on_change")
      rd.Fail(n["decide"], "pfc.decide",
              "poll (every look against the current thresholds) or on_change (only when the "
              "group's own bytes move: a rise may pause, a fall may resume)");
    c->pfc.decide_on_change = d == "on_change";
  }
}

namespace {

// Buffer settings of one class (lossy / lossless) or one priority override.
struct ClassSpec {
  uint64_t reserved = 0;
  bool dynamic = true;  // limit (lossy) or xoff (lossless)
  uint64_t static_bytes = 0;
  double alpha = 1.0;
  bool headroom_auto = true;
  uint64_t headroom = 0;
  double small_packets = 1.0;  // share of the headroom window in worst-case frames
  bool hyst_auto = true;
  uint64_t hysteresis = 0;
};

void ParseClass(const config::Reader& rd, const YAML::Node& n, const std::string& f, bool lossless,
                uint64_t total, ClassSpec* s) {
  if (lossless)
    rd.CheckKeys(n, f,
                 {"reserved", "xoff", "alpha", "headroom", "small_packets", "xon_hysteresis"});
  else
    rd.CheckKeys(n, f, {"reserved", "limit", "alpha"});
  if (n["reserved"]) s->reserved = rd.Bytes(n["reserved"], f + ".reserved", 0, total);
  const char* lim = lossless ? "xoff" : "limit";
  if (n[lim]) {
    if (n[lim].IsScalar() && n[lim].Scalar() == "dynamic") {
      s->dynamic = true;
    } else {
      s->dynamic = false;
      s->static_bytes = rd.Bytes(n[lim], f + "." + lim, 64, total);
    }
  }
  if (n["alpha"]) s->alpha = rd.Real(n["alpha"], f + ".alpha", 1.0 / 128, 64);
  if (lossless && n["headroom"]) {
    if (n["headroom"].IsScalar() && n["headroom"].Scalar() == "auto") {
      s->headroom_auto = true;
    } else {
      s->headroom_auto = false;
      s->headroom = rd.Bytes(n["headroom"], f + ".headroom", 64, total);
    }
  }
  if (lossless && n["small_packets"])
    s->small_packets = rd.Real(n["small_packets"], f + ".small_packets", 0, 100) / 100;
  if (lossless && n["xon_hysteresis"]) {
    s->hyst_auto = false;
    s->hysteresis = rd.Bytes(n["xon_hysteresis"], f + ".xon_hysteresis", 0, total);
  }
}

}  // namespace

void ParseBuffer(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  uint64_t total = 4 << 20;
  ClassSpec lossy, lossless;
  lossless.reserved = 16 << 10;
  lossless.alpha = 0.5;
  std::array<std::pair<bool, ClassSpec>, kNumPrio> per_prio{};
  std::vector<std::pair<uint64_t, ClassSpec>> by_speed;
  if (n) {
    rd.CheckKeys(
        n, "buffer",
        {"total_bytes", "cell_bytes", "lossy", "lossless", "lossless_by_speed", "priorities"});
    if (n["total_bytes"])
      total = rd.Bytes(n["total_bytes"], "buffer.total_bytes", 64 << 10, 1ull << 31);
    if (n["cell_bytes"]) c->cell_bytes = rd.Int(n["cell_bytes"], "buffer.cell_bytes", 1, 1024);
    if (n["lossy"]) ParseClass(rd, n["lossy"], "buffer.lossy", false, total, &lossy);
    if (n["lossless"]) ParseClass(rd, n["lossless"], "buffer.lossless", true, total, &lossless);
    // Per port speed, what differs from buffer.lossless (SONiC derives a
    // port's lossless profile from its speed and cable: a faster port may
    // take a larger share of the free buffer, alpha).
    if (n["lossless_by_speed"]) {
      rd.RequireMap(n["lossless_by_speed"], "buffer.lossless_by_speed");
      for (const auto& kv : n["lossless_by_speed"]) {
        const std::string f = "buffer.lossless_by_speed." + kv.first.Scalar();
        const uint64_t bps = PortSpeed(rd, kv.first, f);
        for (const auto& [other, _] : by_speed)
          if (other == bps) rd.Fail(kv.first, f, "a speed not already given");
        ClassSpec s = lossless;
        ParseClass(rd, kv.second, f, true, total, &s);
        by_speed.emplace_back(bps, s);
      }
    }
    if (n["priorities"]) {
      rd.RequireMap(n["priorities"], "buffer.priorities");
      for (const auto& kv : n["priorities"]) {
        int p = rd.Int(kv.first, "buffer.priorities (key)", 0, 7);
        if (per_prio[p].first)
          rd.Fail(kv.first, "buffer.priorities (key)", "a priority not already given");
        bool ll = c->tag_map.IsLossless(p);
        ClassSpec s = ll ? lossless : lossy;
        ParseClass(rd, kv.second, "buffer.priorities[" + std::to_string(p) + "]", ll, total, &s);
        per_prio[p] = {true, s};
      }
    }
  }
  buffer::BufferConfig& b = c->buffer;
  b.total_bytes = total;
  b.num_ports = static_cast<uint16_t>(c->ports.size());
  for (size_t port = 0; port < c->ports.size(); port++) {
    const PortConfig& pc = c->ports[port];
    const uint8_t port_ll = PortPfcMask(*c, pc);
    for (int prio = 0; prio < kNumPrio; prio++) {
      // A lossless priority the port does not enable (ports[].pfc_enable) is
      // lossy there: its group takes buffer.lossy's settings, as SONiC gives
      // such a port's group the lossy profile, and reserves no headroom.
      const bool ll = (port_ll >> prio) & 1;
      const bool override_fits = per_prio[prio].first && ll == c->tag_map.IsLossless(prio);
      const ClassSpec* cls = ll ? &lossless : &lossy;
      if (ll)
        for (const auto& [bps, sp] : by_speed)
          if (bps == pc.speed_bps) cls = &sp;
      const ClassSpec& s = override_fits ? per_prio[prio].second : *cls;
      buffer::PgConfig& g = b.pg[port][prio];
      g.lossless = ll;
      g.reserved = static_cast<uint32_t>(s.reserved);
      g.static_limit = s.dynamic ? 0 : static_cast<uint32_t>(s.static_bytes);
      g.alpha = s.alpha;
      if (ll) {
        g.headroom = static_cast<uint32_t>(s.headroom);
        if (s.headroom_auto) {
          // The peer sends into this port at the link speed; our own egress
          // shaper does not bound what arrives.
          pause::HeadroomParams hp;
          hp.port_bps = pc.speed_bps;
          hp.cable_m = pc.cable_m;
          hp.mtu_bytes = pc.mtu + 18;
          hp.response_ns = c->pfc.response_ns;
          hp.cell_bytes = c->cell_bytes;
          hp.small_packet_share = s.small_packets;
          pause::HeadroomBreakdown hb;
          std::string err;
          if (!pause::ComputeHeadroom(hp, &hb, &err))
            throw config::ConfigError(rd.file() + ": ports." + pc.name + ": headroom: " + err);
          g.headroom = static_cast<uint32_t>(hb.total_bytes);
        }
        g.xon_hysteresis = s.hyst_auto ? 2 * (pc.mtu + 18) : static_cast<uint32_t>(s.hysteresis);
      }
    }
  }
}

namespace {

// A rule's tag is never implied: "any tag" would turn lossy packets
// lossless (Tagger's rules list their tags), so it must be written "*".
constexpr const char* kTagExpected = "a tag 0..63, a list of tags, or \"*\" for any tag";

TagMask TagSet(const config::Reader& rd, const YAML::Node& n, const std::string& f) {
  if (n.IsScalar() && n.Scalar() == "*") return kAnyTag;
  if (n.IsScalar()) return TagMask{1} << rd.Int(n, f, 0, 63);
  if (!n.IsSequence() || n.size() == 0) rd.Fail(n, f, kTagExpected);
  TagMask m = 0;
  for (size_t i = 0; i < n.size(); i++)
    m |= TagMask{1} << rd.Int(n[i], f + "[" + std::to_string(i) + "]", 0, 63);
  return m;
}

PortMask PortSet(const config::Reader& rd, const YAML::Node& n, const std::string& f,
                 const SwitchConfig& c) {
  if (n.IsScalar() && n.Scalar() == "*") return kAnyPort;
  if (n.IsScalar()) return PortMask{1} << PortRef(rd, n, f, c);
  if (!n.IsSequence() || n.size() == 0) rd.Fail(n, f, "a port, a list of ports, or \"*\"");
  PortMask m = 0;
  for (size_t i = 0; i < n.size(); i++)
    m |= PortMask{1} << PortRef(rd, n[i], f + "[" + std::to_string(i) + "]", c);
  return m;
}

}  // namespace

void ParseRewrite(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  tables::RewriteConfig& r = c->rewrite;
  r = tables::RewriteConfig{};
  // Without a rewrite section there are no Tagger rules: tags pass unchanged.
  if (!n) {
    r.unmatched_keeps_tag = true;
    return;
  }
  rd.CheckKeys(n, "rewrite", {"unmatched", "rules"});
  if (n["unmatched"]) {
    std::string u = rd.Str(n["unmatched"], "rewrite.unmatched");
    if (u == "keep")
      r.unmatched_keeps_tag = true;
    else if (u != "lossy")
      rd.Fail(n["unmatched"], "rewrite.unmatched", "lossy or keep");
  }
  if (!n["rules"]) return;
  rd.RequireSeq(n["rules"], "rewrite.rules");
  const YAML::Node& rules = n["rules"];
  for (size_t i = 0; i < rules.size(); i++) {
    const YAML::Node& e = rules[i];
    const std::string f = "rewrite.rules[" + std::to_string(i) + "]";
    rd.CheckKeys(e, f, {"tag", "in", "out", "new_tag", "priority"});
    tables::RewriteRule rule;
    rule.tags = TagSet(rd, rd.Need(e, "tag", f + ".tag", kTagExpected), f + ".tag");
    rule.in_ports = e["in"] ? PortSet(rd, e["in"], f + ".in", *c) : kAnyPort;
    rule.out_ports = e["out"] ? PortSet(rd, e["out"], f + ".out", *c) : kAnyPort;
    rule.new_tag = rd.Int(rd.Need(e, "new_tag", f + ".new_tag", "the tag 0..63 to write"),
                          f + ".new_tag", 0, 63);
    if (e["priority"]) rule.priority = rd.Int(e["priority"], f + ".priority", -1000000, 1000000);
    r.rules.push_back(rule);
  }
}

void ValidateRewrite(const config::Reader& rd, SwitchConfig* c) {
  c->rewrite.num_ports = static_cast<uint16_t>(c->ports.size());
  c->rewrite.default_tag = c->tag_map.lossy_tag;
  tables::RewriteTable rt;
  std::string err;
  if (!rt.Compile(c->rewrite, &err)) throw config::ConfigError(rd.file() + ": rewrite: " + err);
}

void Validate(const config::Reader& rd, SwitchConfig* c) {
  const std::string& f = rd.file();
  if (c->mode == SwitchConfig::Mode::kL3) {
    // ParsePorts made every port have an address in l3 mode and checked that
    // the subnets do not overlap; ParseRoutes kept each `via` on its port's
    // link. Connected subnets route to their port unless a route says otherwise.
    NextHopIndex next_hops(c);
    for (size_t i = 0; i < c->ports.size(); i++) {
      const auto& p = c->ports[i];
      uint32_t mask = p.prefix_len ? 0xffffffffu << (32 - p.prefix_len) : 0;
      bool have = false;
      for (const auto& r : c->routes)
        have |= (r.prefix == (p.ipv4 & mask) && r.len == p.prefix_len);
      if (have) continue;
      const uint16_t nh = next_hops.Add({static_cast<PortId>(i), 0});
      if (nh == tables::RouteTable::kMaxNextHops)
        throw config::ConfigError(
            f + ": routes: port " + p.name + "'s connected subnet needs a next hop, but " +
            "the routes already use all " + std::to_string(tables::RouteTable::kMaxNextHops));
      c->routes.push_back({p.ipv4 & mask, p.prefix_len, nh});
    }
  }
  std::string err;
  // The runtime configures a PFC generator per port with these settings;
  // refuse here what it would refuse at start (a refresh more often than 1 us).
  for (const auto& p : c->ports) {
    pause::PfcGenerator gen;
    if (!gen.Configure(PfcGenFor(*c, p), &err))
      throw config::ConfigError(f + ": pfc.pause_quanta and pfc.refresh_fraction at port " +
                                p.name + "'s speed: " + err);
  }
  buffer::BufferAccountant probe;
  if (!probe.Configure(c->buffer, &err)) throw config::ConfigError(f + ": buffer: " + err);
  ValidateRewrite(rd, c);
  // Build's checks, not the 32 MiB table: the runtime builds it once (Tables).
  if (!tables::RouteTable::Check(c->routes, c->next_hops, &err))
    throw config::ConfigError(f + ": routes: " + err);
}

}  // namespace pfc::config::sections
