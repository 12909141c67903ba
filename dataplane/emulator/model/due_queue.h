// SPDX-License-Identifier: BSD-3-Clause
// The virtual-time driver's calendar: for each entity it runs (a switch, an
// emulated host), the next time it is due, so the driver finds the next time
// and the entities due then without scanning every entity at every step.
//
// A tournament tree (a segment tree of minima) over the entity ids: leaf id
// holds its due time, each inner node the minimum of its two children, the
// root the earliest time of all. Chosen over an indexed heap (measured with
// bench/fabric/cost.sh: about half the calendar's instructions per hop):
//  * Lower, what an emulated link does for every frame it puts on the wire,
//    climbs only while it beats the node above, usually a step or two;
//  * TakeDue walks down only into subtrees due by now and hands the ids back
//    in id order as it finds them (no sort), fixing the minima on its way up;
//  * no positions to keep, no stale entries: an entity is due at most once
//    however often it is lowered.
// Each operation is O(log n) in the entities, so fabrics of hundreds of
// switches and hosts step as cheaply as small ones.
//
// Pure and single-threaded: the virtual-time driver and the emulated links
// it runs (EmuPort lowers the receiving entity's due time when a frame is
// put on the wire) share one thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dataplane/common/deadline.h"

namespace pfc::emulator {

class DueQueue {
 public:
  // n entities, ids 0..n-1, none due.
  void Reset(uint32_t n) {
    leaves_ = 1;
    while (leaves_ < n) leaves_ *= 2;
    tree_.assign(2 * size_t{leaves_}, kNever);
    count_ = 0;
  }
  uint64_t due(uint32_t id) const { return tree_[leaves_ + id]; }
  // Due at t if that is sooner than its current due time.
  void Lower(uint32_t id, uint64_t t) {
    uint32_t i = leaves_ + id;
    if (t >= tree_[i]) return;
    count_ += tree_[i] == kNever;
    tree_[i] = t;
    // An ancestor's minimum changes only while t beats it.
    for (i >>= 1; i != 0 && t < tree_[i]; i >>= 1) tree_[i] = t;
  }
  // Due at t (kNever: not due), whatever it was.
  void Set(uint32_t id, uint64_t t) {
    uint32_t i = leaves_ + id;
    if (tree_[i] == t) return;  // the minima above already hold
    count_ += (t != kNever) - (tree_[i] != kNever);
    tree_[i] = t;
    for (i >>= 1; i != 0; i >>= 1) {
      const uint64_t m = Min(tree_[2 * i], tree_[2 * i + 1]);
      if (tree_[i] == m) break;  // unchanged here, so above too
      tree_[i] = m;
    }
  }
  // The entity due first (the lowest id of those due then), or ~0u when
  // none is: down from the root along the child that holds its minimum.
  uint32_t PeekFirst() const {
    if (tree_[1] == kNever) return ~0u;
    uint32_t i = 1;
    while (i < leaves_) {
      i *= 2;
      if (tree_[i] != tree_[i / 2]) i++;
    }
    return i - leaves_;
  }
  // The entity due after PeekFirst's, in the same order (time, then id), or
  // ~0u: the first of the subtrees just off the path down to the first.
  // Going down, a left sibling is left of every one found later and a
  // right sibling right of them, so at equal times the one found first
  // wins unless it is a right sibling. (What the driver runs after next,
  // fetched ahead: a hint, so O(log n) is all it may cost.)
  uint32_t PeekSecond() const {
    uint32_t first, second;
    PeekTwo(&first, &second);
    return second;
  }
  // PeekFirst's and PeekSecond's on one walk down (the path to the first is
  // the walk that finds the second's subtree).
  void PeekTwo(uint32_t* first, uint32_t* second) const {
    *first = *second = ~0u;
    if (tree_[1] == kNever) return;
    uint32_t best = 0;
    uint64_t best_t = kNever;
    bool best_left = false;
    uint32_t i = 1;
    while (i < leaves_) {
      i *= 2;
      const bool right = tree_[i] != tree_[i / 2];  // the path goes right: its sibling is left
      const uint32_t sib = right ? i : i + 1;
      i += right;
      const uint64_t t = tree_[sib];
      if (t < best_t || (t == best_t && t != kNever && !best_left)) {
        best = sib, best_t = t, best_left = right;
      }
    }
    *first = i - leaves_;
    if (best_t == kNever) return;
    while (best < leaves_) {
      best *= 2;
      if (tree_[best] != tree_[best / 2]) best++;
    }
    *second = best - leaves_;
  }
  // The earliest due time, or kNever.
  uint64_t Next() const { return tree_[1]; }
  // Every entity due at or before now, in id order, each once; their due
  // times become kNever (the caller sets the next ones after running them).
  void TakeDue(uint64_t now, std::vector<uint32_t>* ids) {
    ids->clear();
    if (tree_[1] > now) return;
    // Depth first, left to right, only into subtrees due by now (a due
    // node has a due child), with no recursion: down to the leftmost due
    // leaf, take it, then up while the right sibling is not due, fixing
    // each minimum on the way (a node is fixed once its right subtree is).
    uint32_t i = 1;
    for (;;) {
      while (i < leaves_) {
        i *= 2;
        if (tree_[i] > now) i++;
      }
      ids->push_back(i - leaves_);
      tree_[i] = kNever;
      count_--;
      for (;;) {
        if (i == 1) return;
        if (!(i & 1) && tree_[i + 1] <= now) {
          i++;
          break;
        }
        i >>= 1;
        tree_[i] = Min(tree_[2 * i], tree_[2 * i + 1]);
      }
    }
  }
  // Entities due.
  size_t size() const { return count_; }

 private:
  static uint64_t Min(uint64_t a, uint64_t b) { return a < b ? a : b; }
  uint32_t leaves_ = 1;         // a power of two >= the entities
  std::vector<uint64_t> tree_;  // [1] the root, [leaves_ + id] entity id
  size_t count_ = 0;            // leaves not kNever
};

}  // namespace pfc::emulator
