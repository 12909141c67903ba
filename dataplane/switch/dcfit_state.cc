// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/dcfit_state.h"

namespace pfc {

std::string DcfitEventText(const DcfitEventRecord& r, const std::string& in,
                           const std::string& out) {
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
