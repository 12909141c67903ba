// SPDX-License-Identifier: BSD-3-Clause
// Fabric: building a fabric from its plan (switches, emulated links and
// hosts, real devices, captures, DCFIT report) and tearing it down. The
// runs are in virtual_clock.cc and real_clock.cc, the timeline events in
// events.cc, the results in results.cc.
#include "dataplane/emulator/runtime/fabric.h"

#include <cstdlib>
#include <filesystem>
#include <unordered_map>

#include "dataplane/emulator/runtime/memory_budget.h"
#include "dataplane/emulator/spec/partition.h"
#include "dataplane/pfcswitch/telemetry.h"
#include "dataplane/stages/worker.h"
#include "dataplane/switch/mbuf_pool.h"

namespace pfc::emulator {
namespace fs = std::filesystem;

// DCFIT's log lines name the episode's switches by the fabric's names
// ("L2 port S1") rather than by their DCFIT switch IDs.
void Fabric::NameDcfitPorts() {
  auto by_id = std::make_shared<std::unordered_map<uint64_t, const sw::Switch*>>();
  for (size_t i = 0; i < switches_.size(); i++) {
    const int32_t id = switches_[i].sw->cfg.dcfit.switch_id;
    (*by_id)[id < 0 ? i : uint64_t(id)] = switches_[i].sw.get();
  }
  for (sw::EventPrinter& p : printers_)
    p.namer = [by_id](uint64_t id, uint64_t port) {
      const auto it = by_id->find(id);
      if (it == by_id->end() || port >= it->second->ports.size())
        return "switch " + std::to_string(id) + " port " + std::to_string(port);
      return it->second->name + " port " + it->second->ports[port].name;
    };
}

std::unique_ptr<Fabric> Fabric::Create(const emulator::FabricSpec& spec,
                                       const emulator::FabricPlan& plan,
                                       const std::vector<config::SwitchConfig>& configs,
                                       unsigned workers, std::string* err) {
  std::unique_ptr<Fabric> f(new Fabric(spec, plan));
  MemoryBudget budget(spec.memory_limit);
  const tagger::Topology& t = spec.topo;
  const bool virt = spec.clock == emulator::ClockKind::kVirtual;
  // Link ends: an EmuPort for every end whose link is emulated.
  f->ports_.resize(t.num_nodes());
  for (uint32_t n = 0; n < t.num_nodes(); n++) f->ports_[n].resize(t.node(n).num_ports);
  for (uint32_t g0 : t.link_order()) {
    const uint32_t ends[2] = {g0, t.peer(g0)};
    if (!spec.Local(t.port_node(ends[0])) && !spec.Local(t.port_node(ends[1])))
      continue;  // runs on another server (--here)
    // A link on devices is on devices at both ends (spec/fabric_plan.h
    // CheckLinkDevices, when the file was loaded): nothing to emulate.
    if (emulator::LinkEndOnDevice(spec, t.port_node(ends[0]), t.port_node(ends[1]))) continue;
    emulator::LinkParams lp[2];
    for (int e = 0; e < 2; e++) {
      std::string dev;
      emulator::LinkParamsOf(spec, t.port_node(ends[e]), t.neighbor(ends[e]), &lp[e].rate_bps,
                             &lp[e].delay_ns, &dev);
      lp[e].fifo_ns =
          spec.link_fifo_ns ? spec.link_fifo_ns : 2 * emulator::WireTimeNs(1514, lp[e].rate_bps);
      // A round every quantum must be able to hand the link a quantum's worth.
      if (spec.quantum_ns != 0)
        lp[e].fifo_ns = std::max(lp[e].fifo_ns,
                                 spec.quantum_ns + 2 * emulator::WireTimeNs(1514, lp[e].rate_bps));
    }
    for (int e = 0; e < 2; e++) {
      const uint32_t node = t.port_node(ends[e]);
      auto port = std::make_unique<EmuPort>(
          "n" + std::to_string(node) + "p" + std::to_string(t.local(ends[e])), lp[e]);
      if (!port->Init(err)) return nullptr;
      f->ports_[node][t.local(ends[e])] = std::move(port);
    }
    EmuPort* a = f->ports_[t.port_node(ends[0])][t.local(ends[0])].get();
    EmuPort* b = f->ports_[t.port_node(ends[1])][t.local(ends[1])].get();
    a->Connect(b);
    b->Connect(a);
  }
  // Captures: every frame as it starts on the wire, both directions.
  for (const emulator::CaptureSpec& c : spec.captures) {
    const fs::path path =
        fs::path(c.file).is_absolute() ? fs::path(c.file) : fs::path(spec.out_dir) / c.file;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    auto cap = std::make_unique<Capture>();
    const std::string link = t.node(c.a).name + "-" + t.node(c.b).name;
    cap->out = std::make_unique<PcapngWriter>(path.string(), link,
                                              "pfcfabric link " + link + ", captured at " +
                                                  t.node(c.a).name + ": what " + t.node(c.a).name +
                                                  " sends is outbound, what it receives inbound");
    if (!cap->out->ok()) {
      *err = spec.path + ": captures: cannot write " + path.string();
      return nullptr;
    }
    for (auto [x, y] : {std::pair{c.a, c.b}, std::pair{c.b, c.a}}) {
      const Direction dir = x == c.a ? Direction::kOutbound : Direction::kInbound;
      EmuPort* p = f->ports_[x][t.PortTo(x, y)].get();
      Capture* cp = cap.get();
      p->on_wire = [cp, dir](const rte_mbuf* m, uint64_t start_ns, bool) {
        std::lock_guard<std::mutex> g(cp->mu);
        cp->out->Write(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), start_ns, dir);
      };
    }
    f->captures_.push_back(std::move(cap));
  }
  // Device name -> its EmuPort, once: every switch looks up each of its
  // ports (a scan per lookup would be quadratic in the fabric's ports).
  std::unordered_map<std::string, EmuPort*> emu_ports;
  for (const emulator::SwitchPlan& sp : f->plan_.switches) {
    for (uint16_t p = 0; p < sp.ports.size(); p++) {
      if (sp.ports[p].device.rfind(emulator::kEmuDevicePrefix, 0) == 0)
        emu_ports.emplace(sp.ports[p].device, f->ports_[sp.node][p].get());
    }
  }
  auto lookup = [&emu_ports](const std::string& device) -> EmuPort* {
    const auto it = emu_ports.find(device);
    return it == emu_ports.end() ? nullptr : it->second;
  };
  // One pool for every switch, plus what the links and hosts can hold.
  uint64_t mbufs = 4096;
  uint32_t room = 0;
  for (const config::SwitchConfig& c : configs) {
    const config::MemoryPlan mp = sw::PlanSwitchMemory(c, lookup);
    mbufs += mp.mbufs;
    room = std::max(room, mp.data_room);
  }
  for (const auto& node_ports : f->ports_) {
    for (const auto& p : node_ports) {
      if (p) mbufs += 2 * kMaxBurst + p->link().params().fifo_ns / p->link().WireNs(60) + 1;
    }
  }
  mbufs += uint64_t{kHostTxPerRound} * plan.hosts.size();
  // Frames only ever in emulated links and switches: a growable pool in
  // the process's own memory (switch/mbuf_pool.h), populated as the virtual
  // clock's one thread needs it, or whole before the real clock's workers
  // start. A real device may DMA: then a DPDK pool in EAL memory, whole.
  bool devices = false;
  for (const emulator::SwitchPlan& sp : plan.switches)
    for (const emulator::PortPlan& pp : sp.ports) devices |= lookup(pp.device) == nullptr;
  const uint64_t populate = devices ? 0 : virt ? sw::NextPoolChunk(0) : mbufs;
  f->dp_ = sw::CreateDataplane(virt ? 1 : std::max(1u, workers), mbufs, static_cast<uint16_t>(room),
                               err, populate);
  if (!f->dp_) return nullptr;
  f->dp_->grow_on_empty = virt && !devices;
  f->dp_->own_memory = !devices;
  f->dp_->idle_sleep_us = configs.empty() ? 0 : configs[0].idle_sleep_us;
  if (!configs.empty()) f->dp_->interrupt_sleep_ms = configs[0].interrupt_sleep_ms;

  uint32_t n_hosts = 0;
  for (const emulator::HostPlan& hp : plan.hosts) n_hosts += spec.hosts[hp.node].device.empty();
  // One partition to start with (Partition splits it for --threads); the
  // real clock keeps it too, unused but for the events' bookkeeping.
  const auto entities = static_cast<uint32_t>(plan.switches.size() + n_hosts);
  f->parts_.push_back(std::make_unique<Part>());
  f->parts_[0]->due.Reset(entities);
  f->part_of_.assign(entities, 0);
  emulator::DueQueue* wake = virt ? &f->parts_[0]->due : nullptr;
  f->switches_.reserve(plan.switches.size());
  for (size_t i = 0; i < plan.switches.size(); i++) {
    const int pin = virt ? 0 : static_cast<int>(i % f->dp_->workers);
    SwitchRun run;
    run.sw = sw::CreateSwitch(*f->dp_, configs[i], plan.switches[i].name, static_cast<unsigned>(i),
                              pin, lookup, err);
    if (!run.sw) {
      *err = plan.switches[i].config_path + ": switch " + plan.switches[i].name + ": " + *err;
      return nullptr;
    }
    if (!budget.Check(i + 1, plan.switches.size(), err)) {
      *err = spec.path + ": " + *err;
      return nullptr;
    }
    run.ctx = stages::MakeWorkerCtx(*run.sw, static_cast<unsigned>(pin));
    // PFCFABRIC_EVERY_PORT=1: rounds over every port (tests/fabric/
    // scale_test.py checks both give the same results).
    const bool track = virt && stages::ActivePortsAllowed(run.ctx) &&
                       std::getenv("PFCFABRIC_EVERY_PORT") == nullptr;
    f->switches_.push_back(std::move(run));  // reserved: the ctx stays put
    f->printers_.emplace_back();
    SwitchRun& placed = f->switches_.back();
    stages::WorkerCtx& ctx = placed.ctx;
    if (track) {
      ctx.active = &placed.active;
      stages::ActivateAll(ctx);
    }
    const auto& node_ports = f->ports_[plan.switches[i].node];
    for (size_t p = 0; p < node_ports.size(); p++) {
      if (!node_ports[p]) continue;
      node_ports[p]->wake = wake;
      node_ports[p]->wake_id = static_cast<uint32_t>(i);
      if (ctx.active != nullptr) {
        node_ports[p]->active = &ctx.active->rx;
        node_ports[p]->active_bit = PortMask{1} << p;
      }
    }
  }
  f->hosts_.reserve(plan.hosts.size());
  for (const emulator::HostPlan& hp : plan.hosts) {
    const emulator::HostSpec& hs = spec.hosts[hp.node];
    if (!hs.device.empty()) continue;              // a real host behind a device
    if (plan.sw(hp.sw_node) == nullptr) continue;  // its switch runs elsewhere (--here)
    Host h;
    h.name = hp.name;
    h.node = hp.node;
    h.model = std::make_unique<emulator::HostModel>(emulator::HostParamsOf(spec, hp));
    for (size_t i = 0; i < spec.flows.size(); i++) {
      const emulator::FlowSpecFile& fl = spec.flows[i];
      if (fl.rc && fl.to == hp.node)  // this host answers the flow's QP
        h.model->AddResponder(static_cast<uint32_t>(i + 1), fl.dscp, fl.prio);
      if (fl.from == hp.node) h.model->AddFlow(emulator::FlowOf(spec, plan, i));
    }
    h.nic = f->ports_[hp.node][0].get();
    f->hosts_.push_back(std::move(h));
    f->hosts_.back().nic->wake = wake;
    f->hosts_.back().nic->wake_id = f->HostId(f->hosts_.size() - 1);
  }
  // Workers of the real clock: whole switches, round robin.
  if (!virt) {
    f->workers_.resize(f->dp_->workers);
    for (unsigned w = 0; w < f->dp_->workers; w++) {
      f->workers_[w].dp = f->dp_.get();
      f->workers_[w].id = w;
    }
    for (size_t i = 0; i < f->switches_.size(); i++) {
      const unsigned w = static_cast<unsigned>(i % f->dp_->workers);
      f->workers_[w].slots.push_back(stages::MakeWorkerCtx(*f->switches_[i].sw, w));
    }
  }
  // The pool grows into what the switches left of the budget.
  if (f->dp_->grow_on_empty && budget.budget() != 0) {
    const rte_mempool* mp = f->dp_->pool;
    f->dp_->grow_limit =
        mp->populated_size + budget.Left() / (mp->header_size + mp->elt_size + mp->trailer_size);
  }
  if (virt) f->Partition();
  f->NameDcfitPorts();
  pfcswitch::RegisterTelemetry(f->switches());
  {
    std::vector<const EmuPort*> links;
    for (const auto& node_ports : f->ports_)
      for (const auto& e : node_ports)
        if (e) links.push_back(e.get());
    f->rec_.Init(f->switches(), spec.bin_ns, virt, std::move(links));
  }
  if (!virt) {
    // Events at time 0 are the fabric's initial state: applied before the
    // clock starts, since a route or rules change rebuilds the switch's
    // tables, which takes real time. Then one time base for switches, hosts
    // and the timeline: 0 = now (nothing has read the clock yet).
    while (f->next_event_ < spec.events.size() && spec.events[f->next_event_].at_ns == 0)
      f->ApplyEvent(spec.events[f->next_event_++], 0);
    f->dp_->epoch_ns = f->dp_->NowNs();
  }
  return f;
}

Fabric::~Fabric() {
  // Switches first (their rings and stashes hold mbufs), then the links'
  // queues and rings, then the pool.
  switches_.clear();
  ReleaseSpares();
  hosts_.clear();
  ports_.clear();
  uint16_t pid;
  RTE_ETH_FOREACH_DEV(pid) rte_eth_dev_close(pid);
  dp_.reset();
}

std::vector<sw::Switch*> Fabric::switches() const {
  std::vector<sw::Switch*> v;
  for (const SwitchRun& s : switches_) v.push_back(s.sw.get());
  return v;
}

void Fabric::Partition() {
  const unsigned n = spec_.threads;
  if (n <= 1) return;
  const tagger::Topology& t = spec_.topo;
  // A captured link's two directions go to one file in the order they
  // start: both ends in one partition keep that order the one-thread order.
  std::vector<std::pair<uint32_t, uint32_t>> glue;
  for (const emulator::CaptureSpec& c : spec_.captures) glue.emplace_back(c.a, c.b);
  const std::vector<uint16_t> node_part = PartitionNodes(t, n, glue);
  const auto entities = static_cast<uint32_t>(part_of_.size());
  while (parts_.size() < n) {
    parts_.push_back(std::make_unique<Part>());
    parts_.back()->due.Reset(entities);
  }
  auto own = [&](uint32_t node, uint32_t id) {
    part_of_[id] = node_part[node];
    for (const auto& e : ports_[node])
      if (e) e->wake = &parts_[node_part[node]]->due;
  };
  for (size_t i = 0; i < switches_.size(); i++)
    own(plan_.switches[i].node, static_cast<uint32_t>(i));
  for (size_t j = 0; j < hosts_.size(); j++) own(hosts_[j].node, HostId(j));
  // Receive ends fed across partitions: their owners are made due at
  // boundaries; the shortest such link bounds the window.
  for (uint32_t node = 0; node < ports_.size(); node++) {
    for (uint32_t p = 0; p < ports_[node].size(); p++) {
      EmuPort* e = ports_[node][p].get();
      if (e == nullptr) continue;
      const uint32_t g = t.peer(t.gport(node, p));
      const uint32_t from = t.port_node(g);
      if (node_part[from] == node_part[node]) continue;
      const EmuPort* sender = ports_[from][t.local(g)].get();
      parts_[node_part[node]]->inbound.push_back({e, e->wake_id, e->active, e->active_bit});
      e->wake = nullptr;
      e->active = nullptr;
      // A frame lands at least its wire time (>= 1 ns) after the delay.
      lookahead_ns_ = std::min(lookahead_ns_, sender->link().params().delay_ns + 1);
    }
  }
}

EmuPort* Fabric::PortOf(uint32_t node, uint16_t port) const { return ports_[node][port].get(); }

void Fabric::ReleaseSpares() {
  for (Host& h : hosts_) {
    rte_pktmbuf_free(h.spare);  // null-safe
    h.spare = nullptr;
  }
}
}  // namespace pfc::emulator
