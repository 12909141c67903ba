// SPDX-License-Identifier: BSD-3-Clause
#include "ctrl/tagger/tag_plan.h"

#include <yaml-cpp/yaml.h>

#include "dataplane/config/config.h"
#include "dataplane/config/yaml_util.h"

namespace pfc::tagger {
namespace {

uint64_t Bit(unsigned b) { return uint64_t{1} << b; }

WireClass ReadClass(const config::Reader& rd, const YAML::Node& n, const std::string& field) {
  rd.RequireMap(n, field);
  rd.CheckKeys(n, field, {"dscp", "priority"});
  WireClass c;
  c.dscp = static_cast<uint8_t>(
      rd.Int(rd.Need(n, "dscp", field + ".dscp", "a DSCP 0..63"), field + ".dscp", 0, 63));
  c.prio = static_cast<uint8_t>(rd.Int(
      rd.Need(n, "priority", field + ".priority", "a priority 0..7"), field + ".priority", 0, 7));
  return c;
}

std::string Cls(const WireClass& c) {
  return "DSCP " + std::to_string(c.dscp) + " (priority " + std::to_string(c.prio) + ")";
}

}  // namespace

TagPlan TagPlan::Identity() {
  TagPlan p;
  for (uint8_t t = 1; t <= 7; ++t) p.tags.push_back({t, t});
  return p;
}

bool TagPlan::IsPass(uint8_t dscp) const {
  for (const WireClass& c : pass)
    if (c.dscp == dscp) return true;
  return false;
}

int TagPlan::TagOf(uint8_t dscp) const {
  if (dscp == lossy.dscp) return 0;
  for (size_t i = 0; i < tags.size(); ++i)
    if (tags[i].dscp == dscp) return static_cast<int>(i + 1);
  return -1;
}

std::string TagPlan::Describe(int max_tag) const {
  std::string s;
  for (int t = 1; t <= max_tag && t <= static_cast<int>(tags.size()); ++t)
    s += "tag " + std::to_string(t) + ": " + Cls(tags[t - 1]) + ", lossless\n";
  for (const WireClass& c : pass) s += "pass: " + Cls(c) + ", lossy, kept\n";
  return s + "lossy fallback: " + Cls(lossy) + "\n";
}

bool ParseTagPlan(const std::string& text, const std::string& file, TagPlan* plan,
                  std::string* err) {
  try {
    const config::Reader rd(file);
    const YAML::Node root = config::ParseDocument(file, text, "a map of tags, pass and lossy");
    rd.CheckKeys(root, "", {"tags", "pass", "lossy"});
    TagPlan p;
    p.given = true;
    const YAML::Node tags = rd.Need(root, "tags", "tags", "a list of 1..7 {dscp, priority}");
    rd.RequireSeq(tags, "tags");
    if (tags.size() < 1 || tags.size() > 7)
      rd.Fail(tags, "tags", "1..7 lossless classes (a switch has 8 priorities, one is lossy)");
    for (size_t i = 0; i < tags.size(); ++i)
      p.tags.push_back(ReadClass(rd, tags[i], "tags[" + std::to_string(i) + "]"));
    if (const YAML::Node pass = root["pass"]) {
      rd.RequireSeq(pass, "pass");
      for (size_t i = 0; i < pass.size(); ++i)
        p.pass.push_back(ReadClass(rd, pass[i], "pass[" + std::to_string(i) + "]"));
    }
    if (root["lossy"]) p.lossy = ReadClass(rd, root["lossy"], "lossy");

    // Distinct DSCPs everywhere; the tags' priorities distinct and used by
    // nothing else (a pass class or the fallback on a lossless priority
    // would be lossless without Tagger's protection).
    uint64_t dscps = Bit(p.lossy.dscp);
    uint8_t tag_prios = 0;
    auto dscp_once = [&](const YAML::Node& n, const std::string& f, uint8_t d) {
      if (dscps & Bit(d))
        rd.Fail(n, f, "a DSCP no other class of the plan uses (" + std::to_string(d) + " is)");
      dscps |= Bit(d);
    };
    for (size_t i = 0; i < p.tags.size(); ++i) {
      const std::string f = "tags[" + std::to_string(i) + "]";
      dscp_once(tags[i]["dscp"], f + ".dscp", p.tags[i].dscp);
      if ((tag_prios >> p.tags[i].prio) & 1)
        rd.Fail(tags[i]["priority"], f + ".priority",
                "a priority of its own (each lossless tag needs one)");
      tag_prios |= static_cast<uint8_t>(1u << p.tags[i].prio);
    }
    if ((tag_prios >> p.lossy.prio) & 1)
      rd.Fail(root["lossy"] ? root["lossy"]["priority"] : root, "lossy.priority",
              "a priority no tag uses (the fallback is lossy)");
    for (size_t i = 0; i < p.pass.size(); ++i) {
      const std::string f = "pass[" + std::to_string(i) + "]";
      dscp_once(root["pass"][i]["dscp"], f + ".dscp", p.pass[i].dscp);
      if ((tag_prios >> p.pass[i].prio) & 1)
        rd.Fail(root["pass"][i]["priority"], f + ".priority",
                "a priority no tag uses (pass classes are lossy: a lossless class Tagger does "
                "not tag could deadlock)");
    }
    *plan = std::move(p);
    return true;
  } catch (const config::ConfigError& e) {
    *err = e.what();
    return false;
  }
}

bool LoadTagPlan(const std::string& path, TagPlan* plan, std::string* err) {
  std::string text;
  if (!pfc::config::ReadRegularFile(path, &text)) {
    *err = pfc::config::CannotOpen(path, "plan file");
    return false;
  }
  return ParseTagPlan(text, path, plan, err);
}

std::vector<Rule> ToWire(const TagPlan& plan, const std::vector<Rule>& rules, uint32_t nports) {
  std::vector<Rule> out;
  out.reserve(rules.size() + plan.pass.size());
  for (Rule r : rules) {
    uint64_t wire = 0;
    for (uint64_t m = r.tags; m; m &= m - 1) wire |= Bit(plan.DscpOf(__builtin_ctzll(m)));
    r.tags = wire;
    r.new_tag = plan.DscpOf(r.new_tag);
    out.push_back(r);
  }
  for (const WireClass& c : plan.pass)
    out.push_back({Bit(c.dscp), AllPorts(nports), AllPorts(nports), c.dscp, 0});
  return out;
}

bool ToTags(const TagPlan& plan, const NodeRules& wire, uint32_t nports, const std::string& where,
            NodeRules* tags, std::string* err) {
  auto fail = [&](const std::string& s) {
    *err = where + ": " + s;
    return false;
  };
  auto prio = [&](uint8_t d) {
    return wire.prio_of_tag[d] >= 0 ? static_cast<uint8_t>(wire.prio_of_tag[d]) : wire.lossy_prio;
  };
  auto lossless_prio = [&](uint8_t p) { return (wire.lossless_prios >> p) & 1; };
  NodeRules nr;
  nr.present = wire.present;
  nr.keep_unmatched = wire.keep_unmatched;
  nr.lossy_tag = 0;
  nr.lossy_prio = wire.lossy_prio;
  // qos: the plan's classes on the plan's priorities, nothing else mapped.
  if (wire.lossy_tag != plan.lossy.dscp)
    return fail("qos.lossy_tag is " + std::to_string(wire.lossy_tag) + ", the plan's fallback is " +
                Cls(plan.lossy));
  for (int d = 0; d < 64; ++d) {
    const auto dscp = static_cast<uint8_t>(d);
    const int tg = plan.TagOf(dscp);
    const bool mapped = wire.prio_of_tag[d] >= 0;
    if (tg < 0 && !plan.IsPass(dscp)) {
      if (!mapped) continue;  // lossy, as the plan has it
      return fail("qos.tag_map maps DSCP " + std::to_string(d) + ", which the plan does not name");
    }
    if (tg > 0 && !mapped) continue;  // a tag these rules do not use
    const WireClass want = tg > 0    ? plan.tags[tg - 1]
                           : tg == 0 ? plan.lossy
                                     : [&] {
                                         for (const WireClass& c : plan.pass)
                                           if (c.dscp == dscp) return c;
                                         return WireClass{};
                                       }();
    if (prio(dscp) != want.prio || lossless_prio(want.prio) != (tg > 0))
      return fail("qos puts DSCP " + std::to_string(d) + " on priority " +
                  std::to_string(prio(dscp)) + (lossless_prio(prio(dscp)) ? " (lossless)" : "") +
                  ", the plan on " + std::to_string(want.prio) +
                  (tg > 0 ? " (lossless)" : " (lossy)"));
    nr.prio_of_tag[tg > 0 ? tg : 0] = static_cast<int8_t>(prio(dscp));
  }
  for (int p = 0; p < 8; ++p) {
    bool ok = !lossless_prio(static_cast<uint8_t>(p));
    for (const WireClass& c : plan.tags) ok |= c.prio == p;
    if (!ok) return fail("qos.lossless has priority " + std::to_string(p) + ", no tag of the plan");
  }
  nr.lossless_prios = wire.lossless_prios;
  // Pass classes untouched on every (in, out) pair, whatever rule matches.
  for (const WireClass& c : plan.pass)
    for (uint32_t i = 0; i < nports; ++i)
      for (uint32_t o = 0; o < nports; ++o)
        if (const uint8_t y = wire.Lookup(c.dscp, i, o); y != c.dscp)
          return fail("pass class " + Cls(c) + " is rewritten to DSCP " + std::to_string(y) +
                      " from port " + std::to_string(i) + " to port " + std::to_string(o));
  for (size_t k = 0; k < wire.rules.size(); ++k) {
    const Rule& r = wire.rules[k];
    Rule t = r;
    t.tags = 0;
    for (uint64_t m = r.tags; m; m &= m - 1) {
      const auto d = static_cast<uint8_t>(__builtin_ctzll(m));
      const int tg = plan.TagOf(d);
      if (tg >= 0)
        t.tags |= Bit(static_cast<unsigned>(tg));
      else if (!plan.IsPass(d))
        return fail("a rule matches DSCP " + std::to_string(d) + ", which the plan does not name");
    }
    if (!t.tags) continue;  // a pass class's own rule, checked above
    const int y = plan.TagOf(r.new_tag);
    if (y < 0)
      return fail("a rule writes DSCP " + std::to_string(r.new_tag) +
                  (plan.IsPass(r.new_tag) ? ", a pass class," : "") +
                  " into Tagger's tags; expected a tag of the plan or its fallback");
    t.new_tag = static_cast<uint8_t>(y);
    nr.rules.push_back(t);
  }
  *tags = std::move(nr);
  return true;
}

}  // namespace pfc::tagger
