// SPDX-License-Identifier: BSD-3-Clause
// Section ecn: WRED profiles and the egress queues that mark with them
// (sched/red.h, stages/ecn_stage.h). Runs after ports and buffer.
//
//   ecn:
//     seed: 7                       # optional; a fabric sets one per switch
//     profiles:                     # SONiC WRED_PROFILE, green_* fields
//       AZURE_LOSSLESS: { green_min_threshold: 50K, green_max_threshold: 200K,
//                         green_drop_probability: 5,
//                         mark_at: enqueue }     # optional: enqueue or dequeue
//     queues:                       # SONiC QUEUE|port|q wred_profile
//       - { priorities: [3, 4], profile: AZURE_LOSSLESS }        # every port
//       - { ports: [p1], priorities: [3], profile: OTHER }       # later wins
//       - { speed: 400G, priorities: [3], profile: FAST }         # ports of that speed
#include "dataplane/config/sections.h"

namespace pfc::config::sections {
namespace {

sched::RedProfile Profile(const config::Reader& rd, const YAML::Node& name, const YAML::Node& n,
                          uint64_t total) {
  sched::RedProfile p;
  p.name = rd.Str(name, "ecn.profiles (key)");
  const std::string f = "ecn.profiles." + p.name;
  rd.RequireMap(n, f);
  rd.CheckKeys(n, f,
               {"green_min_threshold", "green_max_threshold", "green_drop_probability", "mark_at"});
  const std::string lo = f + ".green_min_threshold", hi = f + ".green_max_threshold";
  const std::string pr = f + ".green_drop_probability";
  p.min_bytes = rd.Bytes(
      rd.Need(n, "green_min_threshold", lo, "bytes of queue where marking starts"), lo, 0, total);
  p.max_bytes = rd.Bytes(rd.Need(n, "green_max_threshold", hi,
                                 "bytes of queue where every ECN-capable packet is marked"),
                         hi, 0, total);
  if (p.max_bytes < p.min_bytes)
    rd.Fail(n["green_max_threshold"], hi,
            "at least green_min_threshold (" + std::to_string(p.min_bytes) + " bytes)");
  p.max_prob =
      rd.Real(rd.Need(n, "green_drop_probability", pr, "a percentage 0..100"), pr, 0, 100) / 100;
  if (n["mark_at"]) {
    const std::string at = rd.Str(n["mark_at"], f + ".mark_at");
    if (at != "enqueue" && at != "dequeue")
      rd.Fail(n["mark_at"], f + ".mark_at",
              "enqueue (the bytes ahead of the packet) or dequeue (the bytes it leaves behind)");
    p.at_dequeue = at == "dequeue";
  }
  return p;
}

}  // namespace

void ParseEcn(const config::Reader& rd, const YAML::Node& n, SwitchConfig* c) {
  if (!n) return;
  rd.RequireMap(n, "ecn");
  rd.CheckKeys(n, "ecn", {"seed", "profiles", "queues"});
  EcnSettings& e = c->ecn;
  if (n["seed"]) e.seed = static_cast<uint64_t>(rd.Int(n["seed"], "ecn.seed", 0, INT64_MAX));
  const YAML::Node ps = rd.Need(n, "profiles", "ecn.profiles", "a map of WRED profiles by name");
  rd.RequireMap(ps, "ecn.profiles");
  for (const auto& kv : ps)
    e.profiles.push_back(Profile(rd, kv.first, kv.second, c->buffer.total_bytes));
  const YAML::Node qs =
      rd.Need(n, "queues", "ecn.queues", "a list of {ports, priorities, profile}");
  rd.RequireSeq(qs, "ecn.queues");
  std::array<int16_t, kNumPrio> none;
  none.fill(-1);
  e.queue.assign(c->ports.size(), none);
  for (size_t i = 0; i < qs.size(); i++) {
    const std::string f = "ecn.queues[" + std::to_string(i) + "]";
    const YAML::Node q = qs[i];
    rd.RequireMap(q, f);
    rd.CheckKeys(q, f, {"ports", "speed", "priorities", "profile"});
    const YAML::Node pn = rd.Need(q, "profile", f + ".profile", "a profile from ecn.profiles");
    const std::string name = rd.Str(pn, f + ".profile");
    int16_t idx = -1;
    for (size_t k = 0; k < e.profiles.size(); k++)
      if (e.profiles[k].name == name) idx = static_cast<int16_t>(k);
    if (idx < 0) rd.Fail(pn, f + ".profile", "a profile from ecn.profiles");
    const YAML::Node pr =
        rd.Need(q, "priorities", f + ".priorities", "a list of egress priorities 0..7");
    rd.RequireSeq(pr, f + ".priorities");
    uint8_t prios = 0;
    for (size_t k = 0; k < pr.size(); k++)
      prios |= static_cast<uint8_t>(
          1u << rd.Int(pr[k], f + ".priorities[" + std::to_string(k) + "]", 0, kNumPrio - 1));
    std::vector<PortId> ports;
    const YAML::Node pl = q["ports"];
    if (!pl || (pl.IsScalar() && pl.Scalar() == "*")) {
      for (PortId p = 0; p < c->ports.size(); p++) ports.push_back(p);
    } else {
      if (!pl.IsSequence()) rd.Fail(pl, f + ".ports", "a list of port names, or \"*\" for all");
      for (size_t k = 0; k < pl.size(); k++)
        ports.push_back(PortRef(rd, pl[k], f + ".ports[" + std::to_string(k) + "]", *c));
    }
    // speed: only the listed ports of that speed (thresholds scale with the
    // link's rate: SONiC picks a port's WRED profile by its speed).
    if (q["speed"]) {
      const uint64_t bps = PortSpeed(rd, q["speed"], f + ".speed");
      std::erase_if(ports, [&](PortId p) { return c->ports[p].speed_bps != bps; });
    }
    for (PortId p : ports)
      for (int prio = 0; prio < kNumPrio; prio++)
        if (prios >> prio & 1) e.queue[p][prio] = idx;
  }
}

}  // namespace pfc::config::sections
