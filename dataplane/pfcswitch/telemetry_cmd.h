// SPDX-License-Identifier: BSD-3-Clause
// Parameter handling of the /pfcswitch/* telemetry commands, kept apart from
// DPDK so that it is unit-tested (tests/dataplane/pfcswitch) and fuzzed
// (tests/fuzz/fuzz_telemetry_cmd.cc). DPDK's telemetry thread splits a
// request "/cmd,params" at the first comma and hands the rest (or NULL when
// there is none) to the command's callback in telemetry.cc, which calls
// these. Pure; any thread.
#pragma once
#include <string>
#include <vector>

namespace pfc::pfcswitch {

inline constexpr char kReloadUsage[] = "usage: /pfcswitch/reload,[<switch>,]<rules-or-routes-file>";
inline constexpr char kClearUsage[] =
    "usage: /pfcswitch/clear,[<switch>,]watermarks (pfcctl clears counters itself)";

// Which switch a command's parameters name, and the rest of them: with
// several switches (the fabric emulator) they start with "<switch>," or are
// just "<switch>"; with one (pfcswitch, or one switch of a split fabric) the
// name may be given the same way or left out.
// Returns the switch's index in `switches`, or -1.
int SwitchParam(const char* params, const std::vector<std::string>& switches, std::string* rest);

// /pfcswitch/port_stats,<port>: a name from `names` (config order), else a
// 0-based index written with digits only. Returns the port's index, or -1 when params names no
// port.
int PortParam(const char* params, const std::vector<std::string>& names);

// /pfcswitch/reload,<file>: the path of a rules/routes file. False when
// params is missing or empty (the caller replies with kReloadUsage).
bool ReloadParam(const char* params, std::string* path);

// DPDK 22.11's telemetry mangles every byte above 0x7f of a string value
// (its JSON escaper indexes a 32-entry table with a signed char: it reads
// before the table and writes what it finds there), so a reply text that
// quotes the user's input (a reload's error) goes out as ASCII: '\' as
// "\\", a UTF-8 character above 0x7f or a control character as "\uXXXX"
// (JSON's own form; two for a character beyond U+FFFF), a byte that is not
// UTF-8 as "\xNN". Readers see valid JSON whose string still shows every
// character; pfcctl decodes it back (TelemetryText) to the original bytes.
std::string TelemetrySafe(const std::string& text);
std::string TelemetryText(const std::string& safe);

// A reply text in pieces of at most max_bytes (DPDK telemetry keeps at most
// 127 bytes of a string value), each cut between UTF-8 characters so that
// every piece is valid UTF-8 when the text is. The reply puts the first
// piece in its "error" field and the rest in "error_more"; pfcctl joins
// them. An empty text gives one empty piece.
std::vector<std::string> Utf8Pieces(const std::string& text, size_t max_bytes);

}  // namespace pfc::pfcswitch
