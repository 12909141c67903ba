// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/topology.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ctrl/tagger/json_util.h"
#include "dataplane/config/config.h"

namespace pfc::tagger {

uint32_t Topology::AddNode(std::string name, NodeKind kind, int layer, bool relay) {
  const auto id = static_cast<uint32_t>(nodes_.size());
  by_name_.emplace(name, id);
  Node n;
  n.name = std::move(name);
  n.kind = kind;
  n.layer = layer;
  n.relay = kind == NodeKind::kHost && relay;
  nodes_.push_back(std::move(n));
  return id;
}

bool Topology::Finalize(std::string* err) {
  const uint32_t nn = num_nodes();
  if (by_name_.size() != nn) {
    *err = "node names must be unique";
    return false;
  }
  std::vector<uint32_t> deg(nn, 0);
  for (const auto& [a, b] : pending_) {
    if (a >= nn || b >= nn) {
      *err = "link refers to a node id that does not exist";
      return false;
    }
    if (a == b) {
      *err = "self link on node '" + nodes_[a].name + "'";
      return false;
    }
    ++deg[a];
    ++deg[b];
  }
  uint32_t total = 0;
  for (uint32_t n = 0; n < nn; ++n) {
    if (deg[n] > kMaxNodePorts) {
      *err = "node '" + nodes_[n].name + "' has " + std::to_string(deg[n]) + " ports; at most " +
             std::to_string(kMaxNodePorts) + " are supported";
      return false;
    }
    nodes_[n].first_port = total;
    nodes_[n].num_ports = 0;
    total += deg[n];
  }
  link_order_.clear();
  port_node_.assign(total, 0);
  peer_.assign(total, 0);
  for (const auto& [a, b] : pending_) {
    const uint32_t ga = nodes_[a].first_port + nodes_[a].num_ports++;
    const uint32_t gb = nodes_[b].first_port + nodes_[b].num_ports++;
    link_order_.push_back(ga);
    port_node_[ga] = a;
    port_node_[gb] = b;
    peer_[ga] = gb;
    peer_[gb] = ga;
  }
  pending_.clear();
  pending_.shrink_to_fit();
  // Parallel links would make a path given as a node list ambiguous.
  for (uint32_t n = 0; n < nn; ++n) {
    std::vector<uint32_t> nb;
    for (uint32_t i = 0; i < nodes_[n].num_ports; ++i) nb.push_back(neighbor(gport(n, i)));
    std::sort(nb.begin(), nb.end());
    auto dup = std::adjacent_find(nb.begin(), nb.end());
    if (dup != nb.end()) {
      *err = "parallel links between '" + nodes_[n].name + "' and '" + nodes_[*dup].name +
             "' are not supported";
      return false;
    }
  }
  host_mask_.assign(nn, 0);
  has_relays_ = false;
  for (uint32_t n = 0; n < nn; ++n) {
    if (nodes_[n].relay) has_relays_ = true;
    for (uint32_t i = 0; i < nodes_[n].num_ports; ++i) {
      const uint32_t m = neighbor(gport(n, i));
      if (nodes_[m].kind == NodeKind::kHost && !nodes_[m].relay) host_mask_[n] |= uint64_t{1} << i;
    }
  }
  return true;
}

int Topology::PortTo(uint32_t a, uint32_t b) const {
  const Node& n = nodes_[a];
  for (uint32_t i = 0; i < n.num_ports; ++i)
    if (port_node_[peer_[n.first_port + i]] == b) return static_cast<int>(i);
  return -1;
}

uint32_t Topology::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? kNoNode : it->second;
}

std::vector<uint32_t> Topology::Switches() const {
  std::vector<uint32_t> out;
  for (uint32_t n = 0; n < num_nodes(); ++n)
    if (is_switch(n)) out.push_back(n);
  return out;
}

bool ParseTopologyJson(const std::string& text, const std::string& file, Topology* t,
                       std::string* err) {
  using nlohmann::json;
  json j;
  if (!ParseJsonText(text, file, &j, err)) return false;
  auto fail = [&](const std::string& field, const std::string& what) {
    *err = file + ": " + field + ": " + what;
    return false;
  };
  if (!j.is_object()) return fail("(top level)", "expected an object with 'nodes' and 'links'");
  if (!j.contains("nodes") || !j["nodes"].is_array())
    return fail("nodes", "expected an array of {name, kind}");
  if (!j.contains("links") || !j["links"].is_array())
    return fail("links", "expected an array of [node, node] pairs");
  *t = Topology();
  const auto& nodes = j["nodes"];
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string f = "nodes[" + std::to_string(i) + "]";
    const auto& n = nodes[i];
    if (!n.is_object()) return fail(f, "expected an object");
    if (!n.contains("name") || !n["name"].is_string() || n["name"].get<std::string>().empty())
      return fail(f + ".name", "expected a non-empty string");
    const std::string name = n["name"];
    if (t->Find(name) != kNoNode) return fail(f + ".name", "duplicate node name '" + name + "'");
    NodeKind kind = NodeKind::kSwitch;
    if (n.contains("kind")) {
      if (!n["kind"].is_string()) return fail(f + ".kind", "expected \"switch\" or \"host\"");
      const std::string k = n["kind"];
      if (k == "host")
        kind = NodeKind::kHost;
      else if (k != "switch")
        return fail(f + ".kind", "expected \"switch\" or \"host\", got '" + k + "'");
    }
    int layer = -1;
    if (n.contains("layer")) {
      if (!n["layer"].is_number_integer() || n["layer"].get<int>() < 0 ||
          n["layer"].get<int>() > 15)
        return fail(f + ".layer", "expected an integer 0..15");
      layer = n["layer"];
    }
    bool relay = false;
    if (n.contains("relay")) {
      if (!n["relay"].is_boolean()) return fail(f + ".relay", "expected true or false");
      relay = n["relay"];
      if (relay && kind != NodeKind::kHost) return fail(f + ".relay", "only hosts can be relays");
    }
    t->AddNode(name, kind, layer, relay);
  }
  const auto& links = j["links"];
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  for (size_t i = 0; i < links.size(); ++i) {
    const std::string f = "links[" + std::to_string(i) + "]";
    const auto& l = links[i];
    if (!l.is_array() || l.size() != 2) return fail(f, "expected a pair [node, node]");
    uint32_t ends[2];
    for (int k = 0; k < 2; ++k) {
      const std::string fk = f + "[" + std::to_string(k) + "]";
      if (!l[k].is_string()) return fail(fk, "expected a node name");
      ends[k] = t->Find(l[k].get<std::string>());
      if (ends[k] == kNoNode) return fail(fk, "unknown node '" + l[k].get<std::string>() + "'");
    }
    if (ends[0] == ends[1]) return fail(f, "a link must join two different nodes");
    t->AddLink(ends[0], ends[1]);
  }
  std::string ferr;
  if (!t->Finalize(&ferr)) return fail("links", ferr);
  return true;
}

bool LoadTopology(const std::string& path, Topology* t, std::string* err) {
  // A directory opens as a stream that reads nothing: it must not be
  // reported as an empty (invalid JSON) file.
  std::string text;
  if (!pfc::config::ReadRegularFile(path, &text)) {
    *err = pfc::config::CannotOpen(path, "topology file");
    return false;
  }
  return ParseTopologyJson(text, path, t, err);
}

bool SaveTopology(const Topology& t, const std::string& path, std::string* err) {
  std::ofstream out(path);
  if (!out) {
    *err = path + ": cannot write topology file";
    return false;
  }
  // Written by hand (one node/link per line) so big topologies stay diffable.
  out << "{\n  \"nodes\": [\n";
  for (uint32_t n = 0; n < t.num_nodes(); ++n) {
    const Node& nd = t.node(n);
    out << "    {\"name\": " << nlohmann::json(nd.name).dump() << ", \"kind\": \""
        << (nd.kind == NodeKind::kHost ? "host" : "switch") << "\"";
    if (nd.layer >= 0) out << ", \"layer\": " << nd.layer;
    if (nd.relay) out << ", \"relay\": true";
    out << "}" << (n + 1 < t.num_nodes() ? ",\n" : "\n");
  }
  out << "  ],\n  \"links\": [\n";
  bool first = true;
  for (uint32_t g : t.link_order()) {
    const uint32_t p = t.peer(g);
    if (!first) out << ",\n";
    first = false;
    out << "    [" << nlohmann::json(t.node(t.port_node(g)).name).dump() << ", "
        << nlohmann::json(t.node(t.port_node(p)).name).dump() << "]";
  }
  out << "\n  ]\n}\n";
  if (!out) {
    *err = path + ": write failed";
    return false;
  }
  return true;
}

}  // namespace pfc::tagger
