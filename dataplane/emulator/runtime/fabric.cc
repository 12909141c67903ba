// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/runtime/fabric.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "dataplane/app/stats_report.h"
#include "dataplane/app/telemetry.h"
#include "dataplane/stages/worker.h"

namespace pfc::emu {
namespace fs = std::filesystem;
using emu::EventSpec;
using nlohmann::json;

namespace {
constexpr int kHostTxPerRound = 64;  // frames a host may send in one round
}  // namespace

Deadline Host::Round(rte_mempool* pool, uint64_t now_ns) {
  rte_mbuf* pkts[kMaxBurst];
  for (;;) {
    const uint16_t n = nic->Rx(pkts, kMaxBurst, now_ns);
    for (uint16_t i = 0; i < n; i++) {
      model->Receive(rte_pktmbuf_mtod(pkts[i], const uint8_t*), rte_pktmbuf_data_len(pkts[i]),
                     now_ns);
    }
    // A host mostly takes one frame a round: the inline single free is
    // half the bulk call's instructions there.
    if (n == 1)
      rte_pktmbuf_free(pkts[0]);
    else if (n != 0)
      rte_pktmbuf_free_bulk(pkts, n);
    if (n < kMaxBurst) break;
  }
  for (int k = 0; k < kHostTxPerRound; k++) {
    const bool data_ok = nic->link().up() && nic->link().CanSend(1514, now_ns);
    if (spare == nullptr) spare = rte_pktmbuf_alloc(pool);
    rte_mbuf* m = spare;
    if (m == nullptr) break;  // retried next round: the model has not advanced
    bool control = false;
    const uint32_t len = model->NextFrame(now_ns, rte_pktmbuf_mtod(m, uint8_t*),
                                          rte_pktmbuf_tailroom(m), &control, data_ok);
    if (len == 0) break;  // m stays the spare: only its data may have been begun
    spare = nullptr;
    m->data_len = static_cast<uint16_t>(len);
    m->pkt_len = len;
    nic->Tx(&m, 1, now_ns, control);
  }
  Deadline t = model->NextEventNs(now_ns);
  // The model wants to send now but the link's FIFO is full: come back when
  // it accepts again.
  if (t <= now_ns) t = nic->link().AcceptNs(now_ns + 1);
  if (t != kNever) t = std::max(t, now_ns + 1);
  return Earliest(t, nic->Poll(now_ns));
}

std::unique_ptr<Fabric> Fabric::Create(const emu::FabricSpec& spec, const emu::FabricPlan& plan,
                                       const std::vector<SwitchConfig>& configs, unsigned workers,
                                       std::string* err) {
  std::unique_ptr<Fabric> f(new Fabric(spec, plan));
  const tagger::Topology& t = spec.topo;
  const bool virt = spec.clock == emu::ClockKind::kVirtual;
  // Link ends: an EmuPort for every end whose link is emulated.
  f->ports_.resize(t.num_nodes());
  for (uint32_t n = 0; n < t.num_nodes(); n++) f->ports_[n].resize(t.node(n).num_ports);
  for (uint32_t g0 : t.link_order()) {
    const uint32_t ends[2] = {g0, t.peer(g0)};
    if (!spec.Local(t.port_node(ends[0])) && !spec.Local(t.port_node(ends[1])))
      continue;  // runs on another server (--here)
    bool real[2];
    emu::LinkParams lp[2];
    for (int e = 0; e < 2; e++) {
      const uint32_t node = t.port_node(ends[e]);
      std::string dev;
      emu::LinkParamsOf(spec, node, t.neighbor(ends[e]), &lp[e].rate_bps, &lp[e].delay_ns, &dev);
      lp[e].fifo_ns =
          spec.link_fifo_ns ? spec.link_fifo_ns : 2 * emu::WireTimeNs(1514, lp[e].rate_bps);
      // A round every quantum must be able to hand the link a quantum's worth.
      if (spec.quantum_ns != 0)
        lp[e].fifo_ns =
            std::max(lp[e].fifo_ns, spec.quantum_ns + 2 * emu::WireTimeNs(1514, lp[e].rate_bps));
      const emu::HostSpec* hs = spec.host(node);
      real[e] = !dev.empty() || (hs != nullptr && !hs->device.empty());
    }
    if (real[0] != real[1]) {
      *err = spec.path + ": link " + t.node(t.port_node(ends[0])).name + "-" +
             t.node(t.port_node(ends[1])).name +
             ": expected both ends on devices or neither (one process emulates a link whole)";
      return nullptr;
    }
    if (real[0]) continue;
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
  for (const emu::CaptureSpec& c : spec.captures) {
    const fs::path path =
        fs::path(c.file).is_absolute() ? fs::path(c.file) : fs::path(spec.out_dir) / c.file;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    auto cap = std::make_unique<Capture>();
    const std::string link = t.node(c.a).name + "-" + t.node(c.b).name;
    cap->out = std::make_unique<PcapngWriter>(path.string(), link);
    if (!cap->out->ok()) {
      *err = spec.path + ": captures: cannot write " + path.string();
      return nullptr;
    }
    for (auto [x, y] : {std::pair{c.a, c.b}, std::pair{c.b, c.a}}) {
      EmuPort* p = f->ports_[x][t.PortTo(x, y)].get();
      if (p == nullptr) {
        *err = spec.path + ": captures: link " + link +
               " is carried by a DPDK device: capture it with dpdk-dumpcap instead";
        return nullptr;
      }
      Capture* cp = cap.get();
      p->on_wire = [cp](const rte_mbuf* m, uint64_t start_ns, bool) {
        std::lock_guard<std::mutex> g(cp->mu);
        cp->out->Write(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), start_ns);
      };
    }
    f->captures_.push_back(std::move(cap));
  }
  auto lookup = [&f](const std::string& device) -> EmuPort* {
    if (device.rfind(emu::kEmuDevicePrefix, 0) != 0) return nullptr;
    for (const emu::SwitchPlan& sp : f->plan_.switches) {
      for (uint16_t p = 0; p < sp.ports.size(); p++) {
        if (sp.ports[p].device == device) return f->ports_[sp.node][p].get();
      }
    }
    return nullptr;
  };
  // One pool for every switch, plus what the links and hosts can hold.
  uint64_t mbufs = 4096;
  uint32_t room = 0;
  for (const SwitchConfig& c : configs) {
    const MemoryPlan mp = PlanSwitchMemory(c, lookup);
    mbufs += mp.mbufs;
    room = std::max(room, mp.data_room);
  }
  for (const auto& node_ports : f->ports_) {
    for (const auto& p : node_ports) {
      if (p) mbufs += 2 * kMaxBurst + p->link().params().fifo_ns / p->link().WireNs(60) + 1;
    }
  }
  mbufs += uint64_t{kHostTxPerRound} * plan.hosts.size();
  f->dp_ =
      CreateDataplane(virt ? 1 : std::max(1u, workers), mbufs, static_cast<uint16_t>(room), err);
  if (!f->dp_) return nullptr;
  f->dp_->idle_sleep_us = configs.empty() ? 0 : configs[0].idle_sleep_us;
  if (!configs.empty()) f->dp_->interrupt_sleep_ms = configs[0].interrupt_sleep_ms;

  uint32_t n_hosts = 0;
  for (const emu::HostPlan& hp : plan.hosts) n_hosts += spec.hosts[hp.node].device.empty();
  f->due_.Reset(static_cast<uint32_t>(plan.switches.size() + n_hosts));
  emu::DueQueue* wake = virt ? &f->due_ : nullptr;
  f->switches_.reserve(plan.switches.size());
  for (size_t i = 0; i < plan.switches.size(); i++) {
    const int pin = virt ? 0 : static_cast<int>(i % f->dp_->workers);
    SwitchRun run;
    run.sw = CreateSwitch(*f->dp_, configs[i], plan.switches[i].name, static_cast<unsigned>(i), pin,
                          lookup, err);
    if (!run.sw) {
      *err = plan.switches[i].config_path + ": switch " + plan.switches[i].name + ": " + *err;
      return nullptr;
    }
    run.ctx = MakeWorkerCtx(*run.sw, static_cast<unsigned>(pin));
    f->switches_.push_back(std::move(run));
    for (const auto& p : f->ports_[plan.switches[i].node]) {
      if (!p) continue;
      p->wake = wake;
      p->wake_id = static_cast<uint32_t>(i);
    }
  }
  f->hosts_.reserve(plan.hosts.size());
  for (const emu::HostPlan& hp : plan.hosts) {
    const emu::HostSpec& hs = spec.hosts[hp.node];
    if (!hs.device.empty()) continue;              // a real host behind a device
    if (plan.sw(hp.sw_node) == nullptr) continue;  // its switch runs elsewhere (--here)
    emu::HostParams p;
    p.mac = hp.mac;
    p.ip = hp.ip;
    p.gw_mac = hp.gw_mac;
    p.link_bps = hp.rate_bps;
    p.ignore_pause = hs.ignore_pause;
    p.storm_prios = hs.storm_prios;
    p.storm_quanta = hs.storm_quanta;
    p.storm_interval_ns = hs.storm_interval_ns;
    p.bin_ns = spec.bin_ns;
    Host h;
    h.name = hp.name;
    h.node = hp.node;
    h.model = std::make_unique<emu::HostModel>(p);
    for (size_t i = 0; i < spec.flows.size(); i++) {
      const emu::FlowSpecFile& fl = spec.flows[i];
      if (fl.from != hp.node) continue;
      emu::FlowSpec fs;
      fs.id = static_cast<uint32_t>(i + 1);
      fs.dst_ip = plan.host(fl.to)->ip;
      fs.dscp = fl.dscp;
      fs.prio = fl.prio;
      fs.frame_len = fl.frame_len;
      fs.rate_bps = fl.rate_bps;
      fs.bytes = fl.bytes;
      fs.ttl = fl.ttl;
      fs.start_ns = fl.start_ns;
      fs.stop_ns = fl.stop_ns;
      h.model->AddFlow(fs);
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
      f->workers_[w].slots.push_back(MakeWorkerCtx(*f->switches_[i].sw, w));
    }
  }
  RegisterTelemetry(f->switches());
  f->rec_.Init(f->switches(), spec.bin_ns, virt);
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

std::vector<Switch*> Fabric::switches() const {
  std::vector<Switch*> v;
  for (const SwitchRun& s : switches_) v.push_back(s.sw.get());
  return v;
}

EmuPort* Fabric::PortOf(uint32_t node, uint16_t port) const { return ports_[node][port].get(); }

void Fabric::SetLink(uint32_t a, uint32_t b, bool up) {
  const tagger::Topology& t = spec_.topo;
  for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    EmuPort* p = PortOf(x, static_cast<uint16_t>(t.PortTo(x, y)));
    if (p == nullptr) continue;
    p->RequestUp(up);
    if (p->wake != nullptr) p->wake->Lower(p->wake_id, now_);  // apply it now
  }
}

void Fabric::ApplyEvent(const EventSpec& e, uint64_t now) {
  const tagger::Topology& t = spec_.topo;
  std::string what, err;
  bool ok = true;
  auto sw_of = [&](uint32_t node) -> SwitchRun& { return switches_[plan_.switch_index[node]]; };
  // A switch that runs elsewhere (--here) gets its events there.
  if ((e.kind == EventSpec::Kind::kRoute || e.kind == EventSpec::Kind::kRules) && !spec_.Local(e.a))
    return;
  switch (e.kind) {
    case EventSpec::Kind::kLink:
      what = "link " + t.node(e.a).name + "-" + t.node(e.b).name + (e.up ? " up" : " down");
      SetLink(e.a, e.b, e.up);
      break;
    case EventSpec::Kind::kRoute: {
      SwitchRun& sr = sw_of(e.a);
      const uint16_t port = static_cast<uint16_t>(t.PortTo(e.a, e.c));
      uint32_t prefix = e.prefix;
      uint8_t len = e.prefix_len;
      if (e.b != tagger::kNoNode) {  // the host's subnet (its /30 or its own)
        const emu::HostPlan& h = *plan_.host(e.b);
        len = h.prefix_len;
        prefix = h.ip & ~(~0u >> len);
      }
      const emu::SwitchPlan* via_sw = plan_.sw(e.c);
      const uint32_t via =
          via_sw != nullptr ? via_sw->ports[t.PortTo(e.c, e.a)].ip : plan_.host(e.c)->ip;
      what = "route at " + sr.sw->name + ": " + emu::Ipv4String(prefix) + "/" +
             std::to_string(len) + " via " + t.node(e.c).name;
      ok = EditRunningConfig(
          *sr.sw,
          [&](SwitchConfig* c, std::string*) {
            std::erase_if(c->routes, [&](const RouteTable::Route& r) {
              return r.prefix == prefix && r.len == len;
            });
            c->routes.push_back({prefix, len, static_cast<uint16_t>(c->next_hops.size())});
            c->next_hops.push_back({port, via});
            return true;
          },
          &err);
      due_.Lower(static_cast<uint32_t>(&sr - switches_.data()), now);
      break;
    }
    case EventSpec::Kind::kFlow: {
      const emu::FlowSpecFile& fl = spec_.flows[e.flow];
      what = "flow " + fl.name + (e.up ? " start" : " stop");
      for (size_t j = 0; j < hosts_.size(); j++) {
        Host& h = hosts_[j];
        if (h.node != fl.from) continue;
        if (e.up)
          h.model->StartFlow(static_cast<uint32_t>(e.flow + 1), now);
        else
          h.model->StopFlow(static_cast<uint32_t>(e.flow + 1), now);
        due_.Lower(HostId(j), now);
      }
      break;
    }
    case EventSpec::Kind::kHost:
      what = "host " + t.node(e.a).name;
      for (size_t j = 0; j < hosts_.size(); j++) {
        Host& h = hosts_[j];
        if (h.node != e.a) continue;
        if (e.ignore_pause) {
          h.model->SetIgnorePause(*e.ignore_pause);
          what += *e.ignore_pause ? " ignores pause" : " honours pause";
        }
        if (e.storm_prios) {
          h.model->SetStorm(*e.storm_prios, now);
          what += " storm mask " + std::to_string(*e.storm_prios);
        }
        due_.Lower(HostId(j), now);
      }
      break;
    case EventSpec::Kind::kRules: {
      SwitchRun& sr = sw_of(e.a);
      what = "rules at " + sr.sw->name + " from " + e.file;
      ok = ReloadSwitch(*sr.sw, e.file, &err);
      due_.Lower(static_cast<uint32_t>(&sr - switches_.data()), now);
      break;
    }
  }
  char ts[32];
  std::snprintf(ts, sizeof ts, "%.6f ms: ", now / 1e6);
  event_log_.push_back(ts + what + (ok ? "" : " FAILED: " + err));
  std::printf("pfcfabric: %s\n", event_log_.back().c_str());
}

uint64_t Fabric::RunVirtual() {
  const std::vector<EventSpec>& ev = spec_.events;
  now_ = 0;
  for (uint32_t id = 0; id < HostId(hosts_.size()); id++) due_.Set(id, 0);
  dcfit_sws_.clear();
  for (const SwitchRun& s : switches_) dcfit_sws_.push_back(s.sw.get());
  rte_mempool* pool = dp_->pool;
  std::vector<uint32_t> run;
  for (;;) {
    while (next_event_ < ev.size() && ev[next_event_].at_ns <= now_)
      ApplyEvent(ev[next_event_++], now_);
    // Run what is due now, switches by index then hosts, in passes until
    // nothing is (a round with work runs again at the same time when it may
    // have left something due now: RoundLeftWork). Nothing run in a pass
    // makes another entity due at this very time (a frame lands after its
    // wire time, which is > 0; events come before the passes), so taking a
    // pass's set up front runs the same rounds in the same order as scanning
    // every entity in turn.
    for (due_.TakeDue(now_, &run); !run.empty(); due_.TakeDue(now_, &run)) {
      for (const uint32_t id : run) {
        due_.Set(id, kNever);  // a frame delivered to it meanwhile is in its round's answer
        if (id < switches_.size()) {
          Deadline ready = kNever;
          const unsigned work = WorkerRound(switches_[id].ctx, now_, &ready);
          rounds_++;
          if (switches_[id].sw->dcfit) dcfit_.Take(dcfit_sws_, plan_, id, true);
          // A deadline already reached (none is, as the stages report them)
          // would also be due now.
          if (work != 0 && (RoundLeftWork(switches_[id].ctx) || ready <= now_))
            due_.Lower(id, now_);
          else if (ready != kNever)
            due_.Lower(id, std::max(ready, now_ + 1));
        } else {
          due_.Lower(id, hosts_[id - switches_.size()].Round(pool, now_));
        }
      }
    }
    rec_.Sample(now_);
    if (now_ >= spec_.duration_ns) break;
    uint64_t next = std::min(spec_.duration_ns, due_.Next());
    if (next_event_ < ev.size()) next = std::min(next, ev[next_event_].at_ns);
    next = std::min(next, rec_.next_ns());
    if (spec_.quantum_ns != 0)  // the next step boundary (see FabricSpec::quantum_ns)
      next = (next + spec_.quantum_ns - 1) / spec_.quantum_ns * spec_.quantum_ns;
    now_ = std::max(next, now_ + 1);
  }
  ReleaseSpares();
  return rounds_;
}

void Fabric::RunReal(const std::atomic<bool>& stop) {
  const std::vector<EventSpec>& ev = spec_.events;
  rte_mempool* pool = dp_->pool;
  while (!stop.load(std::memory_order_relaxed)) {
    now_ = dp_->NowNs();  // 0 at Create (Dataplane::epoch_ns)
    if (spec_.duration_ns != 0 && now_ >= spec_.duration_ns) break;
    while (next_event_ < ev.size() && ev[next_event_].at_ns <= now_)
      ApplyEvent(ev[next_event_++], now_);
    Deadline soonest = kNever;
    for (Host& h : hosts_) LowerTo(&soonest, h.Round(pool, now_));
    rec_.Sample(now_);
    // Hosts run on this thread: spin while something is due within 20 us,
    // otherwise yield the core to the workers briefly.
    if (soonest == kNever || soonest > now_ + 20'000)
      std::this_thread::sleep_for(std::chrono::microseconds(10));
  }
  ReleaseSpares();
  // DCFIT's events, without the loops: the workers own the switches' state.
  dcfit_sws_.clear();
  for (const SwitchRun& s : switches_) dcfit_sws_.push_back(s.sw.get());
  for (size_t i = 0; i < switches_.size(); i++) dcfit_.Take(dcfit_sws_, plan_, i, false);
}

void Fabric::ReleaseSpares() {
  for (Host& h : hosts_) {
    rte_pktmbuf_free(h.spare);  // null-safe
    h.spare = nullptr;
  }
}

uint64_t Fabric::LosslessDrops() const {
  uint64_t n = 0;
  for (const SwitchRun& s : switches_) {
    for (const auto& w : s.sw->stats) {
      for (size_t p = 0; p < s.sw->ports.size(); p++) {
        for (int q = 0; q < kNumPrio; q++) {
          if (!s.sw->cfg.tag_map.IsLossless(q)) continue;
          for (int r = 0; r < kNumDropReasons; r++) {
            // Not a routing loop's own victims, nor the drops DCFIT and the
            // storm watchdog chose (reported apart): see PFC_DROP_REASONS.
            if (!DropIsLosslessLoss(static_cast<DropReason>(r))) continue;
            n += w->prio[p][q].drops[r].Get();
          }
        }
      }
    }
  }
  return n;
}

uint64_t Fabric::DropsOf(DropReason r) const {
  uint64_t n = 0;
  for (const SwitchRun& s : switches_)
    for (const auto& w : s.sw->stats)
      for (size_t p = 0; p < s.sw->ports.size(); p++)
        for (int q = 0; q < kNumPrio; q++) n += w->prio[p][q].drops[static_cast<int>(r)].Get();
  return n;
}

bool Fabric::WriteResults(double wall_seconds, std::string* err) const {
  std::error_code ec;
  fs::create_directories(spec_.out_dir, ec);
  json r;
  r["fabric"] = spec_.path;
  r["clock"] = spec_.clock == emu::ClockKind::kVirtual ? "virtual" : "real";
  r["seed"] = spec_.seed;
  r["duration_ns"] = spec_.duration_ns;
  r["end_ns"] = now_;
  r["switch_rounds"] = rounds_;
  r["lossless_drops"] = LosslessDrops();
  json flows = json::array();
  for (size_t i = 0; i < spec_.flows.size(); i++) {
    const emu::FlowSpecFile& fl = spec_.flows[i];
    json j;
    j["name"] = fl.name;
    j["from"] = spec_.topo.node(fl.from).name;
    j["to"] = spec_.topo.node(fl.to).name;
    for (const Host& h : hosts_) {
      for (const emu::FlowTx& tx : h.model->tx_flows()) {
        if (tx.spec.id != i + 1) continue;
        j["tx_frames"] = tx.tx_frames;
        j["tx_bytes"] = tx.tx_bytes;
      }
      if (const emu::FlowRx* rx = h.model->rx_flow(static_cast<uint32_t>(i + 1))) {
        j["rx_frames"] = rx->frames;
        j["rx_bytes"] = rx->bytes;
        j["lost"] = rx->lost;
        j["reordered"] = rx->reordered;
        j["mean_delay_ns"] = rx->frames ? rx->sum_delay_ns / rx->frames : 0;
      }
    }
    if (!j.contains("rx_frames")) j["rx_frames"] = 0;
    flows.push_back(j);
  }
  r["flows"] = flows;
  json sws = json::object();
  for (const SwitchRun& s : switches_) {
    sws[s.sw->name] = StatsJson(*s.sw);
    // What the detector did with the messages (dcfit/detector.h), for
    // telling why a loop was or was not found.
    if (const SwitchDcfit* d = s.sw->dcfit.get()) {
      const dcfit::DetectorCounters& c = d->det.counters();
      sws[s.sw->name]["dcfit_detector"] = {{"rx", c.rx},
                                           {"tx", c.tx},
                                           {"repeat", c.repeat},
                                           {"outranked", c.outranked},
                                           {"no_delta", c.no_delta},
                                           {"not_paused", c.not_paused},
                                           {"stale", c.stale},
                                           {"bad", c.bad},
                                           {"temporal_dropped", c.temporal_dropped}};
    }
  }
  r["ttl_expired_drops"] = DropsOf(DropReason::kTtlExpired);
  r["switches"] = sws;
  json hosts = json::object();
  for (const Host& h : hosts_) {
    const emu::HostCounters& c = h.model->counters();
    hosts[h.name] = {{"tx_frames", c.tx_frames},
                     {"rx_frames", c.rx_frames},
                     {"pfc_rx", c.pfc_rx},
                     {"pfc_tx", c.pfc_tx},
                     {"pfc_ignored", c.pfc_ignored}};
  }
  r["hosts"] = hosts;
  r["events"] = event_log_;
  // Virtual clock: with each loop and its detection time (dcfit_report.h).
  r["dcfit_events"] = dcfit_.events();
  r["dcfit_break_drops"] = DropsOf(DropReason::kDcfitBreak);
  r["dcfit_host_lossy_drops"] = DropsOf(DropReason::kDcfitHostLossy);
  r["dcfit_rate_limit_drops"] = DropsOf(DropReason::kDcfitRateLimit);
  // Pause-storm watchdog events of every switch (switch/pfcwd_state.h),
  // in emulated time.
  json wd = json::array();
  for (const SwitchRun& s : switches_) {
    for (const PfcwdEvent& e : s.sw->pfcwd_log.Snapshot(nullptr)) {
      wd.push_back({{"switch", s.sw->name},
                    {"kind", e.restored ? "restored" : "storm"},
                    {"port", s.sw->ports[e.port].name},
                    {"prio", e.prio},
                    {"t_ns", e.t_ns},
                    {"since_ns", e.since_ns},
                    {"drops", e.drops}});
    }
  }
  r["pfcwd_events"] = wd;
  r["pfcwd_storm_drops"] = DropsOf(DropReason::kPfcwdStorm);
  const fs::path dir(spec_.out_dir);
  std::ofstream(dir / "results.json") << r.dump(1) << "\n";
  // Flow throughput per bin at the receiver.
  std::ofstream fcsv(dir / "flows.csv");
  fcsv << "t_ms,flow,gbps\n";
  const uint64_t bins = (spec_.duration_ns + spec_.bin_ns - 1) / spec_.bin_ns;
  for (size_t i = 0; i < spec_.flows.size(); i++) {
    const emu::FlowRx* rx = nullptr;
    for (const Host& h : hosts_) {
      if (const emu::FlowRx* x = h.model->rx_flow(static_cast<uint32_t>(i + 1))) rx = x;
    }
    for (uint64_t b = 0; b < bins; b++) {
      const uint64_t bytes = rx != nullptr && b < rx->bin_bytes.size() ? rx->bin_bytes[b] : 0;
      char line[160];
      std::snprintf(line, sizeof line, "%.6f,%s,%.6f\n", (b + 1) * spec_.bin_ns / 1e6,
                    spec_.flows[i].name.c_str(), bytes * 8.0 / spec_.bin_ns);
      fcsv << line;
    }
  }
  if (!rec_.WriteCsv((dir / "ports.csv").string(), err)) return false;
  // Wall-clock facts apart, so results.json stays byte-identical across runs.
  std::ofstream(dir / "timing.json")
      << json{{"wall_seconds", wall_seconds},
              {"virtual_over_real", wall_seconds > 0 ? now_ / 1e9 / wall_seconds : 0}}
             .dump()
      << "\n";
  if (!fcsv) {
    *err = (dir / "flows.csv").string() + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace pfc::emu
