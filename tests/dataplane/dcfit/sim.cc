// SPDX-License-Identifier: BSD-3-Clause
// The DCFIT test simulation. See sim.h.
#include "tests/dataplane/dcfit/sim.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pfc::dcfit::sim {

int Sim::AddSwitch(SwitchId id, int ports) {
  Node n;
  DetectorConfig c;
  c.self = id;
  c.num_ports = ports;
  c.lossless_mask = 1 << kPrio;
  c.temporal_timeout_ns = 1'000'000;
  std::string err;
  EXPECT_TRUE(n.det.Configure(c, &err)) << err;
  n.peer.assign(ports, {-1, 0});
  n.mac = {0x02, 0, 0, 0, static_cast<uint8_t>(id >> 8), static_cast<uint8_t>(id)};
  nodes_.push_back(std::move(n));
  return static_cast<int>(nodes_.size()) - 1;
}

int Sim::AddHost() {
  Node n;
  n.host = true;
  n.peer.assign(1, {-1, 0});
  n.mac = {0x02, 0xee, 0, 0, 0, static_cast<uint8_t>(nodes_.size())};
  nodes_.push_back(std::move(n));
  return static_cast<int>(nodes_.size()) - 1;
}

void Sim::Link(int a, PortId pa, int b, PortId pb) {
  nodes_[a].peer.at(pa) = {b, pb};
  nodes_[b].peer.at(pb) = {a, pa};
}

void Sim::Queue(int node, PortId in, PortId out, int n) {
  for (int i = 0; i < n; ++i) nodes_[node].det.causality().OnEnqueue(in, out, kPrio);
}

std::vector<uint8_t> Sim::Pfc(int from, bool xoff, const CheckMsg* m) const {
  pause::PauseRequest r;
  r.class_enable = 1 << kPrio;
  r.quanta[kPrio] = xoff ? 0xffff : 0;
  std::vector<uint8_t> f(pause::kPfcFrameLen);
  const size_t n = m ? BuildPfcWithMsg(nodes_[from].mac, r, *m, f.data(), f.size())
                     : pause::BuildPfcFrame(nodes_[from].mac, r, f.data(), f.size());
  EXPECT_EQ(n, pause::kPfcFrameLen);
  return f;
}

void Sim::Send(int from, PortId p, std::vector<uint8_t> bytes) {
  const auto [to, port] = nodes_[from].peer.at(p);
  ASSERT_GE(to, 0) << "node " << from << " port " << p << " is not linked";
  wire_.push_back(Frame{to, port, std::move(bytes)});
}

void Sim::Take(int node, Output& out) {
  bool piggybacked = false;
  for (const OutMsg& m : out.msgs) {
    if (m.piggyback) {
      EXPECT_FALSE(piggybacked) << "two messages for one XOFF";
      piggybacked = true;
      continue;  // the caller puts it in its XOFF
    }
    std::vector<uint8_t> f(pause::kPfcFrameLen);
    EXPECT_EQ(BuildCheckingPacket(nodes_[node].mac, m.msg, f.data(), f.size()),
              pause::kPfcFrameLen);
    Send(node, m.port, std::move(f));
  }
  for (const Event& e : out.events) events_.push_back(Rec{node, e});
}

void Sim::Xoff(int node, PortId p) {
  Node& n = nodes_[node];
  if (n.host) {
    Send(node, p, Pfc(node, true, nullptr));
    return;
  }
  Output out;
  n.det.OnXoffSent(p, kPrio, now_, &out);
  const CheckMsg* m = nullptr;
  for (const OutMsg& o : out.msgs)
    if (o.piggyback && o.port == p) m = &o.msg;
  Send(node, p, Pfc(node, true, m));
  Take(node, out);
}

void Sim::Xon(int node, PortId p) {
  Node& n = nodes_[node];
  if (!n.host) {
    Output out;
    n.det.OnXonSent(p, kPrio, now_, &out);
    Take(node, out);
  }
  Send(node, p, Pfc(node, false, nullptr));
}

void Sim::Refresh(int node, PortId p) {
  Send(node, p, Pfc(node, true, nodes_[node].det.Piggyback(p, kPrio)));
}

bool Sim::Step() {
  if (wire_.empty()) return false;
  Frame f = std::move(wire_.front());
  wire_.pop_front();
  now_ += 1000;
  Node& n = nodes_[f.to];
  if (n.host) {
    ++to_hosts_;
    return true;
  }
  pause::PauseRequest req;
  CheckMsg msg;
  const MsgStatus st = ParseFrameMsg(f.bytes.data(), f.bytes.size(), &req, &msg);
  EXPECT_TRUE(st == MsgStatus::kOk || st == MsgStatus::kNone) << MsgStatusName(st);
  const bool has = st == MsgStatus::kOk;
  RxKind kind = RxKind::kCheckOnly;
  if (req.class_enable & (1 << kPrio)) kind = req.quanta[kPrio] ? RxKind::kXoff : RxKind::kXon;
  Output out;
  n.det.OnPfcReceived(f.port, kPrio, kind, has ? &msg : nullptr, now_, &out);
  Take(f.to, out);
  return true;
}

void Sim::Run() {
  while (Step()) {
  }
}

bool Sim::RunUntil(EventKind k) {
  const size_t seen = EventsOf(k).size();
  while (Step())
    if (EventsOf(k).size() > seen) return true;
  return false;
}

void Sim::Tick(uint64_t advance_ns) {
  now_ += advance_ns;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].host) continue;
    Output out;
    nodes_[i].det.Tick(now_, &out);
    Take(static_cast<int>(i), out);
  }
}

std::vector<Rec> Sim::EventsOf(EventKind k) const {
  std::vector<Rec> r;
  for (const Rec& e : events_)
    if (e.ev.kind == k) r.push_back(e);
  return r;
}

std::string Sim::Trace() const {
  std::ostringstream o;
  for (const Rec& r : events_) {
    const CheckMsg& m = r.ev.msg;
    o << "node " << r.node << " " << EventKindName(r.ev.kind) << " gen=" << m.gen_sw << "/"
      << int(m.gen_port) << " seq=" << m.seq << " tri=" << m.tri_sw << "/" << int(m.tri_port)
      << " flags=" << int(m.flags) << " hops=" << int(m.hops) << " in=" << r.ev.in_port
      << " out=" << r.ev.out_port << " why=" << FailReasonName(r.ev.why) << "\n";
  }
  return o.str();
}

}  // namespace pfc::dcfit::sim
