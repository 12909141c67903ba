// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/dcfit_state.h"

namespace pfc {

namespace {

std::string ActionText(const DcfitEventRecord& r, const std::string& port) {
  const dcfit::Action& a = r.act;
  const dcfit::CheckMsg& m = a.msg;
  auto n = [](uint64_t v) { return std::to_string(v); };
  std::string s = std::string(dcfit::ActionKindName(a.kind)) + " prio=" + n(m.prio) +
                  " port=" + port + " trigger=" + n(m.tri_sw) + "/" + n(m.tri_port) +
                  ((m.flags & dcfit::kTriggerHost) ? "(host)" : "") +
                  " declared_by=" + n(m.gen_sw) + "/" + n(m.gen_port) + " seq=" + n(m.seq) +
                  " hops=" + n(m.hops) + " t_ns=" + n(a.at_ns);
  if (a.kind == dcfit::ActionKind::kHostLossy || a.kind == dcfit::ActionKind::kRateLimit)
    s += " until_ns=" + n(a.until_ns);
  if (a.kind == dcfit::ActionKind::kRateLimit) {
    s += " rate_bps=" + n(r.limit_bps) + " hitters=";
    for (int i = 0; i < r.n_hitters; i++)
      s += (i ? "," : "") + dcfit::FlowKeyText(r.hitters[i].key) + ":" + n(r.hitters[i].bytes);
    if (r.n_hitters == 0) s += "none";
  }
  return s;
}

}  // namespace

std::string DcfitEventText(const DcfitEventRecord& r, const std::string& in,
                           const std::string& out) {
  if (r.act.kind != dcfit::ActionKind::kNone) return ActionText(r, in);
  const dcfit::Event& e = r.ev;
  const dcfit::CheckMsg& m = e.msg;
  auto n = [](uint64_t v) { return std::to_string(v); };
  std::string s = std::string(dcfit::EventKindName(e.kind)) + " prio=" + n(m.prio) + " in=" + in +
                  " out=" + out + " initiator=" + n(m.gen_sw) + "/" + n(m.gen_port) +
                  " seq=" + n(m.seq) + " trigger=" + n(m.tri_sw) + "/" + n(m.tri_port) +
                  ((m.flags & dcfit::kTriggerHost) ? "(host)" : "") + " hops=" + n(m.hops) +
                  " t_ns=" + n(e.at_ns);
  if (e.kind == dcfit::EventKind::kTemporalFailed)
    s += std::string(" why=") + dcfit::FailReasonName(e.why);
  if (r.broke) s += " break=" + n(r.break_drops);
  return s;
}

}  // namespace pfc
