// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/model/fifo.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

namespace pfc::emulator {
namespace {

// Against std::deque (what the link model used before) on random pushes and
// pops, so the ring wraps and grows many times with entries in it.
TEST(Fifo, MatchesADeque) {
  Fifo<uint64_t> f;
  std::deque<uint64_t> ref;
  std::mt19937_64 rng(3);
  uint64_t next = 0;
  for (int step = 0; step < 50000; step++) {
    // Phases that mostly push (growth to a few hundred) and mostly pop.
    const bool grow = (step / 5000) % 2 == 0;
    if (rng() % 4 < (grow ? 3u : 1u)) {
      f.push_back(next);
      ref.push_back(next++);
    } else if (!ref.empty()) {
      ASSERT_EQ(f.front(), ref.front());
      f.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(f.size(), ref.size());
    ASSERT_EQ(f.empty(), ref.empty());
    if (step % 997 == 0) {
      for (size_t i = 0; i < ref.size(); i++) ASSERT_EQ(f.at(i), ref[i]) << "step " << step;
    }
  }
  f.clear();
  EXPECT_TRUE(f.empty());
  f.push_back(7);
  EXPECT_EQ(f.front(), 7u);
  EXPECT_EQ(f.size(), 1u);
}

}  // namespace
}  // namespace pfc::emulator
