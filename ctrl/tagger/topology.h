// SPDX-License-Identifier: BSD-3-Clause
// Topology model of the Tagger rule generator: nodes (switches and hosts),
// their ports and the point-to-point links between them (Tagger §IV-A, §V).
//
// A node's port i is the i-th link that touches the node, in the order the
// links were added (or listed in the file). That order is the 0-based port
// index the per-switch rules files use, so it must be stable: nothing reorders
// ports after Finalize(). Every port also has a global id (node.first_port + i)
// so that the tagged-graph node (A_i, tag) is simply (global port, tag).
//
// Hosts are path end points; a host marked `relay` also forwards (BCube
// servers) and then gets rules like a switch. `layer` is only used by the Clos
// bounce scheme and up-down/bounce path generators (hosts 0, ToR 1, ...).
//
// Built once by the control program (single thread), read-only afterwards and
// shared by the parallel (TBB) phases of the generator and the verifier.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pfc::tagger {

inline constexpr int kMaxNodePorts = 64;  // port sets are one 64-bit mask (§VII-C)
inline constexpr uint32_t kNoNode = 0xffffffffu;

enum class NodeKind : uint8_t { kSwitch, kHost };

struct Node {
  std::string name;
  NodeKind kind = NodeKind::kSwitch;
  bool relay = false;  // hosts only: forwards packets (BCube servers)
  int layer = -1;      // Clos layer; -1 = unknown
  uint32_t first_port = 0;
  uint16_t num_ports = 0;
};

class Topology {
 public:
  // Building. Names must be unique; links are checked in Finalize().
  uint32_t AddNode(std::string name, NodeKind kind, int layer = -1, bool relay = false);
  void AddLink(uint32_t a, uint32_t b) { pending_.push_back({a, b}); }
  // Assigns ports. Returns false with *err on a self link, a parallel link,
  // a node with more than kMaxNodePorts ports, or a dangling node id.
  bool Finalize(std::string* err);

  // Queries (after Finalize).
  uint32_t num_nodes() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t num_ports() const { return static_cast<uint32_t>(port_node_.size()); }
  uint32_t num_links() const { return num_ports() / 2; }
  const Node& node(uint32_t n) const { return nodes_[n]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  uint32_t port_node(uint32_t g) const { return port_node_[g]; }
  uint32_t peer(uint32_t g) const { return peer_[g]; }  // global port at the other end
  uint32_t neighbor(uint32_t g) const { return port_node_[peer_[g]]; }
  uint32_t gport(uint32_t n, uint32_t local) const { return nodes_[n].first_port + local; }
  uint32_t local(uint32_t g) const { return g - nodes_[port_node_[g]].first_port; }
  bool is_switch(uint32_t n) const { return nodes_[n].kind == NodeKind::kSwitch; }
  bool forwards(uint32_t n) const { return is_switch(n) || nodes_[n].relay; }
  // Local port of a toward neighbour b, or -1.
  int PortTo(uint32_t a, uint32_t b) const;
  uint32_t Find(const std::string& name) const;  // kNoNode when absent
  // Ports of switch n that face non-relay hosts (bit = local port).
  uint64_t host_mask(uint32_t n) const { return host_mask_[n]; }
  bool has_hosts(uint32_t n) const { return host_mask_[n] != 0; }
  bool has_relays() const { return has_relays_; }
  std::vector<uint32_t> Switches() const;
  // Links in the order they were added: global port of the first end.
  const std::vector<uint32_t>& link_order() const { return link_order_; }

 private:
  std::vector<Node> nodes_;
  std::unordered_map<std::string, uint32_t> by_name_;
  std::vector<std::pair<uint32_t, uint32_t>> pending_;
  std::vector<uint32_t> port_node_, peer_, link_order_;
  std::vector<uint64_t> host_mask_;
  bool has_relays_ = false;
};

// File format (JSON):
//   { "nodes": [ {"name": "s0", "kind": "switch", "layer": 1},
//                {"name": "h0", "kind": "host", "relay": false} ],
//     "links": [ ["s0", "h0"], ["s0", "s1"] ] }
// Port order of a node = order of its links in "links". Errors name the file,
// the field (e.g. links[3][1]) and what was expected.
bool LoadTopology(const std::string& path, Topology* t, std::string* err);
bool ParseTopologyJson(const std::string& text, const std::string& file, Topology* t,
                       std::string* err);
bool SaveTopology(const Topology& t, const std::string& path, std::string* err);

}  // namespace pfc::tagger
