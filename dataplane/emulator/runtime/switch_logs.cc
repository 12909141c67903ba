// SPDX-License-Identifier: BSD-3-Clause
// The switches' events printed (switch_logs.h).
#include "dataplane/emulator/runtime/switch_logs.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace pfc::emulator {

SwitchLogs::SwitchLogs(const Fabric& fab) : printers_(fab.switches().size()) {
  const std::vector<SwitchRun>& sws = fab.switches();
  auto by_id = std::make_shared<std::unordered_map<uint64_t, const sw::Switch*>>();
  for (size_t i = 0; i < sws.size(); i++) {
    const int32_t id = sws[i].sw->cfg.dcfit.switch_id;
    (*by_id)[id < 0 ? i : uint64_t(id)] = sws[i].sw.get();
  }
  for (sw::EventPrinter& p : printers_)
    p.namer = [by_id](uint64_t id, uint64_t port) {
      const auto it = by_id->find(id);
      if (it == by_id->end() || port >= it->second->ports.size())
        return "switch " + std::to_string(id) + " port " + std::to_string(port);
      return it->second->name + " port " + it->second->ports[port].name;
    };
}

void SwitchLogs::Print(const Fabric& fab) {
  const std::vector<SwitchRun>& sws = fab.switches();
  for (size_t i = 0; i < sws.size(); i++) printers_[i].Print(*sws[i].sw);
}

}  // namespace pfc::emulator
