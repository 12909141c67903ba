// SPDX-License-Identifier: BSD-3-Clause
// The fabric's builder (fabric_builder.h): one step a member, each filling
// the container's part it names, in the order the header gives.
#include "dataplane/emulator/runtime/fabric_builder.h"

#include <rte_mbuf_dyn.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "dataplane/config/eal_needs.h"
#include "dataplane/emulator/runtime/memory_budget.h"
#include "dataplane/net/int_trailer.h"
#include "dataplane/pfcswitch/telemetry.h"
#include "dataplane/switch/mbuf_pool.h"

namespace pfc::emulator {
namespace fs = std::filesystem;

class FabricBuilder {
 public:
  FabricBuilder(const FabricSpec& spec, const FabricPlan& plan,
                const std::vector<config::SwitchConfig>& configs)
      : spec_(spec),
        plan_(plan),
        configs_(configs),
        f_(new Fabric(spec, plan)),
        budget_(spec.memory_limit),
        virt_(f_->virtual_clock()) {}

  std::unique_ptr<Fabric> Build(unsigned workers, std::string* err) {
    if (!Links(err) || !Captures(err)) return nullptr;
    IndexEmuPorts();
    if (!Pool(workers, err) || !Switches(err)) return nullptr;
    Hosts();
    // The pool grows into what the switches left of the budget.
    sw::Dataplane& dp = *f_->dp_;
    if (dp.grow_on_empty && budget_.budget() != 0) {
      const rte_mempool* mp = dp.pool;
      dp.grow_limit =
          mp->populated_size + budget_.Left() / (mp->header_size + mp->elt_size + mp->trailer_size);
    }
    pfcswitch::RegisterTelemetry(f_->SwitchList());
    return std::move(f_);
  }

 private:
  // An EmuPort for every end whose link is emulated here, the two ends
  // connected.
  bool Links(std::string* err) {
    const tagger::Topology& t = spec_.topo;
    // A stepped clock: each frame's landing time, in the mbuf (EmuPort::set_stepped).
    int landed_off = -1;
    if (spec_.quantum_ns != 0) {
      static const rte_mbuf_dynfield kLanded = {"pfcfabric_landed_ns", sizeof(uint64_t),
                                                alignof(uint64_t), 0};
      landed_off = rte_mbuf_dynfield_register(&kLanded);
      if (landed_off < 0) {
        *err = "cannot register the mbuf field of a frame's landing time (fabric.quantum)";
        return false;
      }
    }
    f_->ports_.resize(t.num_nodes());
    for (uint32_t n = 0; n < t.num_nodes(); n++) f_->ports_[n].resize(t.node(n).num_ports);
    for (uint32_t g0 : t.link_order()) {
      const uint32_t ends[2] = {g0, t.peer(g0)};
      if (!spec_.Local(t.port_node(ends[0])) && !spec_.Local(t.port_node(ends[1])))
        continue;  // runs on another server (--here)
      // A link on devices is on devices at both ends (spec/fabric_plan.h
      // CheckLinkDevices, when the file was loaded): nothing to emulate.
      if (LinkEndOnDevice(spec_, t.port_node(ends[0]), t.port_node(ends[1]))) continue;
      EmuPort* end[2];
      for (int e = 0; e < 2; e++) {
        const uint32_t node = t.port_node(ends[e]);
        auto port = std::make_unique<EmuPort>(
            "n" + std::to_string(node) + "p" + std::to_string(t.local(ends[e])),
            LinkOf(node, t.neighbor(ends[e])));
        if (!port->Init(err)) return false;
        if (spec_.quantum_ns != 0 && t.node(node).kind == tagger::NodeKind::kSwitch)
          port->set_stepped(spec_.quantum_ns, landed_off);
        end[e] = port.get();
        f_->ports_[node][t.local(ends[e])] = std::move(port);
      }
      end[0]->Connect(end[1]);
      end[1]->Connect(end[0]);
    }
    return true;
  }

  // The link from `node` towards `peer` as the file sets it, its transmit
  // FIFO sized for the clock's step.
  LinkParams LinkOf(uint32_t node, uint32_t peer) const {
    LinkParams lp;
    std::string dev;
    LinkParamsOf(spec_, node, peer, &lp.rate_bps, &lp.delay_ns, &dev);
    lp.wire_overhead = spec_.wire_overhead;
    lp.wire_ns3 = spec_.wire_ns3;
    lp.fifo_ns = spec_.link_fifo_ns ? spec_.link_fifo_ns : 2 * WireTimeNs(1514, lp.rate_bps);
    // A round every quantum must be able to hand the link a quantum's worth.
    if (spec_.quantum_ns != 0)
      lp.fifo_ns = std::max(lp.fifo_ns, spec_.quantum_ns + 2 * WireTimeNs(1514, lp.rate_bps));
    return lp;
  }

  // Every frame as it starts on the wire, both directions, into the file.
  bool Captures(std::string* err) {
    const tagger::Topology& t = spec_.topo;
    for (const CaptureSpec& c : spec_.captures) {
      // Another MPI rank runs the link (its ends are placed together).
      if (!spec_.Local(c.a) && !spec_.Local(c.b)) {
        f_->captures_.push_back(nullptr);
        continue;
      }
      const fs::path path =
          fs::path(c.file).is_absolute() ? fs::path(c.file) : fs::path(spec_.out_dir) / c.file;
      std::error_code ec;
      fs::create_directories(path.parent_path(), ec);
      auto cap = std::make_unique<Capture>();
      cap->path = path.string();
      cap->held = spec_.clock == ClockKind::kVirtual;
      const std::string link = t.node(c.a).name + "-" + t.node(c.b).name;
      cap->out = std::make_unique<PcapngWriter>(
          path.string(), link,
          "pfcfabric link " + link + ", captured at " + t.node(c.a).name + ": what " +
              t.node(c.a).name + " sends is outbound, what it receives inbound");
      if (!cap->out->ok()) {
        *err = spec_.path + ": captures: cannot write " + path.string();
        return false;
      }
      for (auto [x, y] : {std::pair{c.a, c.b}, std::pair{c.b, c.a}}) {
        const Direction dir = x == c.a ? Direction::kOutbound : Direction::kInbound;
        EmuPort* p = f_->ports_[x][t.PortTo(x, y)].get();
        Capture* cp = cap.get();
        p->on_wire = [cp, dir](const rte_mbuf* m, uint64_t start_ns, bool) {
          std::lock_guard<std::mutex> g(cp->mu);
          if (cp->out == nullptr) return;  // closed (Fabric::CloseCaptures)
          const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
          const uint32_t len = rte_pktmbuf_data_len(m);
          if (!cp->held) {
            cp->out->Write(d, len, start_ns, dir);
            return;
          }
          cp->frames.push_back({start_ns, dir, static_cast<uint32_t>(cp->bytes.size()), len});
          cp->bytes.insert(cp->bytes.end(), d, d + len);
        };
      }
      f_->captures_.push_back(std::move(cap));
    }
    return true;
  }

  // Device name -> its EmuPort, once: every switch looks up each of its
  // ports (a scan per lookup would be quadratic in the fabric's ports).
  void IndexEmuPorts() {
    for (const SwitchPlan& sp : plan_.switches) {
      for (uint16_t p = 0; p < sp.ports.size(); p++) {
        if (sp.ports[p].device.rfind(kEmuDevicePrefix, 0) == 0)
          emu_ports_.emplace(sp.ports[p].device, f_->ports_[sp.node][p].get());
      }
    }
  }
  EmuPort* Find(const std::string& device) const {
    const auto it = emu_ports_.find(device);
    return it == emu_ports_.end() ? nullptr : it->second;
  }
  // Find, as the switch asks for the ports it does not open itself.
  sw::PortProviderLookup Provided() const {
    return [this](const std::string& device) -> EmuPort* { return Find(device); };
  }

  // One pool for every switch, plus what the links and hosts can hold.
  bool Pool(unsigned workers, std::string* err) {
    uint64_t mbufs = 4096;
    uint32_t room = 0, frame = 0;
    for (const config::SwitchConfig& c : configs_) {
      const config::MemoryPlan mp = sw::PlanSwitchMemory(c, Provided());
      mbufs += mp.mbufs;
      room = std::max(room, mp.data_room);
      frame = std::max(frame, mp.max_frame);
    }
    // Over MPI ranks, this rank's share of what one process would size:
    // its switches, the link ends it runs (not the stand-ins for others'),
    // its hosts; results.json's pool_size adds them up (rank_results.h).
    uint64_t share = mbufs - (spec_.rank == 0 ? 0 : 4096);
    f_->ForEachLinkEnd([&](uint32_t node, uint16_t, const EmuPort& p) {
      // A minimum frame's wire time, at least 1 ns: ns-3's truncation (and a
      // negative wire_overhead) can make it 0 on a fast link.
      const uint64_t n = 2 * kMaxBurst +
                         p.link().params().fifo_ns / std::max<uint64_t>(p.link().WireNs(60), 1) + 1;
      mbufs += n;
      share += spec_.Local(node) ? n : 0;
    });
    mbufs += uint64_t{kHostTxPerRound} * plan_.hosts.size();
    for (const HostPlan& hp : plan_.hosts) share += spec_.Local(hp.node) ? kHostTxPerRound : 0;
    f_->pool_share_ = share;
    // Frames only ever in emulated links and switches: a growable pool in
    // the process's own memory (switch/mbuf_pool.h), populated as the
    // virtual clock's one thread needs it, or whole before the real clock's
    // workers start. A real device may DMA: then a DPDK pool in EAL memory,
    // whole.
    bool devices = false;
    for (const SwitchPlan& sp : plan_.switches)
      for (const PortPlan& pp : sp.ports) devices |= Find(pp.device) == nullptr;
    // Frames only ever built here: the data room the largest one needs,
    // not DPDK's 2 KB floor, which is for devices' receive buffers. The
    // largest is a port's MTU frame (every host's frames are checked
    // against it, nic_sections.cc and fabric_spec.cc) with an INT trailer
    // a switch may append (int.insert). A converted run of the RDMA
    // simulator holds hundreds of thousands of frames at once under PFC:
    // 1,984 bytes an mbuf instead of 2,368.
    if (!devices && frame != 0)
      room = std::min(room, frame + net::kIntHopsBytes + config::kMbufHeadroom);
    const uint64_t populate = devices ? 0 : virt_ ? sw::NextPoolChunk(0) : mbufs;
    f_->dp_ = sw::CreateDataplane(virt_ ? 1 : std::max(1u, workers), mbufs,
                                  static_cast<uint16_t>(room), err, populate);
    if (!f_->dp_) return false;
    sw::Dataplane& dp = *f_->dp_;
    dp.grow_on_empty = virt_ && !devices;
    dp.own_memory = !devices;
    dp.idle_sleep_us = configs_.empty() ? 0 : configs_[0].idle_sleep_us;
    if (!configs_.empty()) dp.interrupt_sleep_ms = configs_[0].interrupt_sleep_ms;
    return true;
  }

  // The switches in plan order, each pinned to its real-clock worker
  // (round robin) and with the context of that worker.
  bool Switches(std::string* err) {
    sw::Dataplane& dp = *f_->dp_;
    f_->switches_.reserve(plan_.switches.size());  // a SwitchRun's ctx stays put
    for (size_t i = 0; i < plan_.switches.size(); i++) {
      const int pin = virt_ ? 0 : static_cast<int>(i % dp.workers);
      SwitchRun run;
      run.sw = sw::CreateSwitch(dp, configs_[i], plan_.switches[i].name, static_cast<unsigned>(i),
                                pin, Provided(), err);
      if (!run.sw) {
        *err = plan_.switches[i].config_path + ": switch " + plan_.switches[i].name + ": " + *err;
        return false;
      }
      if (!budget_.Check(i + 1, plan_.switches.size(), err)) {
        *err = spec_.path + ": " + *err;
        return false;
      }
      run.ctx = stages::MakeWorkerCtx(*run.sw, static_cast<unsigned>(pin));
      f_->switches_.push_back(std::move(run));
    }
    return true;
  }

  // The emulated hosts whose switch runs here, each with the flows it
  // sends and the RC flows it answers.
  void Hosts() {
    f_->hosts_.reserve(plan_.hosts.size());
    for (const HostPlan& hp : plan_.hosts) {
      if (!spec_.hosts[hp.node].device.empty()) continue;  // a real host behind a device
      if (plan_.sw(hp.sw_node) == nullptr) continue;       // its switch runs elsewhere (--here)
      Host h;
      h.name = hp.name;
      h.node = hp.node;
      h.model = std::make_unique<HostModel>(HostParamsOf(spec_, hp));
      for (size_t i = 0; i < spec_.flows.size(); i++) {
        const FlowSpecFile& fl = spec_.flows[i];
        if (fl.rc && fl.to == hp.node)  // this host answers the flow's QP
          h.model->AddResponder(static_cast<uint32_t>(i + 1), fl.dscp, fl.prio, fl.ack_cc,
                                fl.ack_src_port);
        if (fl.from == hp.node) h.model->AddFlow(FlowOf(spec_, plan_, i));
      }
      h.nic = f_->ports_[hp.node][0].get();
      f_->hosts_.push_back(std::move(h));
    }
  }

  const FabricSpec& spec_;
  const FabricPlan& plan_;
  const std::vector<config::SwitchConfig>& configs_;
  std::unique_ptr<Fabric> f_;
  MemoryBudget budget_;
  const bool virt_;
  std::unordered_map<std::string, EmuPort*> emu_ports_;
};

std::unique_ptr<Fabric> BuildFabric(const FabricSpec& spec, const FabricPlan& plan,
                                    const std::vector<config::SwitchConfig>& configs,
                                    unsigned workers, std::string* err) {
  return FabricBuilder(spec, plan, configs).Build(workers, err);
}

}  // namespace pfc::emulator
