// SPDX-License-Identifier: BSD-3-Clause
// The congestion controls an RC flow runs on its ACKs, as the HPCC work's
// simulator defines them (rdma-hw.cc): HPCC (hpcc.h: a window and rate from
// the INT records its receiver echoes), HPCC-PINT (hpcc_pint.h: a rate from
// the one utilisation value its receiver echoes), TIMELY (timely.h: a rate from the
// RTT its receiver's echo of the send timestamp gives) and DCTCP (dctcp.h:
// a window and rate from the ECN echoes, BECN on the ACKs here). DCQCN,
// which reacts to CNPs and its own timers, stays apart (dcqcn.h).
//
// One per flow, behind one interface for the host (host_model.h): what a
// data frame must carry (an INT trailer of hop records, a timestamp, or
// nothing), an ACK's news, and the rate and window the sender keeps to.
// Pure code; owned by the thread that runs the host.
#pragma once
#include <cstdint>
#include <variant>

#include "dataplane/emulator/model/dctcp.h"
#include "dataplane/emulator/model/hpcc.h"
#include "dataplane/emulator/model/hpcc_pint.h"
#include "dataplane/emulator/model/timely.h"

namespace pfc::emulator {

enum class AckCcMode : uint8_t { kNone, kHpcc, kTimely, kDctcp, kHpccPint };

// The fabric file's name of a mode ("hpcc", "timely", "dctcp",
// "hpcc_pint"; "none").
const char* AckCcName(AckCcMode m);

// Every mode's parameters (the fabric file's hpcc, timely and dctcp
// sections); line rates are the host's.
struct AckCcParams {
  HpccParams hpcc{};
  TimelyParams timely{};
  DctcpParams dctcp{};
};

class AckCc {
 public:
  // A flow of `mode` on a link of line_bps, with the simulator's base RTT
  // and window for it (its path's, or the largest of the fabric's with
  // GLOBAL_T) and the RC MTU; seed: the flow's own draws (HPCC-PINT's
  // PINT_PROB).
  AckCc(AckCcMode mode, const AckCcParams& p, uint64_t line_bps, uint64_t base_rtt_ns,
        uint64_t win_bytes, uint32_t mtu, uint64_t seed = 0);

  AckCcMode mode() const { return mode_; }
  // The trailer kind each data frame carries (net/int_trailer.h): kIntHops
  // for HPCC, kIntPint for HPCC-PINT, kIntTs for TIMELY, 0 for none; and
  // its unit multiplier.
  uint8_t trailer_kind() const;
  uint32_t int_multi() const;

  // An ACK (or NAK) arrived at now_ns: acked, the bytes acknowledged (the
  // ACK's sequence), sent, the bytes sent so far (after any go-back-N
  // rewind), trailer, the echoed INT trailer it carries (nullptr: none),
  // becn, its BTH BECN bit.
  void OnAck(uint64_t now_ns, uint64_t acked, uint64_t sent, const uint8_t* trailer, bool becn);

  // The rate the pacer spaces the flow's packets at.
  uint64_t pace_bps() const;
  // Bytes the flow may have unacknowledged (0: no window).
  uint64_t window_bytes() const;

  const HpccRp* hpcc() const { return std::get_if<HpccRp>(&rp_); }
  const HpccPintRp* hpcc_pint() const { return std::get_if<HpccPintRp>(&rp_); }
  const TimelyRp* timely() const { return std::get_if<TimelyRp>(&rp_); }
  const DctcpRp* dctcp() const { return std::get_if<DctcpRp>(&rp_); }
  uint64_t acks_without_echo() const { return no_echo_; }

 private:
  AckCcMode mode_;
  uint64_t line_bps_;
  uint32_t multi_ = 1;
  std::variant<std::monostate, HpccRp, TimelyRp, DctcpRp, HpccPintRp> rp_;
  uint64_t no_echo_ = 0;  // HPCC(-PINT) / TIMELY ACKs that carried no echo (counted, ignored)
};

}  // namespace pfc::emulator
