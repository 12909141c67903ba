// SPDX-License-Identifier: BSD-3-Clause
// What Verify() (verify.cc) and its ELP walkers (verify_walk.cc) share:
// every node's rules expanded to lossless transitions per ingress port, and
// one step of a packet through them. Internal to the verifier.
#pragma once
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ctrl/tagger/elp.h"
#include "ctrl/tagger/progress.h"
#include "ctrl/tagger/topology.h"

namespace pfc::tagger::verify_detail {

inline uint64_t Bit(uint32_t i) { return uint64_t{1} << i; }

// A lossless transition at an ingress port: tag -> new tag y toward the
// local ports in outs; `used` marks those an ELP walk took.
struct VEntry {
  uint8_t tag, y;
  uint64_t outs;
  uint64_t used;
};

inline std::string PortDesc(const Topology& t, uint32_t g) {
  return t.node(t.port_node(g)).name + "[port " + std::to_string(t.local(g)) + " from " +
         t.node(t.neighbor(g)).name + "]";
}

// Collects up to 3 examples per kind of problem, thread-safely.
class Examples {
 public:
  void Add(const std::string& kind, const std::string& s) {
    std::lock_guard<std::mutex> lk(mu_);
    auto& v = ex_[kind];
    if (v.size() < 3) v.push_back(s);
  }
  std::string Get(const std::string& kind) const {
    auto it = ex_.find(kind);
    if (it == ex_.end()) return "";
    std::string s;
    for (const auto& e : it->second) s += "\n    e.g. " + e;
    return s;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<std::string>> ex_;
};

// The expanded rules and the walks' tallies. Step() may run on many threads
// (it marks `used` atomically and counts atomically).
struct Transitions {
  Transitions(const Topology& topo, Examples& examples) : t(topo), ex(examples) {}
  const Topology& t;
  Examples& ex;
  std::vector<std::vector<VEntry>> ent;  // per global ingress port
  std::atomic<uint64_t> states{0}, failures{0};
  static constexpr uint64_t kGone = ~uint64_t{0};
  // Moves a packet (g, tg) out of local port o; returns the next state
  // (next ingress port << 8 | new tag), or kGone for delivered (to a host)
  // or lost (no lossless transition: counted, an example kept).
  uint64_t Step(uint32_t g, uint8_t tg, uint32_t o, const std::string& what);
};

// The ELP's explicit paths, every host of a path's source.
void WalkPaths(Transitions& tr, const Elp& elp, Progress* prog, std::atomic<uint64_t>* walked);
// The ELP as destination trees: every source host toward each destination.
void WalkTrees(Transitions& tr, const Elp& elp, const DestTrees& trees, Progress* prog,
               std::atomic<uint64_t>* walked);
// The implicit Clos ELP (elp.h ClosSpec) as a dynamic program over
// (ingress port, tag, bounces) states. False with *err when the topology
// is not a Clos the walks understand.
bool WalkClos(Transitions& tr, const Elp& elp, Progress* prog, std::string* err);

}  // namespace pfc::tagger::verify_detail
