// SPDX-License-Identifier: BSD-3-Clause
// The fabric file's sections for the emulated RDMA NICs: dcqcn (congestion
// control) and rc (the transport), and the transport keys of a flow; and
// the time values every section reads.
#include "dataplane/emulator/spec/nic_sections.h"

#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "dataplane/emulator/model/roce_frame.h"
#include "dataplane/net/int_trailer.h"

namespace pfc::emulator {
using config::Reader;

uint64_t Duration(const Reader& rd, const YAML::Node& n, const std::string& field) {
  uint64_t v = 0;
  if (!n.IsScalar() || !ParseDuration(n.Scalar(), &v))
    rd.Fail(n, field, "a time >= 0 such as 0, 500ns, 20us, 1.5ms or 2s");
  return v;
}

namespace {

// A section read through its parameter table (model/params.h): every key
// the table has, each by its kind, as "section.key" in messages.
template <typename S>
void ParseParams(const Reader& rd, const YAML::Node& n, const std::string& section,
                 std::span<const Param<S>> params, S* out) {
  rd.RequireMap(n, section);
  std::vector<const char*> keys;
  for (const Param<S>& p : params) keys.push_back(p.key);
  rd.CheckKeys(n, section, std::span<const char* const>(keys));
  for (const Param<S>& p : params) {
    const YAML::Node v = n[p.key];
    if (!v) continue;
    const std::string f = section + "." + p.key;
    double x = 0;
    switch (p.kind) {
      case ParamKind::kRate:
        x = static_cast<double>(rd.Rate(v, f));
        break;
      case ParamKind::kInterval:
        x = static_cast<double>(Duration(rd, v, f));
        if (x == 0) rd.Fail(v, f, "a time > 0");
        break;
      case ParamKind::kTimeOrOff:
        x = static_cast<double>(Duration(rd, v, f));
        break;
      case ParamKind::kReal:
        x = rd.Real(v, f, p.lo, p.hi);
        break;
      case ParamKind::kInt:
        x = static_cast<double>(
            rd.Int(v, f, static_cast<int64_t>(p.lo), static_cast<int64_t>(p.hi)));
        break;
      case ParamKind::kBool:
        x = rd.Bool(v, f) ? 1 : 0;
        break;
      case ParamKind::kBytes:
        x = static_cast<double>(
            rd.Bytes(v, f, static_cast<uint64_t>(p.lo), static_cast<uint64_t>(p.hi)));
        break;
    }
    std::visit(
        [&](auto m) {
          using T = std::remove_reference_t<decltype(out->*m)>;
          out->*m = static_cast<T>(x);
        },
        p.field);
  }
}

}  // namespace

// The emulated NICs' DCQCN (emulator/model/dcqcn.cc has the table).
void ParseDcqcn(const Reader& rd, const YAML::Node& n, FabricSpec* s) {
  ParseParams(rd, n, "dcqcn", DcqcnParamTable(), &s->dcqcn);
}

// The RC queue pairs' transport (emulator/model/rc_qp.cc has the table).
void ParseRc(const Reader& rd, const YAML::Node& n, FabricSpec* s) {
  ParseParams(rd, n, "rc", RcParamTable(), &s->rc);
}

// The ACK-driven controls' sections (their model files have the tables).
void ParseAckCc(const Reader& rd, const YAML::Node& n, const char* section, FabricSpec* s) {
  const std::string name = section;
  if (name == "hpcc")
    ParseParams(rd, n, section, HpccParamTable(), &s->ack_cc.hpcc);
  else if (name == "timely")
    ParseParams(rd, n, section, TimelyParamTable(), &s->ack_cc.timely);
  else
    ParseParams(rd, n, section, DctcpParamTable(), &s->ack_cc.dctcp);
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
  if (!fl->rc) {
    if (fl->ack_cc != AckCcMode::kNone)
      rd.Fail(n["cc"], f + ".cc",
              std::string("transport: rc with cc: ") + AckCcName(fl->ack_cc) +
                  " (it runs on the RC queue pair's ACKs)");
    return;
  }
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
  bool any = false, trailer = false;
  for (const FlowSpecFile& fl : s.flows) {
    any |= fl.rc;
    trailer |= fl.ack_cc != AckCcMode::kNone;
  }
  if (!any) return true;
  // An ACK-driven control's INT trailer rides after the datagram.
  const uint32_t frame =
      RoceWriteLen(kBthOpWriteFirst, s.rc.mtu) + (trailer ? net::kIntHopsBytes : 0);
  if (frame <= s.switch_mtu + 18) return true;
  *err = s.path + ": rc.mtu: " + std::to_string(s.rc.mtu) + " makes " + std::to_string(frame) +
         "-byte frames, more than the switch ports' mtu " + std::to_string(s.switch_mtu) +
         " carries; expected switch.mtu >= " + std::to_string(frame - 18) +
         " (jumbo frames) or a smaller rc.mtu";
  return false;
}

}  // namespace pfc::emulator
