// SPDX-License-Identifier: BSD-3-Clause
// One parser per config section (internal to dataplane/config). Each throws
// config::ConfigError naming file, line, field and expectation. Sections that
// reference ports (routes, rules) run after ParsePorts.
#pragma once
#include <yaml-cpp/yaml.h>

#include <unordered_map>

#include "dataplane/config/config.h"
#include "dataplane/config/yaml_util.h"

namespace pfc::config::sections {

void ParseSwitch(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParsePorts(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
// Each port's pfc_enable is a subset of qos.lossless (after ParseQos);
// `ports` is the section's node, for the lines of the messages.
void CheckPortPfc(const config::Reader& rd, const YAML::Node& ports, const SwitchConfig& c);
void ParseRoutes(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseNeighbors(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
// Generated routes and neighbours, with the checks of the two sections.
void AddTables(const config::Reader& rd, const GeneratedTables& t, SwitchConfig* c);
void ParseL2(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseQos(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParsePfc(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseDcfit(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParsePfcWatchdog(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseEcn(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
// Section int (after ports: every port's speed needs a rate code).
void ParseInt(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseBuffer(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseRewrite(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c);
// Whole-config checks that span sections; also builds buffer/rewrite port counts.
// The rewrite rules against the ports and the lossy tag, compiled as the
// switch compiles them (a whole config's Validate and a rules file alone).
void ValidateRewrite(const config::Reader& rd, SwitchConfig* c);
void Validate(const config::Reader& rd, SwitchConfig* c);

// Hands out next-hop indexes so that routes over the same (port, gateway)
// share one entry of c->next_hops: the route table holds at most
// RouteTable::kMaxNextHops distinct next hops, while a config may have any
// number of routes over them (100,000 routes through 4 gateways is normal).
class NextHopIndex {
 public:
  // Indexes the next hops already in c->next_hops.
  explicit NextHopIndex(SwitchConfig* c);
  // The index of `nh`, appended if new; RouteTable::kMaxNextHops when `nh` is
  // new and the table is full.
  uint16_t Add(const tables::NextHop& nh);
  // The first index of an ECMP group of hops.size() (2..kMaxEcmpNextHops)
  // consecutive entries, the same group's if already added; kMaxNextHops
  // when it does not fit.
  uint16_t AddGroup(const std::vector<tables::NextHop>& hops);

 private:
  static uint64_t Key(const tables::NextHop& nh) {
    return (static_cast<uint64_t>(nh.port) << 32) | nh.gateway;
  }
  SwitchConfig* c_;
  std::unordered_map<uint64_t, uint16_t> index_;
  std::map<std::vector<uint64_t>, uint16_t> groups_;  // members' keys -> first entry
};

// "250us", "1ms", "2s", "800ns" or a plain number of nanoseconds, in
// [lo, hi] ns.
uint64_t Duration(const config::Reader& rd, const YAML::Node& n, const std::string& f, uint64_t lo,
                  uint64_t hi);

// A port reference: a name from `ports:` or a 0-based index.
// A port speed as ports[].speed takes it: 100G, 25000M, or bare Mb/s as
// SONiC's PORT table (100000); fails naming `f` outside 1M..1.6T.
uint64_t PortSpeed(const config::Reader& rd, const YAML::Node& n, const std::string& f);
PortId PortRef(const config::Reader& rd, const YAML::Node& n, const std::string& field,
               const SwitchConfig& c);

}  // namespace pfc::config::sections
