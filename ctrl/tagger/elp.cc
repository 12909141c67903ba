// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/elp.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "ctrl/tagger/json_util.h"
#include "dataplane/config/config.h"

namespace pfc::tagger {

bool ValidatePath(const Topology& t, const Path& p, size_t index, const std::string& file,
                  std::string* err) {
  const std::string f = file + ": paths[" + std::to_string(index) + "]";
  auto fail = [&](const std::string& field, const std::string& what) {
    *err = f + field + ": " + what;
    return false;
  };
  if (p.cls < 1 || p.cls > 63) return fail(".class", "expected an application class 1..63");
  const size_t n = p.nodes.size();
  if (n == 0) return fail(".nodes", "expected at least one node");
  std::unordered_set<uint32_t> seen;
  for (size_t j = 0; j < n; ++j) {
    const std::string fj = ".nodes[" + std::to_string(j) + "]";
    const uint32_t v = p.nodes[j];
    if (v >= t.num_nodes()) return fail(fj, "unknown node");
    if (!seen.insert(v).second)
      return fail(fj, "node '" + t.node(v).name + "' appears twice: paths must be loop-free");
    if (j > 0 && t.PortTo(p.nodes[j - 1], v) < 0)
      return fail(
          fj, "no link between '" + t.node(p.nodes[j - 1]).name + "' and '" + t.node(v).name + "'");
    const bool end = j == 0 || j + 1 == n;
    if (!end && !t.forwards(v))
      return fail(fj, "host '" + t.node(v).name + "' does not forward (mark it relay)");
    if (end && t.is_switch(v) && !t.has_hosts(v))
      return fail(fj, "an end point must be a host or a switch with hosts; '" + t.node(v).name +
                          "' has no hosts");
  }
  if (n == 1) {
    if (!t.is_switch(p.nodes[0]) || __builtin_popcountll(t.host_mask(p.nodes[0])) < 2)
      return fail(".nodes", "a one-node path must be a switch with at least two hosts");
  } else if (n == 2 && !t.is_switch(p.nodes[0]) && !t.is_switch(p.nodes[1])) {
    return fail(".nodes", "expected at least one forwarding node between the end hosts");
  }
  return true;
}

std::vector<Hop> PathHops(const Topology& t, const Path& p) {
  std::vector<Hop> hops;
  const size_t n = p.nodes.size();
  const bool src_sw = t.is_switch(p.nodes[0]);
  const bool dst_sw = t.is_switch(p.nodes[n - 1]);
  const size_t first = src_sw ? 0 : 1;
  const size_t last = dst_sw ? n - 1 : n - 2;
  for (size_t m = first; m <= last && m < n; ++m) {
    const uint32_t v = p.nodes[m];
    Hop h{v, -1, -1};
    if (m > 0) h.in = static_cast<int8_t>(t.PortTo(v, p.nodes[m - 1]));
    if (m + 1 < n) h.out = static_cast<int8_t>(t.PortTo(v, p.nodes[m + 1]));
    hops.push_back(h);
  }
  return hops;
}

bool ParseElpJson(const std::string& text, const std::string& file, const Topology& t, Elp* elp,
                  std::string* err) {
  using nlohmann::json;
  json j;
  if (!ParseJsonText(text, file, &j, err)) return false;
  auto fail = [&](const std::string& field, const std::string& what) {
    *err = file + ": " + field + ": " + what;
    return false;
  };
  if (!j.is_object()) return fail("(top level)", "expected an object with 'paths' and/or 'trees'");
  *elp = Elp();
  if (j.contains("trees")) {
    const auto& tr = j["trees"];
    if (!tr.is_object()) return fail("trees", "expected {\"seed\": N, \"class\": C}");
    elp->trees.enabled = true;
    if (tr.contains("seed")) {
      if (!tr["seed"].is_number_unsigned())
        return fail("trees.seed", "expected an unsigned integer");
      elp->trees.seed = tr["seed"];
    }
    if (tr.contains("class")) {
      if (!tr["class"].is_number_integer() || tr["class"] < 1 || tr["class"] > 63)
        return fail("trees.class", "expected an integer 1..63");
      elp->trees.cls = static_cast<uint8_t>(tr["class"].get<int>());
    }
    if (t.has_relays()) return fail("trees", "tree ELP needs a topology without relay hosts");
  }
  if (j.contains("paths")) {
    const auto& ps = j["paths"];
    if (!ps.is_array()) return fail("paths", "expected an array of {class, nodes}");
    elp->paths.reserve(ps.size());
    for (size_t i = 0; i < ps.size(); ++i) {
      const std::string f = "paths[" + std::to_string(i) + "]";
      const auto& pj = ps[i];
      if (!pj.is_object() || !pj.contains("nodes") || !pj["nodes"].is_array())
        return fail(f, "expected {\"class\": C, \"nodes\": [names]}");
      Path p;
      if (pj.contains("class")) {
        if (!pj["class"].is_number_integer() || pj["class"] < 1 || pj["class"] > 63)
          return fail(f + ".class", "expected an integer 1..63");
        p.cls = static_cast<uint8_t>(pj["class"].get<int>());
      }
      const auto& nj = pj["nodes"];
      for (size_t k = 0; k < nj.size(); ++k) {
        const std::string fk = f + ".nodes[" + std::to_string(k) + "]";
        if (!nj[k].is_string()) return fail(fk, "expected a node name");
        const uint32_t v = t.Find(nj[k].get<std::string>());
        if (v == kNoNode) return fail(fk, "unknown node '" + nj[k].get<std::string>() + "'");
        p.nodes.push_back(v);
      }
      if (!ValidatePath(t, p, i, file, err)) return false;
      elp->paths.push_back(std::move(p));
    }
  }
  if (elp->paths.empty() && !elp->trees.enabled)
    return fail("(top level)", "expected 'paths' and/or 'trees'; the ELP is empty");
  return true;
}

bool LoadElp(const std::string& path, const Topology& t, Elp* elp, std::string* err) {
  // A directory opens as a stream that reads nothing: it must not be
  // reported as an empty (invalid JSON) file.
  std::string text;
  if (!pfc::config::ReadRegularFile(path, &text)) {
    *err = pfc::config::CannotOpen(path, "ELP file");
    return false;
  }
  return ParseElpJson(text, path, t, elp, err);
}

bool SaveElp(const Topology& t, const Elp& elp, const std::string& path, std::string* err) {
  std::ofstream out(path);
  if (!out) {
    *err = path + ": cannot write ELP file";
    return false;
  }
  out << "{\n";
  if (elp.trees.enabled)
    out << "  \"trees\": {\"seed\": " << elp.trees.seed << ", \"class\": " << int(elp.trees.cls)
        << "},\n";
  out << "  \"paths\": [";
  for (size_t i = 0; i < elp.paths.size(); ++i) {
    out << (i ? ",\n    " : "\n    ") << "{\"class\": " << int(elp.paths[i].cls)
        << ", \"nodes\": [";
    for (size_t k = 0; k < elp.paths[i].nodes.size(); ++k)
      out << (k ? ", " : "") << nlohmann::json(t.node(elp.paths[i].nodes[k]).name).dump();
    out << "]}";
  }
  out << "\n  ]\n}\n";
  if (!out) {
    *err = path + ": write failed";
    return false;
  }
  return true;
}

void SwitchDistances(const Topology& t, const std::vector<uint32_t>& idx_of_node,
                     const std::vector<uint32_t>& switches, uint32_t d,
                     std::vector<uint8_t>* dist) {
  dist->assign(switches.size(), 0xff);
  std::vector<uint32_t> q;
  q.reserve(switches.size());
  (*dist)[d] = 0;
  q.push_back(d);
  for (size_t h = 0; h < q.size(); ++h) {
    const uint32_t a = q[h];
    const Node& na = t.node(switches[a]);
    for (uint32_t i = 0; i < na.num_ports; ++i) {
      const uint32_t nb = t.neighbor(na.first_port + i);
      if (!t.is_switch(nb)) continue;
      const uint32_t b = idx_of_node[nb];
      if ((*dist)[b] != 0xff) continue;
      (*dist)[b] = static_cast<uint8_t>(std::min(254, (*dist)[a] + 1));
      q.push_back(b);
    }
  }
}

namespace {
inline uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
}  // namespace

void DestTrees::Build(const Topology& t, uint64_t seed) {
  sw_ = t.Switches();
  idx_.assign(t.num_nodes(), kNoNode);
  for (uint32_t s = 0; s < sw_.size(); ++s) idx_[sw_[s]] = s;
  ends_.clear();
  for (uint32_t s = 0; s < sw_.size(); ++s)
    if (t.has_hosts(sw_[s])) ends_.push_back(s);
  const size_t S = sw_.size();
  // Compact switch graph (CSR): for each switch its switch neighbours and,
  // per edge, the neighbour's local port back toward it. S BFS runs over
  // this instead of the full topology keep the build memory-bound on a few
  // MB (over the full topology they would dominate a 10,000-switch build).
  std::vector<uint32_t> off(S + 1, 0), nbr;
  std::vector<uint8_t> back;
  for (uint32_t a = 0; a < S; ++a) {
    const Node& na = t.node(sw_[a]);
    for (uint32_t i = 0; i < na.num_ports; ++i) {
      const uint32_t g = na.first_port + i;
      const uint32_t nb = t.neighbor(g);
      if (!t.is_switch(nb)) continue;
      nbr.push_back(idx_[nb]);
      back.push_back(static_cast<uint8_t>(t.local(t.peer(g))));
    }
    off[a + 1] = static_cast<uint32_t>(nbr.size());
  }
  next_.assign(S * S, kNoParent);
  std::atomic<int> maxd{0};
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, static_cast<uint32_t>(S), 8),
                    [&](const tbb::blocked_range<uint32_t>& r) {
                      std::vector<uint8_t> dist(S);
                      std::vector<uint64_t> best(S);
                      std::vector<uint32_t> q(S);
                      int local_max = 0;
                      for (uint32_t d = r.begin(); d != r.end(); ++d) {
                        if (!t.has_hosts(sw_[d])) continue;  // no destination hosts, no tree
                        uint8_t* nx = &next_[size_t{d} * S];
                        std::fill(dist.begin(), dist.end(), 0xff);
                        dist[d] = 0;
                        q[0] = d;
                        size_t qn = 1;
                        // BFS; each switch one hop further picks, among all its neighbours on
                        // the previous level, the one with the smallest hash of (seed, d, b,
                        // port): a uniformly random shortest-path parent, thread independent.
                        for (size_t h = 0; h < qn; ++h) {
                          const uint32_t a = q[h];
                          const uint8_t da = dist[a];
                          for (uint32_t e = off[a]; e < off[a + 1]; ++e) {
                            const uint32_t b = nbr[e];
                            if (dist[b] == 0xff) {
                              dist[b] = static_cast<uint8_t>(std::min(254, da + 1));
                              best[b] = ~uint64_t{0};
                              q[qn++] = b;
                              local_max = std::max<int>(local_max, dist[b]);
                            }
                            if (dist[b] != da + 1) continue;
                            const uint64_t hv =
                                Mix(seed * 0x9e3779b97f4a7c15ULL ^ (uint64_t{d} << 40) ^
                                    (uint64_t{b} << 8) ^ back[e]);
                            if (hv < best[b]) {
                              best[b] = hv;
                              nx[b] = back[e];
                            }
                          }
                        }
                      }
                      int cur = maxd.load();
                      while (local_max > cur && !maxd.compare_exchange_weak(cur, local_max)) {
                      }
                    });
  max_depth_ = maxd.load();
}

}  // namespace pfc::tagger
