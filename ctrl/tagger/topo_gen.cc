// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/topo_gen.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace pfc::tagger {
namespace {

// "t" + std::to_string(i) trips GCC 12's -Wrestrict false positive
// (PR 105329); appending avoids it.
std::string Nm(const char* prefix, long a, long b = -1, long c = -1) {
  std::string s(prefix);
  s += std::to_string(a);
  if (b >= 0) s.append("_").append(std::to_string(b));
  if (c >= 0) s.append("_").append(std::to_string(c));
  return s;
}

bool Bad(std::string* err, const std::string& msg) {
  *err = msg;
  return false;
}

long set_limit = 0;  // SetGenNodeLimit; 0: the memory's

// MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read.
long AvailableBytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  long kb = 0;
  while (f >> key >> kb) {
    if (key == "MemAvailable:") return kb > LONG_MAX / 1024 ? LONG_MAX : kb * 1024;
    f.ignore(256, '\n');
  }
  return 0;
}

// Refuses `nodes` (a lower bound of what `what` would build) when over
// `limit` (GenNodeLimit(), read once per generator): true with *err set.
bool TooLarge(std::string* err, const char* what, long nodes, long limit) {
  if (nodes <= limit) return false;
  *err = std::string(what) + ": at least " + std::to_string(nodes) + " nodes, ";
  if (set_limit > 0) {
    *err += "more than this program's limit (" + std::to_string(set_limit) + ")";
    return true;
  }
  const long need_mb =
      nodes > LONG_MAX / kGenBytesPerNode ? LONG_MAX >> 20 : (nodes * kGenBytesPerNode) >> 20;
  *err += "about " + std::to_string(need_mb) + " MB, more than the " +
          std::to_string((limit * kGenBytesPerNode) >> 20) +
          " MB of memory available (MemAvailable)";
  return true;
}

bool GenFatTreeImpl(int k, bool ab, Topology* t, std::string* err) {
  if (k < 2 || k % 2 != 0 || k > kMaxNodePorts)
    return Bad(err, "fattree k: expected an even number 2.." + std::to_string(kMaxNodePorts));
  *t = Topology();
  const int h = k / 2;
  std::vector<uint32_t> tor(k * h), agg(k * h), core(h * h);
  std::vector<std::vector<uint32_t>> hosts(k * h);
  for (int p = 0; p < k; ++p)
    for (int i = 0; i < h; ++i) {
      tor[p * h + i] = t->AddNode(Nm("t", p, i), NodeKind::kSwitch, 1);
      for (int m = 0; m < h; ++m)
        hosts[p * h + i].push_back(t->AddNode(Nm("h", p, i, m), NodeKind::kHost, 0));
    }
  for (int p = 0; p < k; ++p)
    for (int i = 0; i < h; ++i) agg[p * h + i] = t->AddNode(Nm("a", p, i), NodeKind::kSwitch, 2);
  for (int c = 0; c < h * h; ++c) core[c] = t->AddNode(Nm("c", c), NodeKind::kSwitch, 3);
  // Link order fixes port order: ToR = [hosts, aggs], agg = [ToRs, cores].
  for (int x = 0; x < k * h; ++x)
    for (uint32_t hn : hosts[x]) t->AddLink(tor[x], hn);
  for (int p = 0; p < k; ++p)
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < h; ++j) t->AddLink(tor[p * h + i], agg[p * h + j]);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < h; ++j)
      for (int m = 0; m < h; ++m) {
        const int c = (ab && p % 2 == 1) ? m * h + j : j * h + m;
        t->AddLink(agg[p * h + j], core[c]);
      }
  return t->Finalize(err);
}

}  // namespace

long GenNodeLimit() {
  if (set_limit > 0) return set_limit;
  const long avail = AvailableBytes();
  return avail > 0 ? avail / kGenBytesPerNode : LONG_MAX;  // unreadable: no limit
}
void SetGenNodeLimit(long nodes) { set_limit = nodes > 0 ? nodes : 0; }

bool GenLeafSpine(int tors, int spines, int hosts_per_tor, Topology* t, std::string* err) {
  if (tors < 1 || spines < 1 || hosts_per_tor < 0)
    return Bad(err, "leaf-spine: expected tors >= 1, spines >= 1, hosts >= 0");
  if (spines + hosts_per_tor > kMaxNodePorts || tors > kMaxNodePorts)
    return Bad(err, "leaf-spine: a switch would need more than 64 ports");
  *t = Topology();
  std::vector<uint32_t> tor, sp;
  for (int i = 0; i < tors; ++i) tor.push_back(t->AddNode(Nm("t", i), NodeKind::kSwitch, 1));
  for (int j = 0; j < spines; ++j) sp.push_back(t->AddNode(Nm("sp", j), NodeKind::kSwitch, 2));
  for (int i = 0; i < tors; ++i)
    for (int m = 0; m < hosts_per_tor; ++m)
      t->AddLink(tor[i], t->AddNode(Nm("h", i, m), NodeKind::kHost, 0));
  for (int i = 0; i < tors; ++i)
    for (int j = 0; j < spines; ++j) t->AddLink(tor[i], sp[j]);
  return t->Finalize(err);
}

bool GenFatTree(int k, Topology* t, std::string* err) { return GenFatTreeImpl(k, false, t, err); }
bool GenF10(int k, Topology* t, std::string* err) { return GenFatTreeImpl(k, true, t, err); }

bool GenJellyfish(int switches, int ports, int switch_ports, uint64_t seed, Topology* t,
                  std::string* err) {
  if (switches < 2) return Bad(err, "jellyfish switches: expected >= 2");
  if (ports < 1 || ports > kMaxNodePorts)
    return Bad(err, "jellyfish ports: expected 1.." + std::to_string(kMaxNodePorts));
  if (switch_ports < 1 || switch_ports > ports || switch_ports >= switches)
    return Bad(err, "jellyfish switch-ports: expected 1..min(ports, switches-1)");
  if (TooLarge(err, "jellyfish", long{switches} * (1 + ports - switch_ports), GenNodeLimit()))
    return false;
  std::mt19937_64 rng(seed);
  const int n = switches;
  std::vector<std::vector<uint32_t>> adj(n);
  std::vector<std::pair<uint32_t, uint32_t>> links;
  std::vector<uint32_t> stubs;  // one entry per free switch-facing port
  for (int s = 0; s < n; ++s)
    for (int i = 0; i < switch_ports; ++i) stubs.push_back(s);
  auto adjacent = [&](uint32_t a, uint32_t b) {
    return std::find(adj[a].begin(), adj[a].end(), b) != adj[a].end();
  };
  auto take = [&](size_t i) {
    std::swap(stubs[i], stubs.back());
    stubs.pop_back();
  };
  // Random matching of free ports (Jellyfish §3): pick two free ports of
  // non-adjacent switches until no such pair is found quickly.
  int failures = 0;
  while (stubs.size() >= 2 && failures < 200) {
    std::uniform_int_distribution<size_t> pick(0, stubs.size() - 1);
    size_t i = pick(rng), j = pick(rng);
    const uint32_t a = stubs[i], b = stubs[j];
    if (a == b || adjacent(a, b)) {
      ++failures;
      continue;
    }
    failures = 0;
    adj[a].push_back(b);
    adj[b].push_back(a);
    links.push_back({a, b});
    if (i < j) std::swap(i, j);
    take(i);
    take(j);
  }
  // Fix-up: a switch with >= 2 free ports breaks a random link (x, y) it is
  // not part of and joins both ends (the incremental step of Jellyfish).
  std::sort(stubs.begin(), stubs.end());
  for (size_t s = 0; s + 1 < stubs.size();) {
    const uint32_t a = stubs[s];
    if (stubs[s + 1] != a || links.empty()) {
      ++s;
      continue;
    }
    bool done = false;
    for (int tries = 0; tries < 1000 && !done; ++tries) {
      std::uniform_int_distribution<size_t> pick(0, links.size() - 1);
      const size_t li = pick(rng);
      auto [x, y] = links[li];
      if (x == a || y == a || adjacent(a, x) || adjacent(a, y)) continue;
      adj[x].erase(std::find(adj[x].begin(), adj[x].end(), y));
      adj[y].erase(std::find(adj[y].begin(), adj[y].end(), x));
      links[li] = {a, x};
      links.push_back({a, y});
      adj[a].push_back(x);
      adj[x].push_back(a);
      adj[a].push_back(y);
      adj[y].push_back(a);
      done = true;
    }
    if (done)
      stubs.erase(stubs.begin() + s, stubs.begin() + s + 2);
    else
      ++s;
  }
  *t = Topology();
  for (int s = 0; s < n; ++s) t->AddNode(Nm("s", s), NodeKind::kSwitch, 1);
  for (const auto& [a, b] : links) t->AddLink(a, b);
  // Hosts get the high port indices of their switch.
  for (int s = 0; s < n; ++s)
    for (int m = 0; m < ports - switch_ports; ++m)
      t->AddLink(s, t->AddNode(Nm("h", s, m), NodeKind::kHost, 0));
  return t->Finalize(err);
}

bool GenBCube(int n, int k, Topology* t, std::string* err) {
  if (n < 2 || n > kMaxNodePorts || k < 0 || k + 1 > kMaxNodePorts)
    return Bad(err, "bcube: expected n in 2..64 and k >= 0");
  const long limit = GenNodeLimit();
  long servers = 1;
  for (int i = 0; i <= k; ++i) {
    servers *= n;
    if (TooLarge(err, "bcube", servers, limit)) return false;
  }
  const long per_level = servers / n;
  // k+1 levels of n^k switches beside the servers.
  if (TooLarge(err, "bcube", servers + (k + 1) * per_level, limit)) return false;
  *t = Topology();
  std::vector<uint32_t> srv(servers);
  for (long a = 0; a < servers; ++a) {
    // Name srv<d_k>.<...>.<d_0>: the BCube address digits, most significant first.
    std::vector<long> digits;
    for (long x = a, l = 0; l <= k; ++l, x /= n) digits.push_back(x % n);
    std::string name("srv");
    for (int l = k; l >= 0; --l) {
      name += std::to_string(digits[l]);
      if (l) name += '.';
    }
    srv[a] = t->AddNode(name, NodeKind::kHost, 0, true);
  }
  long pw = 1;  // n^l
  std::vector<std::vector<uint32_t>> sw(k + 1);
  for (int l = 0; l <= k; ++l)
    for (long i = 0; i < per_level; ++i)
      sw[l].push_back(t->AddNode(Nm("w", l, i), NodeKind::kSwitch, 1));
  // Level by level so that server port l is its level-l link.
  for (int l = 0; l <= k; ++l, pw *= n)
    for (long i = 0; i < per_level; ++i) {
      const long lo = i % pw, hi = i / pw;  // digits below / above position l
      for (int v = 0; v < n; ++v) t->AddLink(sw[l][i], srv[hi * pw * n + v * pw + lo]);
    }
  return t->Finalize(err);
}

// "jellyfish:N:ports:switch_ports[:seed]", "fattree:k", "f10:k",
// "leafspine:tors:spines:hosts", "bcube:n:k".
bool GenTopoSpec(const std::string& spec, Topology* t, std::string* err) {
  std::vector<std::string> f;
  std::stringstream ss(spec);
  for (std::string x; std::getline(ss, x, ':');) f.push_back(x);
  auto num = [&](size_t i, long* v) {
    try {
      size_t pos = 0;
      *v = std::stol(f.at(i), &pos);
      // The generators take ints: a larger value must not wrap into range.
      return pos == f[i].size() && *v >= -1'000'000'000 && *v <= 1'000'000'000;
    } catch (...) {
      return false;
    }
  };
  long a = 0, b = 0, c = 0, d = 1;
  const std::string usage =
      "topology generator: expected jellyfish:N:PORTS:SWITCH_PORTS[:SEED], fattree:K, f10:K, "
      "leafspine:TORS:SPINES:HOSTS or bcube:N:K, got '" +
      spec + "'";
  if (f.empty()) return *err = usage, false;
  if (f[0] == "jellyfish" && (f.size() == 4 || f.size() == 5) && num(1, &a) && num(2, &b) &&
      num(3, &c) && (f.size() == 4 || num(4, &d)))
    return GenJellyfish(int(a), int(b), int(c), uint64_t(d), t, err);
  if (f[0] == "fattree" && f.size() == 2 && num(1, &a)) return GenFatTree(int(a), t, err);
  if (f[0] == "f10" && f.size() == 2 && num(1, &a)) return GenF10(int(a), t, err);
  if (f[0] == "leafspine" && f.size() == 4 && num(1, &a) && num(2, &b) && num(3, &c))
    return GenLeafSpine(int(a), int(b), int(c), t, err);
  if (f[0] == "bcube" && f.size() == 3 && num(1, &a) && num(2, &b))
    return GenBCube(int(a), int(b), t, err);
  *err = usage;
  return false;
}

}  // namespace pfc::tagger
