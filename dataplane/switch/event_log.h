// SPDX-License-Identifier: BSD-3-Clause
// A switch's log of rare events (DCFIT's, the pause-storm watchdog's): the
// last kKeep records and how many there were in all. Added by the workers
// that see the events, read by anyone (telemetry, the fabric's results, and
// the control thread, which prints what is new: workers never print, see
// switch/log.h): events are rare next to packets, so the mutex never
// touches the packet path.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace pfc::sw {

template <typename T>
class EventLog {
 public:
  static constexpr size_t kKeep = 4096;  // oldest dropped beyond this
  void Add(const T& r) {
    std::lock_guard<std::mutex> g(mu_);
    if (ev_.size() == kKeep) ev_.pop_front();
    ev_.push_back(r);
    total_.store(total_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  std::vector<T> Snapshot(uint64_t* total) const {
    std::lock_guard<std::mutex> g(mu_);
    if (total) *total = total_.load(std::memory_order_relaxed);
    return {ev_.begin(), ev_.end()};
  }
  // Calls f(record) for each record added since *seen (those still kept),
  // then sets *seen to the total. Without anything new it takes no lock.
  template <typename F>
  void ForEachSince(uint64_t* seen, F f) const {
    if (total_.load(std::memory_order_acquire) == *seen) return;
    std::lock_guard<std::mutex> g(mu_);
    const uint64_t total = total_.load(std::memory_order_relaxed);
    const uint64_t first = total - ev_.size();  // index of ev_.front()
    for (uint64_t i = std::max(*seen, first); i < total; i++) f(ev_[i - first]);
    *seen = total;
  }

 private:
  mutable std::mutex mu_;
  std::deque<T> ev_;
  std::atomic<uint64_t> total_{0};  // written under mu_
};

}  // namespace pfc::sw
