// SPDX-License-Identifier: BSD-3-Clause
// The switch configuration: one YAML file (plus an optional `include:` of a
// generated rules file), parsed with yaml-cpp and validated completely before
// anything starts. Every error names the file, the line, the field and what
// was expected. The result is plain data; the app turns it into tables
// (tables/), a buffer configuration (buffer/) and port settings.
// Read on the control thread only.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dataplane/buffer/accountant.h"
#include "dataplane/common/types.h"
#include "dataplane/pause/pfc_generator.h"
#include "dataplane/pause/pfcwd.h"
#include "dataplane/sched/egress_scheduler.h"
#include "dataplane/sched/red.h"
#include "dataplane/tables/ecmp_hash.h"
#include "dataplane/tables/rewrite_table.h"
#include "dataplane/tables/route_table.h"
#include "dataplane/tables/tag_map.h"

namespace pfc::config {

using MacAddr = std::array<uint8_t, 6>;

struct PortConfig {
  std::string name;
  std::string device;  // DPDK port name (vdev name or PCI address)
  bool has_mac = false;
  MacAddr mac{};
  bool has_ipv4 = false;
  uint32_t ipv4 = 0;  // host order
  uint8_t prefix_len = 0;
  uint64_t speed_bps = 0;  // emulated link speed: PFC timing and headroom
  uint32_t cable_m = 0;
  // SONiC's PORT_QOS_MAP pfc_enable: the priorities of qos.lossless this
  // port runs PFC on. Without the field (has_pfc_enable false) every one of
  // them; read it through PortPfcMask, which resolves that default.
  bool has_pfc_enable = false;
  uint8_t pfc_enable = 0;
  uint32_t mtu = 1500;
  sched::SchedConfig sched{};  // shaper_bps/shaper_burst included
};

struct NeighborConfig {
  uint32_t ip;
  MacAddr mac;
  PortId port;
};
struct L2Entry {
  MacAddr mac;
  PortId port;
};

struct PfcSettings {
  uint16_t pause_quanta = 0xffff;  // quanta in an XOFF frame
  double refresh_fraction = 0.5;   // refresh after this fraction of the pause time
  bool honor_pause_8023x = true;   // classic PAUSE pauses all priorities
  uint32_t response_ns = 1000;     // the switch's own reaction time, for headroom
  // pfc.decide: poll (false) or on_change (true); pause/pfc_generator.h.
  bool decide_on_change = false;
};

// DCFIT deadlock detection (dataplane/dcfit/, stages/dcfit_stage.h).
struct DcfitSettings {
  bool enabled = false;
  // true: on a declared deadlock the detecting switch discards its looped
  // lossless queue (DropReason::kDcfitBreak); false: detect and report only.
  bool recovery_break = false;
  uint64_t check_timeout_ns = 1'000'000;  // a temporal pass not back by then failed
  int32_t switch_id = -1;  // S_gen-ini / S_tri; -1: the switch's index (0 standalone)
  // Initial-trigger handling (DCFIT §4, dcfit/trigger_handler.h): after a
  // declared deadlock, tell the trigger switch; it makes a trigger host's
  // port lossy, or rate-limits a trigger switch's heavy hitters, for hold_ns.
  bool trigger_handling = false;
  uint64_t hold_ns = 10'000'000;
  // Each heavy hitter's limit: a fraction of the egress port's line rate,
  // or (rate_limit_bps != 0) a rate.
  double rate_limit_fraction = 0.5;
  uint64_t rate_limit_bps = 0;
};

// PFC pause-storm watchdog (pause/pfcwd.h): the section's settings
// and, by port index, each port's after its `ports:` override (filled for
// every port when the section is present; empty without it).
struct PfcWatchdogSettings {
  pause::PfcwdConfig defaults;
  std::vector<pause::PfcwdConfig> port;
};

// ECN marking (sched/red.h, stages/ecn_stage.h): WRED profiles by name, as
// SONiC's WRED_PROFILE, and the profile of each egress queue, as SONiC's
// QUEUE|<port>|<queue> wred_profile.
struct EcnSettings {
  // The marking generator's seed; a fabric gives each switch its own from
  // the fabric's seed, so runs repeat.
  uint64_t seed = 1;
  std::vector<sched::RedProfile> profiles;
  // By port index, then egress priority: an index into profiles, or -1 (no
  // marking). Empty without the section.
  std::vector<std::array<int16_t, kNumPrio>> queue;
  bool any() const {
    for (const auto& q : queue)
      for (int16_t i : q)
        if (i >= 0) return true;
    return false;
  }
};

// In-band network telemetry (net/int_trailer.h, stages/int_stage.h): the
// egress priorities whose packets get a hop record, and whether the switch
// adds the trailer to IPv4 packets of those priorities that have none.
// Read at start (a reload leaves it as it was).
struct IntSettings {
  uint8_t prios = 0;   // bit per egress priority; 0: INT off
  bool insert = true;  // add a trailer where a packet has none (the first hop)
  uint32_t multi = 1;  // the unit multiplier of a trailer this switch adds
  // HPCC-PINT (net/pint.h): the encoding's log base and the base RTT of
  // the ports' utilisation estimate; log base 0 = PINT trailers left alone.
  double pint_log_base = 0;
  uint64_t pint_rtt_ns = 0;
  uint64_t seed = 0;  // PINT's random rounding: the generator's seed
  bool any() const { return prios != 0; }
  bool pint() const { return pint_log_base != 0; }
};

struct SwitchConfig {
  std::string path;          // absolute, so tools in other directories can re-read it
  std::string include_path;  // absolute; empty without `include:`
  enum class Mode { kL3, kL2 } mode = Mode::kL3;
  unsigned workers = 1;
  uint32_t idle_sleep_us = 50;
  // Receive interrupts on ports whose driver has them (net_vhost): a worker
  // whose every port has them, serving switches no other worker serves,
  // sleeps until a packet or its next deadline, at most
  // interrupt_sleep_ms, instead of waking every idle_sleep_us.
  bool rx_interrupts = true;
  uint32_t interrupt_sleep_ms = 10;
  uint16_t burst = kMaxBurst;
  bool verify_ip_checksum = true;
  // Drop packets that would leave by their ingress port. Tagger rules made
  // with `pfc-tagger tag --hairpin-drop` leave hairpins out and rely on it.
  bool hairpin_drop = false;
  // How a route with several next hops picks one (tables/ecmp_hash.h):
  // switch.ecmp_hash_algorithm and switch.ecmp_hash_seed.
  tables::EcmpHashAlgo ecmp_hash = tables::EcmpHashAlgo::kCrc32c;
  uint32_t ecmp_seed = 0;

  std::vector<PortConfig> ports;
  std::vector<tables::RouteTable::Route> routes;  // nh indexes next_hops
  std::vector<tables::NextHop> next_hops;
  std::vector<NeighborConfig> neighbors;
  std::vector<L2Entry> l2_table;

  tables::TagMap tag_map;
  uint32_t cell_bytes = 128;  // buffer accounting granularity
  buffer::BufferConfig buffer;
  tables::RewriteConfig rewrite;
  PfcSettings pfc;
  DcfitSettings dcfit;
  PfcWatchdogSettings pfc_watchdog;
  EcnSettings ecn;
  IntSettings telemetry;  // the `int` section

  int PortIndex(const std::string& name) const;
};

// How the loaders read a file (the config and its include): false when it
// cannot be read. The fuzzer passes an in-memory file system.
using ReadTextFn = std::function<bool(const std::string& path, std::string* text)>;
// Reads a regular file. Anything else (a directory, a FIFO, /dev/zero) is
// refused, since reading it could block or never end.
bool ReadRegularFile(const std::string& path, std::string* text);
// Every loader's message when ReadRegularFile (or a ReadTextFn) fails:
// "<path>: cannot open <what> (expected a readable regular file)", `what`
// naming the kind of file ("file", "ELP file", ...).
std::string CannotOpen(const std::string& path, std::string_view what = "file");

// Loads and validates `path`. On error returns false and sets *err to a
// message like "configs/x.yaml:12: ports[1].speed: expected a rate such as
// 10G or 2.5G (got 'fast')".
bool LoadConfig(const std::string& path, SwitchConfig* out, std::string* err,
                const ReadTextFn& read = ReadRegularFile);

// Routes and neighbours as values rather than YAML: the fabric emulator
// generates thousands a switch, and parsing them back from text would be
// most of its start-up. Port indices are into the config's ports; via 0 is on-link.
struct RouteSpec {
  uint32_t prefix = 0;
  uint8_t len = 0;
  // One next hop, or several sharing the traffic by flow (ECMP), in the
  // order the hash indexes them. Their `group` is set by the loader.
  std::vector<tables::NextHop> next_hops;
};
struct GeneratedTables {
  std::vector<RouteSpec> routes;
  std::vector<NeighborConfig> neighbors;
};
// LoadConfig of a file with no routes or neighbors sections, whose routes
// and neighbours are `gen`'s: the same checks (a message names
// "routes[i]" without a line) and the same validation of the whole.
bool LoadConfig(const std::string& path, const GeneratedTables& gen, SwitchConfig* out,
                std::string* err, const ReadTextFn& read = ReadRegularFile);

// Loads a runtime update (rules/routes file: optional `qos`, `rewrite`,
// `routes`, `neighbors` sections) on top of a copy of `base`, validating it
// against base's ports. Used by the reload command.
bool LoadUpdate(const std::string& path, const SwitchConfig& base, SwitchConfig* out,
                std::string* err, const ReadTextFn& read = ReadRegularFile);

// Reads a rules file (pfc-tagger's output, included by a switch config or
// loaded at run time) as the switch reads it: its qos and rewrite sections
// through the switch's own section parsers, into out->tag_map and
// out->rewrite (the rewrite table compiled to check it), ports resolved
// against `port_names` (a name, or an index 0..n-1). A file without a
// rewrite section keeps every tag, as a switch would. The one reader of the
// format: pfc-tagger's verifier uses it for the rules it checks.
bool LoadRulesFile(const std::string& path, const std::vector<std::string>& port_names,
                   SwitchConfig* out, std::string* err, const ReadTextFn& read = ReadRegularFile);

// The priorities port `p` of `c` is lossless on: qos.lossless, or its
// `pfc_enable` subset. A priority of qos.lossless outside it is lossy on
// that port: its priority group has no headroom, no XOFF is sent for it and
// pause requests received for it there are ignored.
inline uint8_t PortPfcMask(const SwitchConfig& c, const PortConfig& p) {
  return p.has_pfc_enable ? static_cast<uint8_t>(p.pfc_enable & c.tag_map.lossless_mask)
                          : c.tag_map.lossless_mask;
}

// The PFC generator settings of port `p` of `c`, as the runtime configures
// them.
pause::PfcGenConfig PfcGenFor(const SwitchConfig& c, const PortConfig& p);

// The watchdog settings of port `p`: its override, else the section's.
const pause::PfcwdConfig& PfcWatchdogFor(const SwitchConfig& c, PortId p);

// Helpers exposed for tests and the CLI.
bool ParseRate(const std::string& s, uint64_t* bps);     // "10G", "2.5G", "100M", "1000000"
bool ParseBytes(const std::string& s, uint64_t* bytes);  // "4M", "16K", "1500"
bool ParseMac(const std::string& s, MacAddr* mac);
bool ParseIpv4(const std::string& s, uint32_t* ip);
bool ParsePrefix(const std::string& s, uint32_t* ip, uint8_t* len);

}  // namespace pfc::config
