// SPDX-License-Identifier: BSD-3-Clause
// ECN marking's per-switch state (Switch::ecn, when some egress queue has a
// WRED profile): the bytes in each egress queue (its ring and its stash),
// the depth the marking decision reads (stages/ecn_stage.h). The profiles
// themselves are in the table snapshot (Tables::ecn), so the stages read
// them as every other setting.
//
// Written by whoever queues to a port (any worker of the switch) and by the
// port's owner when packets leave; with one worker for the switch both are
// plain stores (WorkerCtx::solo), else atomic adds. A port's eight depths
// share one line of their own.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "dataplane/common/types.h"

namespace pfc {

struct alignas(kWorkerAlign) EcnPortDepth {
  std::atomic<int64_t> bytes[kNumPrio] = {};
};

struct SwitchEcn {
  explicit SwitchEcn(size_t ports) : depth(new EcnPortDepth[ports]), n_ports(ports) {}
  std::unique_ptr<EcnPortDepth[]> depth;
  size_t n_ports;
  int64_t Bytes(PortId p, int q) const { return depth[p].bytes[q].load(std::memory_order_relaxed); }
};

}  // namespace pfc
