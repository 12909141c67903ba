// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/log.h"

#include "dataplane/switch/switch.h"

namespace pfc::sw {

RTE_LOG_REGISTER(pfc_logtype_switch, pfc.switch, INFO);
RTE_LOG_REGISTER(pfc_logtype_worker, pfc.worker, INFO);
RTE_LOG_REGISTER(pfc_logtype_dcfit, pfc.dcfit, INFO);
RTE_LOG_REGISTER(pfc_logtype_pfcwd, pfc.pfcwd, INFO);
RTE_LOG_REGISTER(pfc_logtype_fabric, pfc.fabric, INFO);

void EventLine(int type, const Switch& sw, const char* module, const std::string& text) {
  if (sw.name.empty())
    rte_log(RTE_LOG_INFO, type, "pfcswitch: %s: %s\n", module, text.c_str());
  else
    rte_log(RTE_LOG_INFO, type, "pfcswitch: %s[%s]: %s\n", module, sw.name.c_str(), text.c_str());
}

DcfitNamer OwnDcfitNamer(const Switch& sw) {
  const uint64_t own = sw.cfg.dcfit.switch_id < 0 ? 0 : uint64_t(sw.cfg.dcfit.switch_id);
  return [&sw, own](uint64_t id, uint64_t port) {
    if (id == own && port < sw.ports.size()) return "this switch port " + sw.ports[port].name;
    return "switch " + std::to_string(id) + " port " + std::to_string(port);
  };
}

void EventPrinter::Print(const Switch& sw) {
  if (!namer) namer = OwnDcfitNamer(sw);
  for (int i = 0; i < kMaxMechanisms; i++)
    if (sw.mech[i] != nullptr) sw.mech[i]->PrintEvents(sw, &mech_seen_[i], namer);
}

}  // namespace pfc::sw
