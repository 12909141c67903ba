// SPDX-License-Identifier: BSD-3-Clause
// The fabric file's sections for the emulated RDMA NICs (fabric_spec.h has
// the format): each throws config::ConfigError with file:line: field: what was
// expected. Control thread only.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>

#include "dataplane/config/yaml_util.h"
#include "dataplane/emulator/spec/fabric_spec.h"

namespace pfc::emulator {

// A time value of the fabric file (ParseDuration's forms), for every
// section's parser (fabric_spec.cc's too).
uint64_t Duration(const config::Reader& rd, const YAML::Node& n, const std::string& field);

// Section dcqcn: the simulator's parameter names in lower case.
void ParseDcqcn(const config::Reader& rd, const YAML::Node& n, FabricSpec* s);
// Section rc: mtu, ack_interval, timeout, retry_cnt.
void ParseRc(const config::Reader& rd, const YAML::Node& n, FabricSpec* s);
// Sections hpcc, timely, dctcp (`section`): the simulator's names in lower case.
void ParseAckCc(const config::Reader& rd, const YAML::Node& n, const char* section, FabricSpec* s);
// A flow's transport and message keys (after its from/to/bytes/frame).
void ParseFlowTransport(const config::Reader& rd, const YAML::Node& n, const std::string& f,
                        const FabricSpec& s, FlowSpecFile* fl);
// When some flow is rc: its largest frame fits the switch ports' MTU.
bool CheckRcFrames(const FabricSpec& s, std::string* err);

}  // namespace pfc::emulator
