// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/sched/red.h"

#include <cmath>

namespace pfc::sched {

RedQueue::RedQueue(const RedProfile& p)
    : min_(static_cast<int64_t>(p.min_bytes)),
      max_(static_cast<int64_t>(p.max_bytes)),
      at_dequeue_(p.at_dequeue) {
  if (max_ <= min_) return;  // a step: no slope
  // At most 2^64 (max_prob 1 over one byte): clamped to the largest word.
  const long double s = std::floor(static_cast<long double>(p.max_prob) * 0x1p64L /
                                   static_cast<long double>(max_ - min_));
  slope_ = s >= 0x1p64L ? UINT64_MAX : static_cast<uint64_t>(s);
}

uint64_t RedQueue::Threshold(int64_t depth) const {
  if (depth <= min_) return 0;
  if (depth > max_) return uint64_t{1} << 32;
  // (depth - min) * slope in 32.32 fixed point; the product fits 128 bits.
  const unsigned __int128 t = static_cast<unsigned __int128>(depth - min_) * slope_;
  return static_cast<uint64_t>(t >> 32);
}

}  // namespace pfc::sched
