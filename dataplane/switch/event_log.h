// SPDX-License-Identifier: BSD-3-Clause
// A switch's log of rare events (DCFIT's, the pause-storm watchdog's): the
// last kKeep records and how many there were in all. Added by the workers
// that see the events, read by anyone (telemetry, the fabric's results):
// events are rare next to packets, so the mutex never touches the packet
// path.
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace pfc {

template <typename T>
class EventLog {
 public:
  static constexpr size_t kKeep = 4096;  // oldest dropped beyond this
  void Add(const T& r) {
    std::lock_guard<std::mutex> g(mu_);
    if (ev_.size() == kKeep) ev_.pop_front();
    ev_.push_back(r);
    ++total_;
  }
  std::vector<T> Snapshot(uint64_t* total) const {
    std::lock_guard<std::mutex> g(mu_);
    if (total) *total = total_;
    return {ev_.begin(), ev_.end()};
  }

 private:
  mutable std::mutex mu_;
  std::deque<T> ev_;
  uint64_t total_ = 0;
};

}  // namespace pfc
