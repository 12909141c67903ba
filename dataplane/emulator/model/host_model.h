// SPDX-License-Identifier: BSD-3-Clause
// An emulated end host with an RDMA-NIC-like transmitter: it sends flows of
// IPv4/UDP frames tagged with a DSCP and queued in a PFC priority, honours
// received 802.1Qbb PFC (per-priority pause timers at its link speed, as a
// ConnectX NIC does), and counts what it receives per flow, with a
// throughput time series for the fabric's plots.
//
// Congestion control: a flow with `dcqcn` has its rate set by DCQCN's
// reaction point (dcqcn.h) from the CNPs it receives; every receiver is a
// notification point, sending a RoCEv2 CNP for a flow's CE-marked frames
// (at most one per interval), ahead of its data (not for a flow that runs
// one of the ACK-driven controls). An RC flow with `ack_cc` (ack_cc.h:
// HPCC, TIMELY, DCTCP) keeps to the rate and window its control sets from
// its ACKs: its data frames carry an INT trailer (net/int_trailer.h: hop
// records the switches fill, or the send time), which its receiver echoes
// in the ACK, and the ACK of a CE-marked packet carries BECN.
//
// Transport: a flow is either raw (constant-rate IPv4/UDP frames with the
// header below, no acknowledgement) or an RC queue pair (rc_qp.h) sending
// RDMA WRITE messages as RoCEv2 frames (roce_frame.h) to a responder QP
// registered at the receiving host (AddResponder), which ACKs and NAKs on
// the flow's own class. The QP number on the wire (both ends', CNPs'
// too) is QpOf(flow id): QPs 0 and 1 are InfiniBand's management QPs,
// whose payload tshark would read as MADs.
//
// Misbehaviour is one option away, for the experiments that need it:
//  * ignore_pause: received PFC frames are counted but not honoured;
//  * storm: the host keeps pausing its switch (an XOFF for the storm's
//    priorities every `interval`), the NIC-stuck case of SIGCOMM'16 §4.3.
//
// Pure code: frames are built into caller buffers and read from caller
// buffers; time is an argument. Owned by one thread (the worker that runs the
// host, or the virtual-time driver).
//
// Frames carry a small header after UDP so that the receiver can tell flows
// apart and detect loss and reordering:
//   magic "PFCF" (4) | flow id (4) | sequence (8) | send time ns (8)
// all big-endian; the rest of the frame is zero padding.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "dataplane/common/deadline.h"
#include "dataplane/emulator/model/ack_cc.h"
#include "dataplane/emulator/model/dcqcn.h"
#include "dataplane/emulator/model/link_model.h"
#include "dataplane/emulator/model/rc_qp.h"
#include "dataplane/pause/pause_timer.h"

namespace pfc::emulator {

using Mac = std::array<uint8_t, 6>;
struct RoceHeader;
struct RoceAddr;

inline constexpr uint16_t kFlowUdpPort = 7471;      // not RoCEv2's 4791: tshark
                                                    // would expect a BTH
inline constexpr uint32_t kFlowMagic = 0x50464346;  // "PFCF"
inline constexpr uint32_t kFlowHdrLen = 14 + 20 + 8 + 24;
// A raw flow's largest frame (no FCS): a jumbo port's MTU, 9216 as the
// switch config's ports[].mtu allows, plus the Ethernet header. The fabric
// file refuses frames above its switch.mtu + 14.
inline constexpr uint32_t kMaxFlowFrameLen = 9216 + 14;
inline constexpr uint32_t kQpBase = 16;  // flow 1 is QP 17, as rxe numbers its first
inline constexpr uint32_t QpOf(uint32_t flow) { return flow + kQpBase; }

// A flow as the sending host runs it. The fabric file's flows[] hold one
// each (spec/fabric_spec.h FlowSpecFile); id and dst_ip are the fabric's
// to give (spec/fabric_plan.h FlowOf).
struct FlowSpec {
  // First, with prio, rc and ack_cc: what a host's scan of its live flows
  // reads (FlowTx's first line, below).
  uint64_t start_ns = 0;
  uint64_t stop_ns = kNever;
  uint32_t id = 0;  // unique in the fabric; carried in every frame
  uint32_t dst_ip = 0;
  uint8_t dscp = 0;                     // the tag
  uint8_t prio = 0;                     // the NIC queue (pause of this priority holds it)
  uint8_t ttl = 64;                     // IPv4 TTL as sent, 1..255 (the fabric file's flows[].ttl)
  bool rc = false;                      // an RC QP (HostParams::rc); else raw frames
  AckCcMode ack_cc = AckCcMode::kNone;  // rc: HPCC, TIMELY or DCTCP on its ACKs
  uint8_t ecn = 0;                      // the ECN field as sent (0 Not-ECT, 2 ECT(0), 1 ECT(1))
  bool dcqcn = false;                   // rate controlled by DCQCN (HostParams::dcqcn) on CNPs
  uint16_t src_port = 0;                // UDP source port (ECMP entropy); 0: 0xc000 | id
  uint16_t ack_src_port = 0;   // rc: its responder's ACKs, NAKs and CNPs, the same; 0: 0xc000 | id
  uint32_t frame_len = 1000;   // raw: bytes without FCS, kFlowHdrLen..kMaxFlowFrameLen
  uint64_t base_rtt_ns = 0;    // ack_cc: the simulator's base RTT and window
  uint64_t win_bytes = 0;      // (the fabric's plan computes them)
  uint64_t rate_bps = 0;       // 0 = as fast as the link and pause allow
  uint64_t bytes = 0;          // 0 = unbounded; raw: frame bytes, rc: message data
  uint64_t message_bytes = 0;  // rc: each message's size (0: all `bytes` in one)
};

// What a host does wrong on purpose (the misbehaviour above), declared
// once: the fabric file's hosts[] (spec/fabric_spec.h HostSpec) hold it as
// the model takes it.
struct HostFaults {
  bool ignore_pause = false;
  uint8_t storm_prios = 0;  // bit i: keep priority i of the switch paused
  uint16_t storm_quanta = 0xffff;
  uint64_t storm_interval_ns = 0;  // 0 = half the pause time, like a refresh
};

struct HostParams : HostFaults {
  Mac mac{};
  uint32_t ip = 0;
  Mac gw_mac{};                                // the switch port's MAC (first hop)
  uint64_t link_bps = 0;                       // pause quanta are timed at this rate
  int32_t wire_overhead = kWireOverheadBytes;  // the link's, for pacing at a rate
  bool wire_ns3 = false;                       // the link's wire time (LinkParams)
  uint64_t storm_start_ns = 0;
  uint64_t storm_stop_ns = kNever;
  uint64_t bin_ns = 1'000'000;   // throughput time-series bin
  uint64_t series_start_ns = 0;  // where bin 0 starts; nothing is binned before it
  // DCQCN: the reaction point's parameters for the flows that use it
  // (line_bps: the link's rate), and the notification point: a CNP (RoCEv2,
  // emulator/model/roce_frame.h) on dcqcn.cnp_dscp / cnp_prio for a
  // flow's CE-marked frames, at most one per dcqcn.cnp_interval_ns.
  DcqcnParams dcqcn{};
  RcParams rc{};         // the RC QPs' MTU, ACK interval, timeout, retries
  AckCcParams ack_cc{};  // HPCC, TIMELY, DCTCP for the flows that run them
};

// A host scans its live flows on every round (HostModel::NextEventNs,
// NextFrame): at scale each flow's lines are out of cache by then, so the
// scan reads two lines a flow, this struct's first (next_ns and spec's
// start_ns, stop_ns, prio, rc, ack_cc) and its RC requester's first
// (rc_qp.h), rather than five or six. Whether rc and cc hold a value is read
// from spec (has_rc, has_cc: AddFlow emplaces them from it), not from the
// flag each optional keeps after its value, a line of its own; the model
// asks the same way on its per-frame paths too.
struct alignas(64) FlowTx {
  uint64_t next_ns = 0;  // rate limiter: earliest next frame
  FlowSpec spec;
  uint64_t gap_ns = 0;  // rate limiter: wire time of a frame at the flow's rate
  uint64_t seq = 0;
  uint64_t tx_frames = 0, tx_bytes = 0;
  std::optional<RcRequester> rc;  // spec.rc: the QP's send side
  std::optional<DcqcnRp> rp;      // spec.dcqcn: the flow's rate
  std::optional<AckCc> cc;        // spec.ack_cc: its rate and window
  uint64_t cnp_rx = 0;            // CNPs for this flow
  bool has_rc() const { return spec.rc; }
  bool has_cc() const { return spec.rc && spec.ack_cc != AckCcMode::kNone; }
  bool done() const {
    if (has_rc()) return rc->completed() || rc->failed();
    return spec.bytes != 0 && tx_bytes >= spec.bytes;
  }
};

// The NIC class of a control frame that no PFC pause holds (PFC names
// eight, 0..7): rc.ack_pausable off.
inline constexpr uint8_t kNoPauseClass = 8;

struct FlowRx {
  uint32_t id = 0;
  uint64_t frames = 0, bytes = 0;
  uint64_t next_seq = 0;   // expected next sequence number
  uint64_t lost = 0;       // sequence gaps
  uint64_t reordered = 0;  // sequence below expected
  uint64_t ce = 0;         // arrived with ECN = CE (a switch marked them)
  uint64_t cnp_tx = 0;     // CNPs sent for them (at most one per interval)
  std::optional<DcqcnNp> np;
  // An RC flow's responder (frames, bytes and bins count what it took):
  // its ACKs and NAKs go on the flow's class.
  std::optional<RcResponder> rc;
  uint8_t ack_dscp = 0, ack_prio = 0;  // ack_prio: its NIC class (kNoPauseClass: none)
  uint16_t ack_port = 0;               // UDP source port of its ACKs, NAKs and CNPs (0: AddrTo's)
  bool cnp = true;  // CNPs for its CE marks (not when its sender runs an ACK-driven control)
  uint64_t last_ns = 0;
  uint64_t sum_delay_ns = 0;       // one-way delay total, for the mean
  uint64_t min_delay_ns = kNever;  // the smallest one-way delay (fct.h)
  // Bytes received per bin_ns, from bin bin0 on (the bin of the first
  // frame): a flow that starts late in a long run keeps no empty bins.
  // Bin b starts at series_start_ns + b bin_ns (HostParams).
  uint64_t bin0 = 0;
  std::vector<uint64_t> bin_bytes;
};

struct HostCounters {
  uint64_t rx_frames = 0, rx_other = 0, rx_malformed = 0;
  uint64_t pfc_rx = 0, pfc_ignored = 0, pfc_tx = 0;
  uint64_t tx_frames = 0, tx_bytes = 0;
  uint64_t cnp_tx = 0, cnp_rx = 0, cnp_unknown = 0;  // unknown: for no flow of ours
  uint64_t ack_tx = 0, nak_tx = 0, ack_rx = 0, nak_rx = 0;
  uint64_t qp_unknown = 0;  // RC frames for no QP of ours
};

class HostModel {
 public:
  explicit HostModel(const HostParams& p);

  void AddFlow(const FlowSpec& f);
  // This host answers RC flow `id` (its receiver), ACKing on dscp/prio
  // from UDP source port ack_src_port (0: AddrTo's); `sender_cc`: the
  // control its sender runs (no CNPs for an ACK-driven one).
  void AddResponder(uint32_t id, uint8_t dscp, uint8_t prio, AckCcMode sender_cc = AckCcMode::kNone,
                    uint16_t ack_src_port = 0);
  // Run-time changes (fabric events).
  void StartFlow(uint32_t id, uint64_t now_ns);
  void StopFlow(uint32_t id, uint64_t now_ns);
  void SetIgnorePause(bool v) { p_.ignore_pause = v; }
  void SetStorm(uint8_t prios, uint64_t now_ns);

  // The next frame to put on the wire at now_ns, built into buf: a storm
  // XOFF first (*control = true), then, if data_ok (the link accepts data
  // now), data of the flows in round robin, skipping paused priorities and
  // flows limited by rate or not started. Returns the frame length, or 0
  // when nothing may be sent now.
  uint32_t NextFrame(uint64_t now_ns, uint8_t* buf, uint32_t cap, bool* control,
                     bool data_ok = true);
  // A frame that arrived at now_ns.
  void Receive(const uint8_t* frame, uint32_t len, uint64_t now_ns);

  // Earliest time NextFrame() may return something new (a flow's start or
  // rate slot, a pause expiry, the next storm frame), or kNever.
  Deadline NextEventNs(uint64_t now_ns) const;

  uint8_t PausedMask(uint64_t now_ns) const {
    return p_.ignore_pause ? 0 : pause_.PausedMask(now_ns);
  }
  const pause::PauseTimer& pause() const { return pause_; }
  const HostParams& params() const { return p_; }
  const std::vector<FlowTx>& tx_flows() const { return tx_; }
  const std::vector<FlowRx>& rx_flows() const { return rx_; }
  const FlowRx* rx_flow(uint32_t id) const;
  const HostCounters& counters() const { return c_; }

 private:
  bool Eligible(const FlowTx& f, uint8_t paused, uint64_t now_ns) const;
  uint32_t BuildData(FlowTx& f, uint64_t now_ns, uint8_t* buf, uint32_t cap);
  uint32_t BuildRc(FlowTx& f, uint64_t now_ns, uint8_t* buf, uint32_t cap);
  RoceAddr AddrTo(uint32_t ip, uint32_t flow, uint8_t dscp) const;
  void Pace(FlowTx& f, uint32_t len, uint64_t now_ns);
  FlowRx* RxOf(uint32_t id);
  void CountRx(FlowRx& r, uint32_t len, uint64_t now_ns);
  uint32_t NextControl(uint8_t paused, uint8_t* buf, uint32_t cap);
  bool ReceiveRoce(const uint8_t* frame, uint32_t len, uint64_t now_ns);
  void ReceiveWrite(const uint8_t* frame, uint32_t len, const RoceHeader& rh, uint64_t now_ns);
  void AckToCc(FlowTx& f, const uint8_t* frame, uint32_t len, const RoceHeader& rh,
               uint64_t now_ns);
  void OnCe(FlowRx& r, uint32_t src_ip, uint64_t now_ns);
  uint64_t StormInterval() const;

  HostParams p_;
  pause::PauseTimer pause_;
  std::vector<FlowTx> tx_;
  std::vector<FlowRx> rx_;
  size_t rr_ = 0;  // round-robin position among tx_
  // The flows of tx_ that started and may still send or time out, by
  // index, in order: a flow done with nothing outstanding (Retired) never
  // acts again, and a host's every frame would otherwise visit each flow it
  // ever had, each a few cache lines (NextFrame, NextEventNs). Frames find
  // their flow by id (the QP less kQpBase): the first tx_ flow, the rx_
  // entry.
  std::vector<uint32_t> live_;
  bool maybe_retired_ = false;  // a flow got done since live_ was last pruned
  // The flows of tx_ not yet started, latest start first. They join live_
  // as they start (NextFrame): a WebSearch host has most of its flows
  // still to come for most of a run, and each scan visited them all.
  std::vector<uint32_t> pending_;
  // No live QP's retransmission timeout is due before this (the earliest of
  // their timeouts at the last check, lowered when a QP starts its timer).
  uint64_t timeout_check_ns_ = 0;
  // (id, index) sorted by id; a host has few flows: a binary search in
  // one or two lines.
  using IdIndex = std::vector<std::pair<uint32_t, uint32_t>>;
  IdIndex tx_by_id_, rx_by_id_;
  uint64_t storm_next_ns_ = 0;
  uint16_t ip_id_ = 0;
  // CNPs, ACKs and NAKs to send, in order (each waits only while its own
  // class is paused): the peer's address, the flow (QP), the class; for
  // an ACK/NAK its AETH syndrome, PSN and MSN.
  struct PendingCtl {
    uint32_t ip, flow;
    uint8_t dscp, prio;
    bool cnp;
    uint8_t syndrome;
    uint32_t psn, msn;
    bool becn = false;
    uint8_t echo_len = 0;  // an ACK's echo of the data frame's INT trailer
    std::array<uint8_t, 46> echo{};
    uint16_t src_port = 0;  // its UDP source port; 0: AddrTo's
  };
  std::deque<PendingCtl> ctl_q_;
  HostCounters c_;
};

// Reads the flow header of a frame built by a HostModel (after any switch
// rewrote DSCP/TTL). False when the frame is not one.
struct FlowHeader {
  uint32_t flow = 0;
  uint64_t seq = 0, sent_ns = 0;
  uint8_t dscp = 0, ttl = 0, ecn = 0;
  uint32_t src_ip = 0;
};
bool ReadFlowHeader(const uint8_t* frame, uint32_t len, FlowHeader* out);

}  // namespace pfc::emulator
