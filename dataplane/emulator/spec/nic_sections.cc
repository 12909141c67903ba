// SPDX-License-Identifier: BSD-3-Clause
// The fabric file's sections for the emulated RDMA NICs: dcqcn (congestion
// control) and rc (the transport), and the transport keys of a flow; and
// the time values every section reads.
#include "dataplane/emulator/spec/nic_sections.h"

#include "dataplane/emulator/model/roce_frame.h"

namespace pfc::emulator {
using config::Reader;

uint64_t Duration(const Reader& rd, const YAML::Node& n, const std::string& field) {
  uint64_t v = 0;
  if (!n.IsScalar() || !ParseDuration(n.Scalar(), &v))
    rd.Fail(n, field, "a time >= 0 such as 0, 500ns, 20us, 1.5ms or 2s");
  return v;
}

// The emulated NICs' DCQCN, with the simulator's parameter names in lower
// case (emulator/model/dcqcn.h has their meaning and defaults).
void ParseDcqcn(const Reader& rd, const YAML::Node& n, FabricSpec* s) {
  rd.RequireMap(n, "dcqcn");
  rd.CheckKeys(n, "dcqcn",
               {"rate_ai", "rate_hai", "min_rate", "ewma_gain", "alpha_resume_interval",
                "rate_decrease_interval", "rp_timer", "fast_recovery_times", "clamp_target_rate",
                "rate_on_first_cnp", "byte_counter", "cnp_interval", "cnp_dscp", "cnp_prio"});
  DcqcnParams& d = s->dcqcn;
  auto interval = [&](const char* key, uint64_t* ns) {
    if (!n[key]) return;
    *ns = Duration(rd, n[key], std::string("dcqcn.") + key);
    if (*ns == 0) rd.Fail(n[key], std::string("dcqcn.") + key, "a time > 0");
  };
  if (n["rate_ai"]) d.rate_ai_bps = rd.Rate(n["rate_ai"], "dcqcn.rate_ai");
  if (n["rate_hai"]) d.rate_hai_bps = rd.Rate(n["rate_hai"], "dcqcn.rate_hai");
  if (n["min_rate"]) d.min_rate_bps = rd.Rate(n["min_rate"], "dcqcn.min_rate");
  if (n["ewma_gain"]) d.ewma_gain = rd.Real(n["ewma_gain"], "dcqcn.ewma_gain", 0, 1);
  interval("alpha_resume_interval", &d.alpha_resume_interval_ns);
  interval("rate_decrease_interval", &d.rate_decrease_interval_ns);
  interval("rp_timer", &d.rp_timer_ns);
  interval("cnp_interval", &d.cnp_interval_ns);
  if (n["fast_recovery_times"])
    d.fast_recovery_times =
        uint32_t(rd.Int(n["fast_recovery_times"], "dcqcn.fast_recovery_times", 0, 1000));
  if (n["clamp_target_rate"])
    d.clamp_target_rate = rd.Bool(n["clamp_target_rate"], "dcqcn.clamp_target_rate");
  if (n["rate_on_first_cnp"])
    d.rate_on_first_cnp = rd.Real(n["rate_on_first_cnp"], "dcqcn.rate_on_first_cnp", 0.001, 1);
  if (n["byte_counter"])
    d.byte_counter_bytes = rd.Bytes(n["byte_counter"], "dcqcn.byte_counter", 0, uint64_t{1} << 40);
  if (n["cnp_dscp"]) s->cnp_dscp = uint8_t(rd.Int(n["cnp_dscp"], "dcqcn.cnp_dscp", 0, 63));
  if (n["cnp_prio"]) s->cnp_prio = uint8_t(rd.Int(n["cnp_prio"], "dcqcn.cnp_prio", 0, 7));
}

// The RC queue pairs' transport (emulator/model/rc_qp.h), named as the
// verbs attributes (timeout, retry_cnt) and the simulator's config
// (PACKET_PAYLOAD_SIZE as mtu, L2_ACK_INTERVAL as ack_interval, in packets).
void ParseRc(const Reader& rd, const YAML::Node& n, FabricSpec* s) {
  rd.RequireMap(n, "rc");
  rd.CheckKeys(n, "rc", {"mtu", "ack_interval", "timeout", "retry_cnt"});
  RcParams& r = s->rc;
  if (n["mtu"]) r.mtu = uint32_t(rd.Int(n["mtu"], "rc.mtu", 256, 4096));
  if (n["ack_interval"])
    r.ack_interval = uint32_t(rd.Int(n["ack_interval"], "rc.ack_interval", 1, 1 << 16));
  if (n["timeout"]) r.timeout = uint8_t(rd.Int(n["timeout"], "rc.timeout", 1, 31));
  if (n["retry_cnt"]) r.retry_cnt = uint8_t(rd.Int(n["retry_cnt"], "rc.retry_cnt", 0, 7));
}

void ParseFlowTransport(const Reader& rd, const YAML::Node& n, const std::string& f,
                        const FabricSpec& s, FlowSpecFile* fl) {
  if (n["transport"]) {
    const std::string t = rd.Str(n["transport"], f + ".transport");
    if (t != "raw" && t != "rc")
      rd.Fail(n["transport"], f + ".transport",
              "raw (UDP frames, no acknowledgement) or rc (an RC queue pair's RDMA WRITEs)");
    fl->rc = t == "rc";
  }
  if (n["message"]) {
    if (!fl->rc)
      rd.Fail(n["message"], f + ".message", "no message size on a raw flow (transport: rc)");
    fl->message_bytes = rd.Bytes(n["message"], f + ".message", 1, uint64_t{1} << 31);
  }
  if (!fl->rc) return;
  if (n["frame"])
    rd.Fail(n["frame"], f + ".frame", "no frame size on an rc flow (its packets follow rc.mtu)");
  if (!s.hosts[fl->to].device.empty())
    rd.Fail(n["to"], f + ".to",
            "an emulated host for an rc flow (its responder QP; this one is a real host on " +
                s.hosts[fl->to].device + ")");
  if (fl->bytes == 0 && fl->message_bytes == 0)
    rd.Fail(n["transport"], f + ".transport",
            "bytes or message with transport rc (an endless QP sends messages of `message` bytes)");
}

bool CheckRcFrames(const FabricSpec& s, std::string* err) {
  bool any = false;
  for (const FlowSpecFile& fl : s.flows) any |= fl.rc;
  if (!any) return true;
  const uint32_t frame = RoceWriteLen(kBthOpWriteFirst, s.rc.mtu);
  if (frame <= s.switch_mtu + 18) return true;
  *err = s.path + ": rc.mtu: " + std::to_string(s.rc.mtu) + " makes " + std::to_string(frame) +
         "-byte frames, more than the switch ports' mtu " + std::to_string(s.switch_mtu) +
         " carries; expected switch.mtu >= " + std::to_string(frame - 18) +
         " (jumbo frames) or a smaller rc.mtu";
  return false;
}

}  // namespace pfc::emulator
