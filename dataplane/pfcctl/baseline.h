// SPDX-License-Identifier: BSD-3-Clause
// `pfcctl clear counters`: the switch's counters are never cleared (each
// has one writer, a worker; stats.h), so pfcctl keeps a snapshot on the
// client, as SONiC's sonic-clear and OVS's `zero[]` do, and its views show
// what changed since (deltas.h Since). The snapshot is a file per switch,
// $XDG_RUNTIME_DIR/pfcctl-<file-prefix>[-<switch>].json (else /tmp/...),
// and names the telemetry socket it was taken through (inode and change
// time): a switch restarted under the same prefix has a new socket, and its
// counters are shown whole again. Pure file handling; no DPDK.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace pfc::pfcctl {

// Where the snapshot of the switch behind `socket_path` (and `sw`, its
// name in a pfcfabric process, or "") is kept.
std::string BaselinePath(const std::string& socket_path, const std::string& sw);

// The socket's identity ("<inode>:<ctime ns>"), "" when it cannot be read.
std::string SocketIdentity(const std::string& socket_path);

// Writes `stats` as the baseline, with `identity` and the time. False with
// *err when the file cannot be written.
bool SaveBaseline(const std::string& path, const std::string& identity, const nlohmann::json& stats,
                  std::string* err);

// The baseline at `path` when there is one for `identity`: its stats in
// *stats and when it was taken (seconds since the epoch) in *when.
bool LoadBaseline(const std::string& path, const std::string& identity, nlohmann::json* stats,
                  int64_t* when);

}  // namespace pfc::pfcctl
