// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the config loaders: LoadConfig (a switch config and
// its `include:`) and LoadUpdate (a rules/routes file such as pfc-tagger
// writes, as `pfcctl load` and /pfcswitch/reload read it). Files come from an
// in-memory file system, so the target never touches the disk.
//
// Input: MAIN [NUL RULES]. MAIN is /fuzz/switch.yaml, loaded as a config;
// RULES, when there is a NUL, is /fuzz/rules.yaml, which MAIN may `include:
// rules.yaml` and which is also loaded as an update on top of a fixed running
// config. (An input without a NUL is parsed once, not twice as a config and
// as an update: yaml-cpp's parse is what this target spends its time in, and
// an update reaches every LoadUpdate path through an input with a NUL. The
// update seeds of corpus/config start with a NUL.)
//
// Beyond "no crash, no sanitizer report, no hang", it checks the loaders'
// promises and aborts on a violation:
//  * an error names the file it is about (one of the two paths);
//  * a config that loads is one the runtime accepts: the buffer accountant
//    and every port's PFC generator configure without error, and
//    every index (route -> next hop -> port, neighbours, L2) is in range;
//  * an update keeps the running config's ports and lossless set.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "dataplane/buffer/accountant.h"
#include "dataplane/config/config.h"
#include "dataplane/pause/pfc_generator.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using pfc::config::SwitchConfig;

constexpr char kMain[] = "/fuzz/switch.yaml";
constexpr char kRules[] = "/fuzz/rules.yaml";

// The running config updates apply to: four ports and the two lossless
// priorities of a pfc-tagger rules file with tags 1 and 2.
constexpr char kBase[] = R"(
switch: { mode: l3 }
ports:
  - { name: p0, device: net_null0, ipv4: 10.0.1.1/24, speed: 10G }
  - { name: p1, device: net_null1, ipv4: 10.0.2.1/24, speed: 25G }
  - { name: p2, device: net_null2, ipv4: 10.0.3.1/24, speed: 100G }
  - { name: p3, device: net_null3, ipv4: 10.0.4.1/24, speed: 1G }
qos: { tag_map: { 1: 1, 2: 2 }, lossless: [1, 2] }
)";

bool NamesFile(const std::string& err) {
  const bool ok =
      err.rfind(std::string(kMain) + ":", 0) == 0 || err.rfind(std::string(kRules) + ":", 0) == 0;
  if (!ok) std::fprintf(stderr, "fuzz_config: error without a file name: %s\n", err.c_str());
  return ok;
}

// A runtime step's result; prints the error the runtime would stop with.
bool Accepted(bool ok, const std::string& err) {
  if (!ok)
    std::fprintf(stderr, "fuzz_config: loaded, but the runtime refuses it: %s\n", err.c_str());
  return ok;
}

// What pfcswitch does with a loaded config before it forwards a packet
// (Runtime::Create and ApplyConfig, minus DPDK).
void CheckRuntimeAccepts(const pfc::config::SwitchConfig& c) {
  std::string err;
  pfc::buffer::BufferAccountant acct;
  FUZZ_CHECK(Accepted(acct.Configure(c.buffer, &err), err));
  // Validate() compiled the rewrite table and ran the route table's checks
  // (RouteTable::Check, the same as Build's, without its 32 MiB table: that
  // is what made this target slow), so neither is built here.
  for (const auto& p : c.ports) {
    pfc::pause::PfcGenerator gen;
    FUZZ_CHECK(Accepted(gen.Configure(pfc::config::PfcGenFor(c, p), &err), err));
  }
  const size_t nports = c.ports.size();
  FUZZ_CHECK(nports > 0 && c.rewrite.num_ports == nports);
  for (const auto& r : c.routes) FUZZ_CHECK(r.nh < c.next_hops.size() && r.len <= 32);
  for (const auto& nh : c.next_hops) FUZZ_CHECK(nh.port < nports);
  for (const auto& n : c.neighbors) FUZZ_CHECK(n.port < nports);
  for (const auto& e : c.l2_table) FUZZ_CHECK(e.port < nports);
  FUZZ_CHECK(!c.tag_map.IsLossless(c.tag_map.lossy_prio));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const pfc::config::SwitchConfig* base = [] {
    auto* c = new pfc::config::SwitchConfig;
    std::string err;
    const auto read = [](const std::string& path, std::string* text) {
      if (path != kMain) return false;
      *text = kBase;
      return true;
    };
    if (!pfc::config::LoadConfig(kMain, c, &err, read)) {
      std::fprintf(stderr, "fuzz_config: base config: %s\n", err.c_str());
      std::abort();
    }
    return c;
  }();

  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  std::map<std::string, std::string> files;
  files[kMain] = in.substr(0, nul);
  if (nul != std::string::npos) files[kRules] = in.substr(nul + 1);
  const pfc::config::ReadTextFn read = [&files](const std::string& path, std::string* text) {
    auto it = files.find(path);
    if (it == files.end()) return false;
    *text = it->second;
    return true;
  };

  pfc::config::SwitchConfig c;
  std::string err;
  if (pfc::config::LoadConfig(kMain, &c, &err, read)) {
    CheckRuntimeAccepts(c);
  } else {
    FUZZ_CHECK(NamesFile(err));
  }

  if (nul == std::string::npos) return 0;
  pfc::config::SwitchConfig u;
  err.clear();
  if (pfc::config::LoadUpdate(kRules, *base, &u, &err, read)) {
    CheckRuntimeAccepts(u);
    FUZZ_CHECK(u.ports.size() == base->ports.size());
    FUZZ_CHECK(u.tag_map.lossless_mask == base->tag_map.lossless_mask);
  } else {
    FUZZ_CHECK(NamesFile(err));
  }
  return 0;
}
