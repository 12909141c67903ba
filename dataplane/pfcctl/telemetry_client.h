// SPDX-License-Identifier: BSD-3-Clause
// Client side of DPDK's telemetry socket (protocol v2: a SOCK_SEQPACKET unix
// socket at <runtime-dir>/<file-prefix>/dpdk_telemetry.v2; the server sends a
// JSON greeting, then answers each "/command,params" with one JSON message).
// Used by pfcctl and the system tests; no DPDK library needed.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace pfc::pfcctl {

class TelemetryClient {
 public:
  ~TelemetryClient();
  // Connects and reads the greeting. False with *err on failure.
  bool Connect(const std::string& socket_path, std::string* err);
  // Sends one command; returns the value under the command's key.
  bool Query(const std::string& cmd, nlohmann::json* out, std::string* err);

 private:
  int fd_ = -1;
  size_t max_len_ = 16384;
};

std::string TelemetrySocketPath(const std::string& runtime_dir, const std::string& file_prefix);

// Turns /pfcswitch/port_stats' flat dict (per-priority arrays) back into the
// nested shape of pfcswitch's exit report: {..., "prio": [{..., "drops": {}}]}.
nlohmann::json NestPortStats(const nlohmann::json& flat);

}  // namespace pfc::pfcctl
