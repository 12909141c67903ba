// SPDX-License-Identifier: BSD-3-Clause
// A growable FIFO on one power-of-two array: what an emulated link's
// transmit queues need (push at the back, look at and pop the front, count,
// walk, clear), without std::deque's block map, whose size() and front()
// cost a few dozen instructions on every emulated frame (bench/fabric/cost.sh).
// Grows by doubling when full and never shrinks: a link's queue is bounded
// by its FIFO depth, so it settles after the first busy period.
//
// Pure and single-owner (the worker that transmits on the link).
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pfc::emulator {

template <typename T>
class Fifo {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  const T& front() const { return buf_[head_ & mask_]; }
  // The i-th queued entry from the front (i < size()).
  const T& at(size_t i) const { return buf_[(head_ + i) & mask_]; }
  void pop_front() { head_++; }
  void push_back(const T& v) {
    if (size() == buf_.size()) Grow();
    buf_[tail_++ & mask_] = v;
  }
  void clear() { head_ = tail_ = 0; }

 private:
  void Grow() {
    std::vector<T> b(buf_.empty() ? 16 : 2 * buf_.size());
    for (size_t i = 0; i < size(); i++) b[i] = at(i);
    tail_ = size();
    head_ = 0;
    buf_ = std::move(b);
    mask_ = buf_.size() - 1;
  }
  // The positions first, then the array: empty(), size() and front() read
  // this object's first 32 bytes.
  size_t head_ = 0, tail_ = 0;  // positions, wrapped by mask_ when used
  size_t mask_ = 0;
  std::vector<T> buf_;
};

}  // namespace pfc::emulator
