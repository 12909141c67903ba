// SPDX-License-Identifier: BSD-3-Clause
// Results gathered by rank 0 (rank_results.h).
#include "dataplane/emulator/runtime/rank_results.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace pfc::emulator {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string Cbor(const json& j) {
  const std::vector<uint8_t> b = json::to_cbor(j);
  return std::string(b.begin(), b.end());
}

}  // namespace

void SendResults(Fabric& fab, const RunFacts& facts, const Ranks& ranks) {
  ranks.Send(0, PackFacts(facts));
  fab.CloseCaptures();
  for (const auto& c : fab.captures()) {
    if (c == nullptr) continue;
    std::ifstream in(c->path, std::ios::binary);
    ranks.Send(0, std::string(std::istreambuf_iterator<char>(in), {}));
  }
  for (const SwitchRun* s : SwitchesByName(fab)) ranks.Send(0, Cbor(SwitchResults(*s)));
}

void GatherFacts(RunFacts* facts, const Ranks& ranks) {
  for (unsigned r = 1; r < ranks.size(); r++) MergeFacts(facts, UnpackFacts(ranks.Recv(r)));
}

bool GatherCaptures(const Fabric& fab, const Ranks& ranks, std::string* err) {
  const FabricSpec& spec = fab.spec();
  for (size_t i = 0; i < spec.captures.size(); i++) {
    if (fab.captures()[i] != nullptr) continue;  // written here
    const CaptureSpec& c = spec.captures[i];
    const std::string bytes = ranks.Recv(spec.parts[c.a] / spec.threads);
    const fs::path path =
        fs::path(c.file).is_absolute() ? fs::path(c.file) : fs::path(spec.out_dir) / c.file;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    if (!out) {
      *err = spec.path + ": captures: cannot write " + path.string();
      return false;
    }
  }
  return true;
}

SwitchEntries GatheredSwitchEntries(const Fabric& fab, const RunFacts& facts, const Ranks& ranks) {
  const FabricSpec& spec = fab.spec();
  // Names in order, each with the rank that runs it; rank 0's own by name.
  std::vector<std::pair<std::string, unsigned>> order;
  for (const FabricPlan::SwitchNames& n : AllSwitches(fab.plan()))
    order.emplace_back(n.name, spec.parts[n.node] / spec.threads);
  std::sort(order.begin(), order.end());
  std::map<std::string, const SwitchRun*> mine;
  for (const SwitchRun& s : fab.switches()) mine.emplace(s.sw->name, &s);
  SwitchEntries e;
  for (const auto& [name, rank] : order) e.names.push_back(name);
  const uint64_t in_use = facts.pool_in_use, size = facts.pool_share;
  e.entry = [order, mine, &ranks, in_use, size](size_t i) {
    const auto& [name, rank] = order[i];
    // Each rank sends its own in name order: the next from it is this one.
    json j =
        rank == ranks.rank() ? SwitchResults(*mine.at(name)) : json::from_cbor(ranks.Recv(rank));
    j["pool_in_use"] = in_use;
    j["pool_size"] = size;
    return j;
  };
  return e;
}

}  // namespace pfc::emulator
