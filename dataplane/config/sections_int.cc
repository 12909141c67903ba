// SPDX-License-Identifier: BSD-3-Clause
// Section int: in-band network telemetry (net/int_trailer.h,
// stages/int_stage.h). Runs after ports.
//
//   int:
//     priorities: [3]   # egress priorities whose packets get a hop record
//     insert: true      # optional: add the trailer where a packet has none
//     multi: 4          # optional: unit multiplier of the trailers added
//                       # here (the HPCC simulator's INT_MULTI; 1..255)
//     pint:             # optional: HPCC-PINT (net/pint.h) on these priorities
//       log_base: 1.01  #   the power's base (the simulator's PINT_LOG_BASE)
//       rtt: 9us        #   T of the ports' utilisation (its maxRtt)
//     seed: 7           # optional: PINT's random rounding (default 0)
//
// Without `pint`, a packet's PINT trailer passes untouched and is counted
// (int_pint_unset); the NICs then read a utilisation of 0.
//
// Every port must have a speed the record can name (25G, 50G, 100G, 200G,
// 400G as the simulator; 10G, 40G, 800G), since each record carries its
// port's line rate: a port without one is an error here, not a record
// that would tell the sender a wrong rate.
#include "dataplane/config/sections.h"
#include "dataplane/net/int_trailer.h"

namespace pfc::config::sections {

void ParseInt(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.RequireMap(n, "int");
  rd.CheckKeys(n, "int", {"priorities", "insert", "multi", "pint", "seed"});
  IntSettings& s = c->telemetry;
  const YAML::Node pr =
      rd.Need(n, "priorities", "int.priorities", "a list of egress priorities 0..7");
  rd.RequireSeq(pr, "int.priorities");
  if (pr.size() == 0) rd.Fail(pr, "int.priorities", "at least one egress priority 0..7");
  for (size_t k = 0; k < pr.size(); k++)
    s.prios |= static_cast<uint8_t>(
        1u << rd.Int(pr[k], "int.priorities[" + std::to_string(k) + "]", 0, kNumPrio - 1));
  if (n["insert"]) s.insert = rd.Bool(n["insert"], "int.insert");
  if (n["multi"]) s.multi = static_cast<uint32_t>(rd.Int(n["multi"], "int.multi", 1, 255));
  if (const YAML::Node p = n["pint"]) {
    rd.RequireMap(p, "int.pint");
    rd.CheckKeys(p, "int.pint", {"log_base", "rtt"});
    // A base whose powers of a u up to 512 need more than 16 bits has no
    // room in the trailer (the simulator's field is 16 bits too).
    s.pint_log_base = rd.Real(rd.Need(p, "log_base", "int.pint.log_base", "a number 1.0002..16"),
                              "int.pint.log_base", 1.0002, 16);
    s.pint_rtt_ns = Duration(rd, rd.Need(p, "rtt", "int.pint.rtt", "a duration 100ns..1s"),
                             "int.pint.rtt", 100, 1'000'000'000);
  }
  if (n["seed"]) s.seed = static_cast<uint64_t>(rd.Int(n["seed"], "int.seed", 0, INT64_MAX));
  for (const PortConfig& p : c->ports)
    if (net::IntRateIndex(p.speed_bps) < 0)
      rd.Fail(n, "int",
              "ports whose speed an INT record can name (10G, 25G, 40G, 50G, 100G, 200G, 400G, "
              "800G); port " +
                  p.name + " has speed " + std::to_string(p.speed_bps / 1'000'000) + "M");
}

}  // namespace pfc::config::sections
