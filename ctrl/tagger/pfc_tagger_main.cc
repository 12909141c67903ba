// SPDX-License-Identifier: BSD-3-Clause
// pfc-tagger: the Tagger rule generator's command line (control program, one
// thread plus TBB workers). Subcommands: gen-topo, gen-elp, tag, verify,
// analyze. See `pfc-tagger <cmd> --help`.
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "ctrl/tagger/elp_gen.h"
#include "ctrl/tagger/greedy.h"
#include "ctrl/tagger/rules_file.h"
#include "ctrl/tagger/schemes.h"
#include "ctrl/tagger/tag_plan.h"
#include "ctrl/tagger/topo_gen.h"
#include "ctrl/tagger/verify.h"
#include "dataplane/common/cli_parse.h"
#include "pfc_version.h"

using namespace pfc::tagger;

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int Fail(const std::string& msg) {
  std::fprintf(stderr, "pfc-tagger: error: %s\n", msg.c_str());
  return 1;
}

struct TopoOpts {
  std::string file, gen;
  void Add(CLI::App* app) {
    auto* o1 = app->add_option("--topo", file, "topology file (JSON)");
    auto* o2 =
        app->add_option("--topo-gen", gen,
                        "generate instead: jellyfish:N:PORTS:SWITCH_PORTS[:SEED], fattree:K, "
                        "f10:K, leafspine:TORS:SPINES:HOSTS, bcube:N:K");
    o1->excludes(o2);
  }
  bool Load(Topology* t, std::string* err) const {
    if (!file.empty()) return LoadTopology(file, t, err);
    if (!gen.empty()) return GenTopoSpec(gen, t, err);
    *err = "give --topo FILE or --topo-gen SPEC";
    return false;
  }
};

struct ElpOpts {
  std::string file, kind;
  int per_pair = 0, bounces = 1, classes = 1, max_hops = 0;
  size_t extra = 0, max_paths = 5000000;
  uint64_t seed = 1;
  void Add(CLI::App* app, bool as_gen) {
    if (!as_gen) app->add_option("--elp", file, "ELP file (JSON)");
    app->add_option(as_gen ? "--kind" : "--elp-gen", kind,
                    "generate the ELP: shortest | clos (every walk with up to --bounces bounces, 0 "
                    "= up-down; "
                    "enumerated only for greedy, brute, analyze and gen-elp) | "
                    "trees (destination-rooted shortest-path trees, Table V)")
        ->check(CLI::IsMember({"shortest", "clos", "trees"}));
    app->add_option("--per-pair", per_pair, "shortest: at most this many paths per pair (0 = all)");
    app->add_option("--bounces", bounces, "clos: bounces allowed (k)")->capture_default_str();
    app->add_option("--extra", extra, "add this many random loop-free paths");
    app->add_option("--max-hops", max_hops, "random paths: max switch hops (0 = diameter)");
    app->add_option("--classes", classes, "application classes: the paths repeat for classes 1..N")
        ->capture_default_str();
    app->add_option("--seed", seed, "seed of trees / random paths")->capture_default_str();
    app->add_option("--max-paths", max_paths, "refuse to enumerate more paths")
        ->capture_default_str();
  }
  bool Build(const Topology& t, Elp* elp, std::string* err) const {
    if (!file.empty() && !kind.empty()) return *err = "give --elp or --elp-gen, not both", false;
    if (!file.empty()) return LoadElp(file, t, elp, err);
    if (kind.empty()) return *err = "give --elp FILE or --elp-gen KIND", false;
    if (classes < 1 || classes > 63) return *err = "--classes: expected 1..63", false;
    *elp = Elp();
    for (int c = 1; c <= classes; ++c) {
      const auto cls = static_cast<uint8_t>(c);
      if (kind == "shortest" && !GenShortestPaths(t, per_pair, seed, cls, max_paths, elp, err))
        return false;
      if (kind == "clos" && !SetClosSpec(t, bounces, cls, elp, err)) return false;
      if (kind == "trees") {
        if (classes > 1) return *err = "trees: one class only", false;
        if (t.has_relays()) return *err = "trees: topology has relay hosts", false;
        elp->trees = {true, seed, cls};
      }
      if (extra && !GenRandomPaths(t, extra, max_hops, seed + 7919 * c, cls, elp, err))
        return false;
    }
    return true;
  }
};

int LongestLinks(const Topology& t, const Elp& elp, const DestTrees* trees) {
  int best = trees && elp.trees.enabled ? trees->max_depth() + 2 : 0;
  for (const Path& p : elp.paths) {
    int l = static_cast<int>(p.nodes.size()) - 1;
    l += t.is_switch(p.nodes.front()) ? 1 : 0;
    l += t.is_switch(p.nodes.back()) ? 1 : 0;
    best = std::max(best, l);
  }
  return best;
}

void PrintRow(const char* k, const std::string& v) { std::printf("  %-26s %s\n", k, v.c_str()); }

void PrintVerify(const VerifyReport& r) {
  for (const auto& e : r.errors) std::printf("verify: ERROR: %s\n", e.c_str());
  for (const auto& n : r.notes) std::printf("verify: note: %s\n", n.c_str());
  std::printf(
      "verify: %s (lossless transitions %llu, same-tag edges %llu, ELP states %llu, "
      "extra %llu)\n",
      r.ok ? "OK" : "FAILED", (unsigned long long)r.lossless_transitions,
      (unsigned long long)r.same_tag_edges, (unsigned long long)r.elp_states,
      (unsigned long long)r.extra);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "pfc-tagger: Tagger deadlock-prevention rule generator (topology + expected lossless "
      "paths -> verified, compressed per-switch rewrite rules for pfcswitch)"};
  app.require_subcommand(1);
  app.fallthrough();  // --progress also after the subcommand
  bool progress_flag = false;
  app.add_flag("--progress", progress_flag,
               "progress bar on stderr even when it is not a terminal");

  // gen-topo
  auto* gt = app.add_subcommand("gen-topo", "generate a topology file");
  std::string gt_spec, gt_out;
  gt->add_option("spec", gt_spec,
                 "jellyfish:N:PORTS:SWITCH_PORTS[:SEED] | fattree:K | f10:K | "
                 "leafspine:TORS:SPINES:HOSTS | bcube:N:K")
      ->required();
  gt->add_option("-o,--out", gt_out, "output file")->required();

  // gen-elp
  auto* ge = app.add_subcommand("gen-elp", "generate an expected-lossless-path file");
  TopoOpts ge_topo;
  ElpOpts ge_elp;
  std::string ge_out;
  ge_topo.Add(ge);
  ge_elp.Add(ge, true);
  ge->add_option("-o,--out", ge_out, "output file")->required();

  // tag
  auto* tg = app.add_subcommand("tag", "generate, compress, verify and write Tagger rules");
  TopoOpts tg_topo;
  ElpOpts tg_elp;
  std::string algo = "greedy", out_dir;
  int clos_classes = 1, clos_bounces = 1;
  bool hairpin = false, no_verify = false;
  uint64_t budget = 0;
  tg_topo.Add(tg);
  tg_elp.Add(tg, false);  // optional for --algo clos
  tg->add_option("--algo", algo,
                 "greedy (algorithm 2) | brute (algorithm 1) | clos (bounce scheme)")
      ->check(CLI::IsMember({"greedy", "brute", "clos"}))
      ->capture_default_str();
  tg->add_option("--clos-classes", clos_classes, "clos: application classes N")
      ->capture_default_str();
  tg->add_option("--clos-bounces", clos_bounces, "clos: bounces M per class")
      ->capture_default_str();
  tg->add_option("-o,--out", out_dir, "write <dir>/<switch>.yaml rules files");
  std::string plan_file;
  const char* plan_help =
      "the operator's DSCP/priority plan (YAML): which DSCP and priority carry Tagger's tags "
      "1..N, which lossy classes pass untouched (e.g. CNPs), where the lossy fallback goes "
      "(default: tag t = DSCP t on priority t, fallback DSCP 0 on priority 0)";
  tg->add_option("--plan", plan_file, plan_help);
  tg->add_flag(
      "--hairpin-drop", hairpin,
      "switches drop packets sent back out of their ingress port: (in == out) is don't-care");
  tg->add_flag("--no-verify", no_verify, "skip the independent verification");
  auto* budget_opt =
      tg->add_option("--search-budget", budget,
                     "greedy: max edges one cycle search examines before raising the tag instead "
                     "(0 = exact; bounds run time on big networks)");
  // CLI11 would read "-1" into the unsigned budget as 2^64 - 1.
  budget_opt
      ->check(
          [](const std::string& v) {
            return v.find('-') != std::string::npos
                       ? "expected a number of edges >= 0, 0 = exact (got " + v + ")"
                       : std::string();
          },
          "EDGES")
      ->capture_default_str();

  // verify
  auto* vf = app.add_subcommand(
      "verify", "check rules files against topology and ELP; exit status 2 if they fail");
  TopoOpts vf_topo;
  ElpOpts vf_elp;
  std::string rules_dir;
  bool allow_extra = false, vf_hairpin = false;
  vf_topo.Add(vf);
  vf_elp.Add(vf, false);
  vf->add_option("--rules", rules_dir, "directory of <switch>.yaml rules files")->required();
  vf->add_flag("--allow-extra", allow_extra,
               "lossless transitions beyond the ELP are a note, not an error");
  vf->add_flag("--hairpin-drop", vf_hairpin, "ignore (in == out) transitions");
  vf->add_option("--plan", plan_file, plan_help);

  // analyze
  auto* an = app.add_subcommand(
      "analyze",
      "find a cyclic buffer dependency in plain routes (no Tagger); exit status 2 if found");
  TopoOpts an_topo;
  ElpOpts an_elp;
  an_topo.Add(an);
  an_elp.Add(an, false);

  app.set_version_flag("--version", std::string("pfc-tagger ") + PFC_VERSION);
  if (const auto rc = pfc::CliParse(app, argc, argv)) return *rc;
  if (budget_opt->count() != 0 && algo != "greedy") {
    std::fprintf(stderr, "--search-budget: applies to --algo greedy only (got --algo %s)\n",
                 algo.c_str());
    return 2;
  }
  const bool progress = progress_flag || isatty(2);
  std::string err;
  Topology topo;
  TagPlan plan;
  if (!plan_file.empty() && !LoadTagPlan(plan_file, &plan, &err)) return Fail(err);

  if (*gt) {
    if (!GenTopoSpec(gt_spec, &topo, &err) || !SaveTopology(topo, gt_out, &err)) return Fail(err);
    std::printf("wrote %s: %u nodes, %u links\n", gt_out.c_str(), topo.num_nodes(),
                topo.num_links());
    return 0;
  }
  if (*ge) {
    Elp elp;
    if (!ge_topo.Load(&topo, &err) || !ge_elp.Build(topo, &elp, &err) ||
        !ExpandClosSpec(topo, ge_elp.max_paths, &elp, &err) || !SaveElp(topo, elp, ge_out, &err))
      return Fail(err);
    std::printf("wrote %s: %zu paths%s\n", ge_out.c_str(), elp.paths.size(),
                elp.trees.enabled ? " + destination trees" : "");
    return 0;
  }
  TopoOpts& to = *tg ? tg_topo : *vf ? vf_topo : an_topo;
  ElpOpts& eo = *tg ? tg_elp : *vf ? vf_elp : an_elp;
  const double t0 = Now();
  Elp elp;
  if (!to.Load(&topo, &err)) return Fail(err);
  // The Clos scheme needs no ELP (rules follow the layers); without one,
  // there is nothing to verify against.
  const bool clos_no_elp = *tg && algo == "clos" && eo.file.empty() && eo.kind.empty();
  if (clos_no_elp)
    no_verify = true;
  else if (!eo.Build(topo, &elp, &err))
    return Fail(err);
  // Only verification and the Clos scheme take the Clos ELP implicitly; the
  // greedy, brute force and route analysis need its paths.
  if ((*an || (*tg && algo != "clos")) && !ExpandClosSpec(topo, eo.max_paths, &elp, &err))
    return Fail(err);
  DestTrees trees;
  if (elp.trees.enabled) trees.Build(topo, elp.trees.seed);
  const double t_in = Now();

  if (*an) {
    const AnalyzeReport r = AnalyzeRoutes(topo, elp, &trees);
    std::printf("%llu buffer dependencies\n%s\n", (unsigned long long)r.dependencies,
                r.text.c_str());
    return r.cycle.empty() ? 0 : 2;
  }
  if (*vf) {
    std::vector<NodeRules> by_node(topo.num_nodes());
    std::string planned;  // a file written with a plan, read without one
    for (uint32_t n = 0; n < topo.num_nodes(); ++n) {
      if (!topo.forwards(n)) continue;
      const std::string path = rules_dir + "/" + topo.node(n).name + ".yaml";
      if (access(path.c_str(), R_OK) != 0) continue;  // no file: this node has no rules
      if (!LoadRulesYaml(path, topo, n, &by_node[n], &err)) return Fail(err);
      if (!plan.given && planned.empty() && WrittenWithPlan(path)) planned = path;
      if (plan.given &&
          !ToTags(plan, NodeRules(by_node[n]), topo.node(n).num_ports, path, &by_node[n], &err))
        return Fail(err);
    }
    Progress prog(progress);
    const VerifyReport r = Verify(topo, elp, &trees, by_node, {allow_extra, vf_hairpin}, &prog);
    PrintVerify(r);
    if (!r.ok && !planned.empty())
      std::printf(
          "verify: hint: %s was written with a DSCP plan (its header lists it) and was read "
          "without one, its DSCP values as tags: verify with the same --plan FILE\n",
          planned.c_str());
    std::printf("lossless priorities: %d\n", r.priorities);
    return r.ok ? 0 : 2;
  }

  // tag
  Progress prog(progress);
  TagRules rules;
  uint64_t bumps = 0, searches = 0, budget_hits = 0;
  if (algo == "greedy") {
    GreedyResult g = RunGreedy(topo, elp, &trees, &prog, budget);
    if (g.overflow) return Fail("greedy needed more than 63 tags");
    rules = std::move(g.rules);
    bumps = g.bumps;
    searches = g.searches;
    budget_hits = g.budget_hits;
  } else if (algo == "brute") {
    if (!BruteForceTags(topo, elp, &rules, &err)) return Fail(err);
  } else {
    if (!ClosBounceTags(topo, clos_classes, clos_bounces, &rules, &err)) return Fail(err);
  }
  const double t_tag = Now();
  const TagSummary sum = Summarize(topo, rules);
  std::vector<std::vector<Rule>> comp(topo.num_nodes());
  tbb::parallel_for(uint32_t{0}, topo.num_nodes(), [&](uint32_t n) {
    if (topo.forwards(n)) comp[n] = CompressNode(topo, rules, n, hairpin);
  });
  // The other compression mode too, for comparison (cheap).
  std::vector<size_t> other(topo.num_nodes(), 0);
  tbb::parallel_for(uint32_t{0}, topo.num_nodes(), [&](uint32_t n) {
    if (topo.is_switch(n)) other[n] = CompressNode(topo, rules, n, !hairpin).size();
  });
  size_t other_max = 0, other_total = 0;
  for (uint32_t n = 0; n < topo.num_nodes(); ++n) {
    other_max = std::max(other_max, other[n]);
    other_total += other[n];
  }
  const double t_comp = Now();
  size_t max_rules = 0, total_rules = 0, nsw = 0, max_relay = 0;
  std::string max_sw;
  for (uint32_t n = 0; n < topo.num_nodes(); ++n) {
    if (!topo.forwards(n)) continue;
    if (!topo.is_switch(n)) {
      max_relay = std::max(max_relay, comp[n].size());
      continue;
    }
    ++nsw;
    total_rules += comp[n].size();
    if (comp[n].size() > max_rules) max_rules = comp[n].size(), max_sw = topo.node(n).name;
  }
  if (plan.given && sum.max_tag > static_cast<int>(plan.tags.size()))
    return Fail("the rules need " + std::to_string(sum.max_tag) + " lossless tags but the plan (" +
                plan_file + ") gives " + std::to_string(plan.tags.size()));
  if (!out_dir.empty() &&
      !WriteRuleFiles(topo, comp, sum.max_tag, out_dir, &err, plan.given ? &plan : nullptr))
    return Fail(err);
  const double t_write = Now();
  VerifyReport vr;
  if (!no_verify) {
    std::vector<NodeRules> by_node(topo.num_nodes());
    for (uint32_t n = 0; n < topo.num_nodes(); ++n) {
      if (!topo.forwards(n) || comp[n].empty()) continue;
      if (!plan.given) {
        by_node[n] = MakeNodeRules(comp[n], sum.max_tag);
        continue;
      }
      // On a plan, verify what the files say, read back as a switch reads
      // them and translated to tags (pass classes checked on the way).
      const std::string name = topo.node(n).name + ".yaml";
      NodeRules wire;
      if (!ParseRulesYaml(RulesYaml(topo, n, comp[n], sum.max_tag, &plan), name, topo, n, &wire,
                          &err) ||
          !ToTags(plan, wire, topo.node(n).num_ports, name, &by_node[n], &err))
        return Fail(err);
    }
    vr = Verify(topo, elp, &trees, by_node, {algo == "clos", hairpin}, &prog);
    PrintVerify(vr);
  }
  const double t_ver = Now();
  char buf[256];
  std::printf("Tagger summary (%s)\n", algo.c_str());
  std::snprintf(buf, sizeof buf, "%u switches, %u nodes, %u links", nsw ? unsigned(nsw) : 0u,
                topo.num_nodes(), topo.num_links());
  PrintRow("topology", buf);
  if (elp.clos.enabled)
    std::snprintf(buf, sizeof buf, "every walk with <= %d bounces, %d class(es) (not enumerated)",
                  elp.clos.bounces, __builtin_popcountll(elp.clos.classes));
  else
    std::snprintf(buf, sizeof buf, "%zu paths%s, longest %d links", elp.paths.size(),
                  elp.trees.enabled ? " + destination trees" : "", LongestLinks(topo, elp, &trees));
  PrintRow("ELP", buf);
  std::snprintf(buf, sizeof buf, "%d (tags 1..%d, %d incl. end-host-only tags)", sum.priorities,
                sum.max_tag, sum.tags_total);
  PrintRow("lossless priorities", buf);
  if (plan.given) {
    std::istringstream lines(plan.Describe(sum.max_tag));
    for (std::string l; std::getline(lines, l);) PrintRow("  plan", l);
  }
  std::snprintf(buf, sizeof buf, "max %zu (%s), mean %.1f", max_rules, max_sw.c_str(),
                nsw ? double(total_rules) / double(nsw) : 0.0);
  PrintRow(hairpin ? "rules per switch (hairpin)" : "rules per switch", buf);
  std::snprintf(buf, sizeof buf, "max %zu, mean %.1f", other_max,
                nsw ? double(other_total) / double(nsw) : 0.0);
  PrintRow(hairpin ? "  exact (in==out lossy)" : "  with --hairpin-drop", buf);
  if (max_relay) PrintRow("rules per relay host", "max " + std::to_string(max_relay));
  PrintRow("uncompressed (tag,in,out)", std::to_string(sum.triples));
  if (algo == "greedy")
    PrintRow("tag-raising rules", std::to_string(bumps) + " (" + std::to_string(searches) +
                                      " cycle searches, " + std::to_string(budget_hits) +
                                      " over budget)");
  std::snprintf(buf, sizeof buf, "input %.2f, tagging %.2f, compress %.2f, write %.2f, verify %.2f",
                t_in - t0, t_tag - t_in, t_comp - t_tag, t_write - t_comp, t_ver - t_write);
  PrintRow("seconds", buf);
  if (!out_dir.empty()) PrintRow("rules files", out_dir + "/<switch>.yaml");
  std::printf(
      "summary: priorities=%d max_rules=%zu mean_rules=%.1f other_max_rules=%zu longest=%d "
      "verified=%s\n",
      sum.priorities, max_rules, nsw ? double(total_rules) / double(nsw) : 0.0, other_max,
      LongestLinks(topo, elp, &trees),
      no_verify ? "skipped"
      : vr.ok   ? "yes"
                : "NO");
  return no_verify || vr.ok ? 0 : 2;
}
