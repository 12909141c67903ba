// SPDX-License-Identifier: BSD-3-Clause
// The pipeline builder: the mechanisms a switch runs (mechanism.h), each
// adding its users to the hook points (hooks.h) in their sorted order.
#include "dataplane/stages/hooks.h"

#include "dataplane/stages/mechanism.h"

namespace pfc::stages {

Hooks BuildHooks(const sw::Switch& sw) {
  Hooks h;
  for (const Mechanism* m : OrderedMechanisms())
    if (m->wanted(sw)) m->wire(sw, &h);
  for (uint8_t i = 0; i < h.enqueue.n; i++) {
    h.enqueue_before |= h.enqueue.fn[i].before != nullptr;
    h.enqueue_after |= h.enqueue.fn[i].after != nullptr;
  }
  return h;
}

}  // namespace pfc::stages
