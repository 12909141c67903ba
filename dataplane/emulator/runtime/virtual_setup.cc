// SPDX-License-Identifier: BSD-3-Clause
// The virtual clock made over a fabric (virtual_clock.h): its calendars,
// the policies it installs on the switches and link ends, and the split
// into partitions for --threads.
#include <algorithm>

#include "dataplane/emulator/runtime/virtual_clock.h"
#include "dataplane/emulator/spec/partition.h"
#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/worker_ctx.h"

namespace pfc::emulator {

VirtualClock::VirtualClock(Fabric& fab)
    : Clock(fab, /*exact=*/true),
      sws_(fab.switches().data()),
      n_sws_(static_cast<uint32_t>(fab.switches().size())),
      n_hosts_(static_cast<uint32_t>(fab.hosts().size())),
      hosts_(fab.hosts().data()),
      dp_(fab.dp()),
      plan_(fab.plan()),
      quantum_ns_(fab.spec().quantum_ns),
      duration_ns_(fab.spec().duration_ns) {
  InstallCalendar();
  Partition();
  ChooseWindows();
}

void VirtualClock::ChooseWindows() {
  const FabricSpec& spec = fab_.spec();
  bool by_entity = !TimeOrderAsked();
  for (uint32_t i = 0; i < n_sws_; i++)
    if (sws_[i].ctx.sw != nullptr && stages::DcfitOf(*sws_[i].ctx.sw) != nullptr) by_entity = false;
  uint64_t w = kNever;
  if (by_entity)
    fab_.ForEachLinkEnd([&](uint32_t, uint16_t, EmuPort& e) { w = std::min(w, WindowBoundNs(e)); });
  // Every rank's windows alike (a rank that runs in time order takes the
  // others' windows: shorter windows change nothing in time order).
  if (spec.ranks > 1) w = Ranks::Get().Min(w);
  // Each window costs a boundary: on short windows that costs more than the
  // caches save (the HPCC simulator's fat-tree, 1 ms, CPU against time
  // order: 1.018 with 20 ns links, 0.966 with 100 ns, 0.74 with 1 us).
  if (w < kMinEntityWindowNs) w = kNever;
  entity_window_ns_ = w;
  by_entity_ = by_entity && w != kNever;
}

void VirtualClock::InstallCalendar() {
  const FabricSpec& spec = fab_.spec();
  const tagger::Topology& t = spec.topo;
  // Every emulated host of the plan has an id, those whose switch runs
  // elsewhere (--here) too, never due.
  uint32_t n_hosts = 0;
  for (const HostPlan& hp : plan_.hosts) n_hosts += spec.hosts[hp.node].device.empty();
  const auto entities = static_cast<uint32_t>(plan_.switches.size() + n_hosts);
  parts_.push_back(std::make_unique<Part>());
  parts_[0]->due.Reset(entities);
  part_of_.assign(entities, 0);
  DueQueue* wake = &parts_[0]->due;
  // PFCFABRIC_EVERY_PORT=1: rounds over every port (tests/fabric/
  // scale_test.py checks both give the same results).
  const bool every_port = EveryPortAsked();
  for (uint32_t i = 0; i < n_sws_; i++)
    rx_stride_ = std::max<uint32_t>(rx_stride_, t.node(plan_.switches[i].node).num_ports);
  rx_queues_.assign(size_t{n_sws_} * rx_stride_, nullptr);
  for (uint32_t i = 0; i < n_sws_; i++) {
    stages::WorkerCtx& ctx = sws_[i].ctx;
    if (!every_port && stages::ActivePortsAllowed(ctx)) {
      ctx.active = &sws_[i].active;
      stages::ActivateAll(ctx);
    }
    const uint32_t node = plan_.switches[i].node;
    for (uint16_t p = 0; p < t.node(node).num_ports; p++) {
      EmuPort* e = fab_.PortOf(node, p);
      if (e == nullptr) continue;
      e->wake = wake;
      e->wake_id = i;
      if (ctx.active != nullptr) {
        e->active = &ctx.active->rx;
        e->active_port = static_cast<uint8_t>(p);
        e->landing = &ctx.active->next_rx[p];
        rx_queues_[size_t{i} * rx_stride_ + p] = e->rx_queue();
      }
    }
  }
  host_rx_queues_.assign(fab_.hosts().size(), nullptr);
  for (size_t j = 0; j < fab_.hosts().size(); j++) {
    host_rx_queues_[j] = hosts_[j].nic->rx_queue();
    hosts_[j].nic->wake = wake;
    hosts_[j].nic->wake_id = fab_.HostId(j);
    hosts_[j].nic->landing = &hosts_[j].landing;
    hosts_[j].track_landing = true;
  }
}

void VirtualClock::Partition() {
  const FabricSpec& spec = fab_.spec();
  const unsigned n = spec.threads;
  const Ranks& ranks = Ranks::Get();
  if (n * spec.ranks <= 1) return;
  const tagger::Topology& t = spec.topo;
  // A captured link's two directions go to one file in the order they
  // start: both ends in one partition keep that order the one-thread order.
  // Over MPI ranks the split was made before the fabric was built
  // (PlaceRanks): this rank runs partitions rank x n to rank x n + n - 1.
  std::vector<std::pair<uint32_t, uint32_t>> glue;
  for (const CaptureSpec& c : spec.captures) glue.emplace_back(c.a, c.b);
  const std::vector<uint16_t> node_part = spec.ranks > 1 ? spec.parts : PartitionNodes(t, n, glue);
  const unsigned first = spec.rank * n;
  const auto entities = static_cast<uint32_t>(part_of_.size());
  while (parts_.size() < n) {
    parts_.push_back(std::make_unique<Part>());
    parts_.back()->due.Reset(entities);
  }
  auto own = [&](uint32_t node, uint32_t id) {
    const unsigned local = node_part[node] - first;
    part_of_[id] = static_cast<uint16_t>(local);
    for (uint16_t p = 0; p < t.node(node).num_ports; p++)
      if (EmuPort* e = fab_.PortOf(node, p)) e->wake = &parts_[local]->due;
  };
  for (uint32_t i = 0; i < n_sws_; i++) own(plan_.switches[i].node, i);
  for (size_t j = 0; j < fab_.hosts().size(); j++) own(hosts_[j].node, fab_.HostId(j));
  // Receive ends fed across partitions: their owners are made due at
  // boundaries; the shortest such link bounds the window. An end another
  // rank runs stands in for it here: what our sender puts on its way to it
  // goes there at the boundary (rank_frames.h).
  fab_.ForEachLinkEnd([&](uint32_t node, uint16_t p, EmuPort& e) {
    const uint32_t g = t.peer(t.gport(node, p));
    const uint32_t from = t.port_node(g);
    if (node_part[from] == node_part[node]) return;
    const EmuPort* sender = fab_.PortOf(from, static_cast<uint16_t>(t.local(g)));
    lookahead_ns_ = std::min(lookahead_ns_, WindowBoundNs(*sender));
    if (!spec.Local(node)) {
      rank_frames_.AddStandIn(&e, t.gport(node, p), node_part[node] / n);
      return;
    }
    parts_[node_part[node] - first]->inbound.push_back(
        {&e, e.wake_id, e.active, PortMask{1} << e.active_port, e.landing});
    e.wake = nullptr;
    e.active = nullptr;
    e.landing = nullptr;
  });
  // Every rank's windows alike: the shortest cut link of the whole fabric.
  if (spec.ranks > 1) lookahead_ns_ = ranks.Min(lookahead_ns_);
}

}  // namespace pfc::emulator
