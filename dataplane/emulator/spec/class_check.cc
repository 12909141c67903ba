// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/spec/class_check.h"

namespace pfc::emulator {
namespace {

// What `sw` does with DSCP d arriving from a host; "" when it queues it on
// priority `prio` as the sender asked (a lossy flow on the lossy priority
// is what its sender asked for).
std::string Fate(const config::SwitchConfig& c, const std::string& sw, uint8_t d, uint8_t prio) {
  const tables::RewriteConfig& rw = c.rewrite;
  const tables::TagMap& t = c.tag_map;
  auto queue = [&](uint8_t tag) { return t.mapped[tag] ? t.prio_of[tag] : t.lossy_prio; };
  bool matched = false;
  for (const tables::RewriteRule& r : rw.rules) matched |= (r.tags >> d) & 1;
  if (!rw.unmatched_keeps_tag && !matched && queue(rw.default_tag) != prio)
    return "no rewrite rule of " + sw + " matches DSCP " + std::to_string(d) +
           " and its `unmatched: lossy` rewrites it to DSCP " + std::to_string(rw.default_tag) +
           ", lossy (rules for another DSCP plan? see pfc-tagger tag --plan)";
  if (!t.mapped[d] && t.lossy_prio != prio)
    return sw + "'s qos.tag_map does not map DSCP " + std::to_string(d) + ": lossy, on priority " +
           std::to_string(t.lossy_prio) + ", not on the " + std::to_string(prio) +
           " the sender uses";
  if (t.mapped[d] && t.prio_of[d] != prio)
    return sw + " queues DSCP " + std::to_string(d) + " on priority " +
           std::to_string(t.prio_of[d]) +
           (t.IsLossless(t.prio_of[d]) ? " (lossless)" : " (lossy)") + ", not on the " +
           std::to_string(prio) + " the sender uses";
  return "";
}

}  // namespace

std::vector<std::string> ClassWarnings(const FabricSpec& spec, const FabricPlan& plan,
                                       const std::vector<config::SwitchConfig>& configs) {
  std::vector<std::string> out;
  // A host's one link leads to its switch; a switch of another server
  // (--here) has no config here and is not checked.
  auto switch_of = [&](uint32_t host) {
    const tagger::Node& n = spec.topo.node(host);
    return n.num_ports ? spec.topo.neighbor(n.first_port) : tagger::kNoNode;
  };
  auto config_of = [&](uint32_t sw) -> const config::SwitchConfig* {
    const int i = sw < plan.switch_index.size() ? plan.switch_index[sw] : -1;
    return i >= 0 && static_cast<size_t>(i) < configs.size() ? &configs[i] : nullptr;
  };
  bool cnp_warned = false;
  for (size_t k = 0; k < spec.flows.size(); ++k) {
    const FlowSpecFile& f = spec.flows[k];
    const std::string where = "flow " + f.name + ": ";
    const uint32_t in = switch_of(f.from), back = switch_of(f.to);
    if (const config::SwitchConfig* c = config_of(in))
      if (const std::string why = Fate(*c, spec.topo.node(in).name, f.dscp, f.prio); !why.empty())
        out.push_back(where + why);
    if (f.dcqcn && !cnp_warned)
      if (const config::SwitchConfig* c = config_of(back)) {
        const std::string sw = spec.topo.node(back).name;
        if (const std::string why = Fate(*c, sw, spec.dcqcn.cnp_dscp, spec.dcqcn.cnp_prio);
            !why.empty()) {
          out.push_back(where + "its receiver's CNPs (dcqcn.cnp_dscp " +
                        std::to_string(spec.dcqcn.cnp_dscp) + "): " + why);
          cnp_warned = true;  // once: every receiver's switch has the same template
        }
      }
  }
  return out;
}

}  // namespace pfc::emulator
