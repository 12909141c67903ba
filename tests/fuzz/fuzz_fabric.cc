// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the fabric file loader (emulator/spec/fabric_spec.h,
// LoadFabric): every section, item and event parser, `include:`, the
// topology generators and the checks that span sections. The loader reads
// files by path, so each input is written to a file of this process's own
// (in /dev/shm when there is one) and loaded from there.
//
// Beyond "no crash, no sanitizer report, no hang", it checks the loader's
// promises and aborts on a violation:
//  * an error names a file (it starts with an absolute path and a colon);
//  * a fabric that loads is one the emulator can build: a host entry for
//    every node, every flow between two distinct hosts with its start
//    before its stop, events in time order with their nodes in the
//    topology, captures on links that exist.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ctrl/tagger/topo_gen.h"
#include "dataplane/emulator/spec/fabric_spec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

bool NamesFile(const std::string& err) {
  const bool ok = !err.empty() && err[0] == '/' && err.find(':') != std::string::npos;
  if (!ok) std::fprintf(stderr, "fuzz_fabric: error without a file name: %s\n", err.c_str());
  return ok;
}

void CheckLoaded(const pfc::emulator::FabricSpec& s) {
  const pfc::tagger::Topology& t = s.topo;
  FUZZ_CHECK(s.hosts.size() == t.num_nodes());
  FUZZ_CHECK(!t.Switches().empty());
  for (const auto& f : s.flows) {
    FUZZ_CHECK(f.from < t.num_nodes() && f.to < t.num_nodes() && f.from != f.to);
    FUZZ_CHECK(!t.is_switch(f.from) && !t.is_switch(f.to));
    FUZZ_CHECK(f.start_ns < f.stop_ns);
  }
  for (size_t i = 1; i < s.events.size(); i++)
    FUZZ_CHECK(s.events[i - 1].at_ns <= s.events[i].at_ns);
  for (const auto& e : s.events) {
    if (e.kind == pfc::emulator::EventSpec::Kind::kLink)
      FUZZ_CHECK(e.a < t.num_nodes() && e.b < t.num_nodes() && t.PortTo(e.a, e.b) >= 0);
  }
  for (const auto& c : s.captures)
    FUZZ_CHECK(c.a < t.num_nodes() && c.b < t.num_nodes() && t.PortTo(c.a, c.b) >= 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = [] {
    // Each input well under a second: the generators build at most this
    // many nodes here (the memory's limit lets millions through).
    pfc::tagger::SetGenNodeLimit(100'000);
    const std::string dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    return dir + "/fuzz_fabric_" + std::to_string(getpid()) + ".yaml";
  }();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  pfc::emulator::FabricSpec spec;
  std::string err;
  if (pfc::emulator::LoadFabric(path, &spec, &err))
    CheckLoaded(spec);
  else
    FUZZ_CHECK(NamesFile(err));
  return 0;
}
