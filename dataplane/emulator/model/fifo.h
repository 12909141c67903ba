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
#include <memory>
#include <utility>

namespace pfc::emulator {

template <typename T>
class Fifo {
 public:
  bool empty() const { return head_ == tail_; }
  // 32-bit positions: their difference and their low bits stay right
  // across the wrap, the capacity being a power of two below 2^32.
  size_t size() const { return tail_ - head_; }
  const T& front() const { return buf_[head_ & mask_]; }
  // The i-th queued entry from the front (i < size()).
  const T& at(size_t i) const { return buf_[(head_ + i) & mask_]; }
  void pop_front() { head_++; }
  void push_back(const T& v) {
    if (size() == cap_) Grow();
    buf_[tail_++ & mask_] = v;
  }
  void clear() { head_ = tail_ = 0; }

 private:
  void Grow() {
    const uint32_t cap = cap_ == 0 ? 16 : 2 * cap_;
    auto b = std::make_unique<T[]>(cap);
    const uint32_t n = tail_ - head_;
    for (uint32_t i = 0; i < n; i++) b[i] = at(i);
    head_ = 0;
    tail_ = n;
    buf_ = std::move(b);
    cap_ = cap;
    mask_ = cap - 1;
  }
  // 24 bytes, the positions first: empty(), size() and front() read its
  // first 16, and the link model keeps its data queue on its first line.
  uint32_t head_ = 0, tail_ = 0;  // positions, wrapped by mask_ when used
  uint32_t mask_ = 0, cap_ = 0;
  std::unique_ptr<T[]> buf_;
};

}  // namespace pfc::emulator
