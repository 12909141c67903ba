// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/runtime/memory_budget.h"

#include <cstdio>

#include "dataplane/common/memory_use.h"

namespace pfc::emulator {
namespace {

std::string Size(uint64_t bytes) {
  char b[32];
  if (bytes < (1ull << 30))
    std::snprintf(b, sizeof b, "%.0f MB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(b, sizeof b, "%.1f GB", static_cast<double>(bytes) / (1ull << 30));
  return b;
}

// Kept free for everything not measured (the kernel, the results' text).
uint64_t Margin(uint64_t budget) { return budget / 20 + (64ull << 20); }

}  // namespace

MemoryBudget::MemoryBudget(uint64_t limit)
    : budget_(limit != 0 ? limit : MemAvailableBytes()), base_(ResidentBytes()) {}

bool MemoryBudget::Check(size_t made, size_t total, std::string* err) {
  // The first switches pay for what later ones reuse (the heap keeps what
  // a switch's build freed), so the cost of a switch is measured from the
  // 16th on: projected at every 256th, and the whole checked at the last.
  if (budget_ == 0 || made == 0) return true;
  if (made == 16) at16_ = ResidentBytes();
  if (made != total && (made % 256 != 0 || at16_ == 0)) return true;
  const uint64_t now = ResidentBytes();
  const uint64_t used = now > base_ ? now - base_ : 0;
  uint64_t per = 0;
  if (made > 16 && at16_ != 0) per = (now > at16_ ? now - at16_ : 0) / (made - 16);
  const uint64_t need = used + per * (total - made) + Margin(budget_);
  if (need <= budget_) return true;
  std::string how = Size(used) + " so far for " + (made == total ? "its " : "its first ") +
                    std::to_string(made) + " switches and the frames' pool it starts with";
  if (made != total) {
    char each[32];
    std::snprintf(each, sizeof each, "%.1f MB", static_cast<double>(per) / (1 << 20));
    how += ", the other " + std::to_string(total - made) + " " + each + " each";
  }
  *err = "the fabric needs about " + Size(need) + " (" + how + "; " + Size(Margin(budget_)) +
         " kept free), " + Size(budget_) +
         " available (--memory-limit, else MemAvailable): run fewer switches, or on a machine "
         "with more memory";
  return false;
}

uint64_t MemoryBudget::Left() const {
  if (budget_ == 0) return 0;
  const uint64_t now = ResidentBytes();
  const uint64_t used = (now > base_ ? now - base_ : 0) + Margin(budget_);
  return budget_ > used ? budget_ - used : 0;
}

}  // namespace pfc::emulator
