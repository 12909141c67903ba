// SPDX-License-Identifier: BSD-3-Clause
// The virtual-time driver's calendar: for each entity it runs (a switch, an
// emulated host), the next time it is due, and a min-heap of the entities
// that are due at all, so the driver finds the next time and the entities
// due then in O(log n) instead of scanning every entity at every step.
//
// An indexed heap: each entity is in the heap at most once (pos_ says
// where), and a new due time moves it in place (decrease-key up, a later
// time down, kNever out). The heap never holds more than n entries and
// nothing is skipped when it reaches the top: an emulated link lowers the
// receiver's due time for every frame it puts on the wire, so a heap of
// stale entries would grow with the traffic.
//
// Pure and single-threaded: the virtual-time driver and the emulated links
// it runs (EmuPort lowers the receiving entity's due time when a frame is
// put on the wire) share one thread.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace pfc::fabric {

class DueQueue {
 public:
  static constexpr uint64_t kNever = ~uint64_t{0};

  // n entities, ids 0..n-1, none due.
  void Reset(uint32_t n) {
    due_.assign(n, kNever);
    pos_.assign(n, kOut);
    heap_.clear();
  }
  uint64_t due(uint32_t id) const { return due_[id]; }
  // Due at t if that is sooner than its current due time.
  void Lower(uint32_t id, uint64_t t) {
    if (t < due_[id]) Set(id, t);
  }
  // Due at t (kNever: not due), whatever it was.
  void Set(uint32_t id, uint64_t t) {
    const uint64_t old = due_[id];
    due_[id] = t;
    const uint32_t i = pos_[id];
    if (t == kNever) {
      if (i != kOut) Remove(i);
    } else if (i == kOut) {
      pos_[id] = static_cast<uint32_t>(heap_.size());
      heap_.push_back({t, id});
      Up(pos_[id]);
    } else {
      heap_[i].t = t;
      if (t < old)
        Up(i);
      else
        Down(i);
    }
  }
  // The earliest due time, or kNever.
  uint64_t Next() const { return heap_.empty() ? kNever : heap_.front().t; }
  // Every entity due at or before now, in id order, each once; their due
  // times become kNever (the caller sets the next ones after running them).
  void TakeDue(uint64_t now, std::vector<uint32_t>* ids) {
    ids->clear();
    while (!heap_.empty() && heap_.front().t <= now) {
      const uint32_t id = heap_.front().id;
      Remove(0);
      due_[id] = kNever;
      ids->push_back(id);
    }
    std::sort(ids->begin(), ids->end());
  }
  // Entities due (at most n).
  size_t heap_size() const { return heap_.size(); }

 private:
  static constexpr uint32_t kOut = ~uint32_t{0};  // pos_ of an entity not due
  struct Entry {
    uint64_t t;
    uint32_t id;
    bool operator<(const Entry& o) const { return t != o.t ? t < o.t : id < o.id; }
  };
  void Place(uint32_t i, const Entry& e) {
    heap_[i] = e;
    pos_[e.id] = i;
  }
  void Up(uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (!(e < heap_[parent])) break;
      Place(i, heap_[parent]);
      i = parent;
    }
    Place(i, e);
  }
  void Down(uint32_t i) {
    const Entry e = heap_[i];
    const uint32_t n = static_cast<uint32_t>(heap_.size());
    for (;;) {
      uint32_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && heap_[c + 1] < heap_[c]) c++;
      if (!(heap_[c] < e)) break;
      Place(i, heap_[c]);
      i = c;
    }
    Place(i, e);
  }
  void Remove(uint32_t i) {
    pos_[heap_[i].id] = kOut;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    Place(i, last);
    Up(i);
    Down(pos_[last.id]);
  }

  std::vector<uint64_t> due_;
  std::vector<uint32_t> pos_;  // index in heap_, or kOut
  std::vector<Entry> heap_;
};

}  // namespace pfc::fabric
