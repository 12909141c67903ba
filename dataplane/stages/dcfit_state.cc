// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/stages/dcfit_state.h"

#include <cstdio>

#include "dataplane/switch/switch.h"

namespace pfc::stages {

namespace {

std::string N(uint64_t v) { return std::to_string(v); }

std::string Ms(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f ms", static_cast<double>(ns) / 1e6);
  return b;
}

std::string Name(const sw::DcfitNamer& namer, uint64_t sw, uint64_t port) {
  return namer ? namer(sw, port) : "switch " + N(sw) + " port " + N(port);
}

// "declared by S2 port L1 (seq 5), trigger S1 port H3 (a host), 4 hops".
std::string Episode(const dcfit::CheckMsg& m, const sw::DcfitNamer& namer, const char* gen_word) {
  return std::string(gen_word) + " " + Name(namer, m.gen_sw, m.gen_port) + " (seq " + N(m.seq) +
         "), trigger " + Name(namer, m.tri_sw, m.tri_port) +
         ((m.flags & dcfit::kTriggerHost) ? " (a host)" : "") + ", " + N(m.hops) + " hops";
}

std::string ActionText(const DcfitEventRecord& r, const std::string& port,
                       const sw::DcfitNamer& namer) {
  const dcfit::Action& a = r.act;
  std::string s = std::string(dcfit::ActionKindName(a.kind)) + " on priority " + N(a.msg.prio) +
                  " at port " + port + ": " + Episode(a.msg, namer, "declared by") + ", at " +
                  Ms(a.at_ns);
  if (a.kind == dcfit::ActionKind::kHostLossy || a.kind == dcfit::ActionKind::kRateLimit)
    s += ", until " + Ms(a.until_ns);
  if (a.kind == dcfit::ActionKind::kRateLimit) {
    s += ", " + N(r.limit_bps) + " b/s for hitters ";
    for (int i = 0; i < r.n_hitters; i++)
      s += (i ? "," : "") + dcfit::FlowKeyText(r.hitters[i].key) + ":" + N(r.hitters[i].bytes);
    if (r.n_hitters == 0) s += "none";
  }
  return s;
}

}  // namespace

std::string DcfitEventText(const DcfitEventRecord& r, const std::string& in, const std::string& out,
                           const sw::DcfitNamer& namer) {
  if (r.act.kind != dcfit::ActionKind::kNone) return ActionText(r, in, namer);
  const dcfit::Event& e = r.ev;
  const dcfit::CheckMsg& m = e.msg;
  std::string s = std::string(dcfit::EventKindName(e.kind)) + " on priority " + N(m.prio) + ": ";
  switch (e.kind) {
    case dcfit::EventKind::kLoopFound:
    case dcfit::EventKind::kDeadlock:
    case dcfit::EventKind::kTemporalFailed:
      // in_port: paused by its downstream; out_port (P_gen-ini): pauses its
      // upstream (detector.h).
      s += "our egress to " + in + " is paused, we pause " + out + " upstream; " +
           Episode(m, namer, "declared by");
      break;
    default:  // trigger, middle initiator: the episode starts on out_port
      s += "episode starts at port " + out + "; " + Episode(m, namer, "initiator");
  }
  s += ", at " + Ms(e.at_ns);
  if (e.kind == dcfit::EventKind::kTemporalFailed)
    s += std::string(", no deadlock: ") + dcfit::FailReasonName(e.why);
  if (r.broke) s += "; broke the loop: " + N(r.break_drops) + " frames dropped";
  return s;
}

void SwitchDcfit::PrintEvents(const sw::Switch& sw, uint64_t* seen,
                              const sw::PortNamer& namer) const {
  log.ForEachSince(seen, [&](const DcfitEventRecord& r) {
    // (An action record has in_port = out_port = its port.)
    sw::EventLine(
        sw::pfc_logtype_dcfit, sw, "dcfit",
        DcfitEventText(r, sw.ports[r.ev.in_port].name, sw.ports[r.ev.out_port].name, namer));
  });
}

const char* SwitchDcfit::ReportCounters(Counters* out) const {
  const dcfit::DetectorCounters& c = det.counters();
  *out = {{"rx", c.rx},
          {"tx", c.tx},
          {"repeat", c.repeat},
          {"outranked", c.outranked},
          {"no_delta", c.no_delta},
          {"not_paused", c.not_paused},
          {"stale", c.stale},
          {"bad", c.bad},
          {"temporal_dropped", c.temporal_dropped}};
  return "dcfit_detector";
}

}  // namespace pfc::stages
