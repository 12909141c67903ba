// SPDX-License-Identifier: BSD-3-Clause
// Top-level config loader: reads the file (and its include), parses each
// section, then cross-checks the whole (buffer fits, routes reach ports,
// lossy tag is not lossless, ...). Nothing is half-applied: the caller gets a
// complete SwitchConfig or an error.
#include "dataplane/config/config.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "dataplane/config/sections.h"
#include "dataplane/config/yaml_util.h"

namespace pfc::config {
namespace {

// The sections a rules file (an include, a runtime update, pfc-tagger's
// output) may hold; `switch` and `port_names` are informational there.
void CheckRulesFileKeys(const config::Reader& rd, const YAML::Node& root) {
  rd.CheckKeys(root, "", {"switch", "port_names", "qos", "rewrite", "routes", "neighbors"});
}

std::string Absolute(const std::filesystem::path& p) {
  return std::filesystem::absolute(p).lexically_normal().string();
}

YAML::Node LoadFile(const ReadTextFn& read, const std::string& path, const std::string& expected) {
  std::string text;
  if (!read(path, &text)) throw config::ConfigError(config::CannotOpen(path));
  return config::ParseDocument(path, text, expected);
}

// What to do about a section both files define.
std::string ClashAdvice(const std::string& sec) {
  if (sec == "qos")
    return "remove it from this file; the rules file's qos is the tag map its rules were "
           "computed for (pfc-tagger writes it; to carry your own DSCP and priority plan, give "
           "it to pfc-tagger tag --plan)";
  return "keep it in one of the two files";
}

// Applies `include:` — the included file may define qos, rewrite, routes and
// neighbors; defining a section in both files is an error. The include is
// resolved against the config file's directory and recorded as an absolute
// path, so a later reload from another working directory finds it.
YAML::Node MergeInclude(const ReadTextFn& read, const config::Reader& rd, YAML::Node root,
                        std::string* inc_path, std::set<std::string>* from_inc) {
  YAML::Node inc = root["include"];
  if (!inc) return root;
  std::string rel = rd.Str(inc, "include");
  std::filesystem::path p = std::filesystem::path(rd.file()).parent_path() / rel;
  if (std::filesystem::path(rel).is_absolute()) p = rel;
  *inc_path = Absolute(p);
  std::string text;
  if (!read(*inc_path, &text))
    rd.Fail(inc, "include",
            "a readable rules file (resolved to " + *inc_path + "): cannot open it");
  YAML::Node other =
      config::ParseDocument(*inc_path, text, "a map of sections qos, rewrite, routes, neighbors");
  config::Reader ird(*inc_path);
  CheckRulesFileKeys(ird, other);
  for (const char* sec : {"qos", "rewrite", "routes", "neighbors"}) {
    if (!other[sec]) continue;
    if (root[sec])
      throw config::ConfigError(rd.file() + ":" + config::KeyLine(root, sec) + ": " + sec +
                                ": expected the section in one file only (also defined at " +
                                *inc_path + ":" + config::KeyLine(other, sec) +
                                "): " + ClashAdvice(sec));
    root[sec] = other[sec];
    from_inc->insert(sec);
  }
  return root;
}

// Runs a loader; any config or YAML error becomes *err and false.
template <typename F>
bool Guarded(const std::string& path, std::string* err, F load) {
  try {
    load();
    return true;
  } catch (const config::ConfigError& e) {
    *err = e.what();
  } catch (const YAML::Exception& e) {
    *err = path + ": " + e.what();
  }
  return false;
}

}  // namespace

std::string CannotOpen(const std::string& path, std::string_view what) {
  return path + ": cannot open " + std::string(what) + " (expected a readable regular file)";
}

bool ReadRegularFile(const std::string& path, std::string* text) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return false;
  *text = std::move(ss).str();
  return true;
}

pause::PfcGenConfig PfcGenFor(const SwitchConfig& c, const PortConfig& p) {
  pause::PfcGenConfig gc;
  gc.lossless_mask = PortPfcMask(c, p);
  gc.port_bps = p.speed_bps;
  gc.xoff_quanta = c.pfc.pause_quanta;
  gc.refresh_fraction = c.pfc.refresh_fraction;
  gc.on_change = c.pfc.decide_on_change;
  return gc;
}

// Both LoadConfig overloads: `gen` null reads routes and neighbours from
// the file.
static bool LoadConfigWith(const std::string& path, const GeneratedTables* gen, SwitchConfig* out,
                           std::string* err, const ReadTextFn& read) {
  return Guarded(path, err, [&] {
    SwitchConfig c;
    // Recorded absolute: pfcctl re-reads it from its own working directory.
    c.path = Absolute(path);
    config::Reader rd(path);
    YAML::Node root = LoadFile(read, path, "a map with sections switch, ports, ...");
    rd.CheckKeys(root, "",
                 {"switch", "ports", "routes", "neighbors", "l2_table", "qos", "buffer", "pfc",
                  "dcfit", "pfc_watchdog", "ecn", "int", "rewrite", "include"});
    std::string inc_path;
    std::set<std::string> from_inc;
    root = MergeInclude(read, rd, root, &inc_path, &from_inc);
    c.include_path = inc_path;
    // Errors in a section taken from the include name the included file.
    config::Reader ird(inc_path);
    auto reader_for = [&](const char* sec) -> const config::Reader& {
      return from_inc.count(sec) ? ird : rd;
    };

    sections::ParseSwitch(rd, root["switch"], &c);
    sections::ParsePorts(rd, rd.Need(root, "ports", "ports", "a list of 1 to 64 ports"), &c);
    sections::ParseQos(reader_for("qos"), root["qos"], &c);
    sections::CheckPortPfc(rd, root["ports"], c);
    sections::ParsePfc(rd, root["pfc"], &c);
    sections::ParseDcfit(rd, root["dcfit"], &c);
    sections::ParsePfcWatchdog(rd, root["pfc_watchdog"], &c);
    sections::ParseBuffer(rd, root["buffer"], &c);
    sections::ParseEcn(rd, root["ecn"], &c);
    sections::ParseInt(rd, root["int"], &c);
    if (gen != nullptr) {
      for (const char* sec : {"routes", "neighbors"}) {
        if (root[sec])
          throw config::ConfigError(path + ":" + config::KeyLine(root, sec) + ": " + sec +
                                    ": expected none here (the generator gives them)");
      }
      sections::AddTables(rd, *gen, &c);
    } else {
      sections::ParseRoutes(reader_for("routes"), root["routes"], &c);
      sections::ParseNeighbors(reader_for("neighbors"), root["neighbors"], &c);
    }
    sections::ParseL2(rd, root["l2_table"], &c);
    sections::ParseRewrite(reader_for("rewrite"), root["rewrite"], &c);
    sections::Validate(rd, &c);
    *out = std::move(c);
  });
}

bool LoadConfig(const std::string& path, SwitchConfig* out, std::string* err,
                const ReadTextFn& read) {
  return LoadConfigWith(path, nullptr, out, err, read);
}

bool LoadConfig(const std::string& path, const GeneratedTables& gen, SwitchConfig* out,
                std::string* err, const ReadTextFn& read) {
  return LoadConfigWith(path, &gen, out, err, read);
}

bool LoadRulesFile(const std::string& path, const std::vector<std::string>& port_names,
                   SwitchConfig* out, std::string* err, const ReadTextFn& read) {
  return Guarded(path, err, [&] {
    SwitchConfig c;
    for (const std::string& name : port_names) c.ports.emplace_back().name = name;
    config::Reader rd(path);
    YAML::Node root = LoadFile(read, path, "a map of sections qos, rewrite");
    CheckRulesFileKeys(rd, root);  // only qos and rewrite are rules
    sections::ParseQos(rd, root["qos"], &c);
    sections::ParseRewrite(rd, root["rewrite"], &c);
    sections::ValidateRewrite(rd, &c);
    *out = std::move(c);
  });
}

bool LoadUpdate(const std::string& path, const SwitchConfig& base, SwitchConfig* out,
                std::string* err, const ReadTextFn& read) {
  return Guarded(path, err, [&] {
    SwitchConfig c = base;
    config::Reader rd(path);
    YAML::Node root = LoadFile(read, path, "a map with sections qos, rewrite, routes");
    CheckRulesFileKeys(rd, root);
    if (root["qos"]) {
      sections::ParseQos(rd, root["qos"], &c);
      // Buffers, headroom and PFC generators were sized for the lossless set.
      if (c.tag_map.lossless_mask != base.tag_map.lossless_mask)
        rd.Fail(
            root["qos"]["lossless"], "qos.lossless",
            "the running switch's lossless priorities (they size buffers; restart to change them)");
    }
    if (root["routes"]) {
      c.routes.clear();
      c.next_hops.clear();
      sections::ParseRoutes(rd, root["routes"], &c);
    }
    if (root["neighbors"]) {
      c.neighbors.clear();
      sections::ParseNeighbors(rd, root["neighbors"], &c);
    }
    if (root["rewrite"]) sections::ParseRewrite(rd, root["rewrite"], &c);
    sections::Validate(rd, &c);
    *out = std::move(c);
  });
}

}  // namespace pfc::config
