// SPDX-License-Identifier: BSD-3-Clause
// The virtual-time driver's calendar: for each entity it runs (a switch, an
// emulated host), the next time it is due, and a min-heap of (time, id) so
// the driver finds the next time and the entities due then in O(log n)
// instead of scanning every entity at every step.
//
// Lazy deletion: an entity's due time lives in due_[id]; Lower and Set push
// a heap entry, and an entry whose time is no longer its entity's due time
// is stale and skipped when it reaches the top. Taking an entity (TakeDue)
// sets its due time to kNever, so duplicates of the same (time, id) are
// skipped too.
//
// Pure and single-threaded: the virtual-time driver and the emulated links
// it runs (EmuPort lowers the receiving entity's due time when a frame is
// put on the wire) share one thread.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace pfc::fabric {

class DueQueue {
 public:
  static constexpr uint64_t kNever = ~uint64_t{0};

  // n entities, ids 0..n-1, none due.
  void Reset(uint32_t n) {
    due_.assign(n, kNever);
    heap_.clear();
  }
  uint64_t due(uint32_t id) const { return due_[id]; }
  // Due at t if that is sooner than its current due time.
  void Lower(uint32_t id, uint64_t t) {
    if (t < due_[id]) Set(id, t);
  }
  // Due at t (kNever: not due), whatever it was.
  void Set(uint32_t id, uint64_t t) {
    due_[id] = t;
    if (t == kNever) return;
    heap_.push_back({t, id});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
  }
  // The earliest due time, or kNever.
  uint64_t Next() {
    DropStale();
    return heap_.empty() ? kNever : heap_.front().t;
  }
  // Every entity due at or before now, in id order, each once; their due
  // times become kNever (the caller sets the next ones after running them).
  void TakeDue(uint64_t now, std::vector<uint32_t>* ids) {
    ids->clear();
    for (DropStale(); !heap_.empty() && heap_.front().t <= now; DropStale()) {
      const uint32_t id = heap_.front().id;
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      heap_.pop_back();
      due_[id] = kNever;
      ids->push_back(id);
    }
    std::sort(ids->begin(), ids->end());
  }
  size_t heap_size() const { return heap_.size(); }

 private:
  struct Entry {
    uint64_t t;
    uint32_t id;
    bool operator>(const Entry& o) const { return t != o.t ? t > o.t : id > o.id; }
  };
  void DropStale() {
    while (!heap_.empty() && heap_.front().t != due_[heap_.front().id]) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      heap_.pop_back();
    }
  }

  std::vector<uint64_t> due_;
  std::vector<Entry> heap_;
};

}  // namespace pfc::fabric
