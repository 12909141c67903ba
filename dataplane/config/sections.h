// SPDX-License-Identifier: BSD-3-Clause
// One parser per config section (internal to dataplane/config). Each throws
// cfg::ConfigError naming file, line, field and expectation. Sections that
// reference ports (routes, rules) run after ParsePorts.
#pragma once
#include <yaml-cpp/yaml.h>

#include "dataplane/config/config.h"
#include "dataplane/config/yaml_util.h"

namespace pfc::cfgsec {

void ParseSwitch(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParsePorts(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseRoutes(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseNeighbors(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseL2(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseQos(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParsePfc(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseBuffer(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
void ParseRewrite(const cfg::Reader& rd, const YAML::Node& n, SwitchConfig* c);
// Whole-config checks that span sections; also builds buffer/rewrite port counts.
void Validate(const cfg::Reader& rd, SwitchConfig* c);

// A port reference: a name from `ports:` or a 0-based index.
PortId PortRef(const cfg::Reader& rd, const YAML::Node& n, const std::string& field,
               const SwitchConfig& c);

}  // namespace pfc::cfgsec
