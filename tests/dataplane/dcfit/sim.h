// SPDX-License-Identifier: BSD-3-Clause
// A tiny pure simulation of DCFIT switches for the unit tests: nodes
// (switches, each with a Detector, or hosts, which pause but run no DCFIT)
// joined by links, and PFC frames in flight between them. The test scripts
// the traffic mapping (Queue) and who pauses whom (Xoff / Xon / Refresh);
// the detectors decide what the frames carry. Every frame goes through the
// real wire codec (BuildPfcWithMsg / BuildCheckingPacket -> ParseFrameMsg),
// and is delivered in FIFO order, one per Step(), each Step 1 us later.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "dataplane/dcfit/detector.h"

namespace pfc::dcfit::sim {

inline constexpr int kPrio = 3;  // the lossless priority of every test

struct Rec {
  int node;
  Event ev;
};

class Sim {
 public:
  // A switch with `ports` ports and DCFIT switch id `id`; returns its node.
  int AddSwitch(SwitchId id, int ports);
  int AddHost();
  void Link(int a, PortId pa, int b, PortId pb);
  Detector& sw(int node) { return nodes_[node].det; }

  // n packets from `in` queued at egress `out` of a switch (lossless prio).
  void Queue(int node, PortId in, PortId out, int n = 1);
  // The node starts / stops pausing its peer on port p. A switch tells its
  // detector; a host just sends the frame.
  void Xoff(int node, PortId p);
  void Xon(int node, PortId p);
  // An XOFF refresh with the message the detector keeps for the port.
  void Refresh(int node, PortId p);

  bool Step();  // delivers the oldest frame; false when none in flight
  void Run();   // until none in flight
  // Steps until an event of kind k has been recorded (true) or nothing is in
  // flight (false).
  bool RunUntil(EventKind k);
  void Tick(uint64_t advance_ns);  // time passes: every detector's Tick

  uint64_t now() const { return now_; }
  const std::vector<Rec>& events() const { return events_; }
  std::vector<Rec> EventsOf(EventKind k) const;
  size_t frames_to_hosts() const { return to_hosts_; }
  std::string Trace() const;  // every event, one per line, for failure messages

 private:
  struct Node {
    bool host = false;
    Detector det;
    std::vector<std::pair<int, PortId>> peer;  // per port: (node, port), node -1 = unlinked
    std::array<uint8_t, 6> mac{};
  };
  struct Frame {
    int to;
    PortId port;
    std::vector<uint8_t> bytes;
  };
  void Take(int node, Output& out);  // queues the messages, records the events
  void Send(int from, PortId p, std::vector<uint8_t> bytes);
  std::vector<uint8_t> Pfc(int from, bool xoff, const CheckMsg* m) const;

  std::vector<Node> nodes_;
  std::deque<Frame> wire_;
  std::vector<Rec> events_;
  uint64_t now_ = 1'000'000;
  size_t to_hosts_ = 0;
};

}  // namespace pfc::dcfit::sim
