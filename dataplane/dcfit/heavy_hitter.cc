// SPDX-License-Identifier: BSD-3-Clause
// Heavy hitters and the token bucket. See heavy_hitter.h.
#include "dataplane/dcfit/heavy_hitter.h"

#include <algorithm>

namespace pfc::dcfit {
namespace {
constexpr uint64_t kBitNsPerByte = 8'000'000'000ull;  // tokens per byte
}  // namespace

uint64_t FlowKeyOf(const uint8_t* f, size_t len) {
  size_t l3 = 14;
  if (len < 14) return 0;
  uint16_t type = static_cast<uint16_t>(f[12] << 8 | f[13]);
  if (type == 0x8100) {
    if (len < 18) return 0;
    type = static_cast<uint16_t>(f[16] << 8 | f[17]);
    l3 = 18;
  }
  if (type != 0x0800 || len < l3 + 20) return 0;
  uint64_t k = 0;
  for (size_t i = 0; i < 8; i++) k = k << 8 | f[l3 + 12 + i];
  return k;
}

std::string FlowKeyText(uint64_t key) {
  std::string s;
  for (int half = 1; half >= 0; --half) {
    const uint32_t a = static_cast<uint32_t>(key >> (32 * half));
    for (int b = 3; b >= 0; --b) {
      s += std::to_string(a >> (8 * b) & 0xff);
      if (b) s += '.';
    }
    if (half) s += '>';
  }
  return s;
}

void HeavyHitters::Offer(uint64_t key, uint32_t bytes) {
  total_ += bytes;
  Entry* min = &e_[0];
  for (Entry& e : e_) {
    if (e.bytes != 0 && e.key == key) {
      e.bytes += bytes;
      return;
    }
    if (e.bytes < min->bytes) min = &e;
  }
  // Space saving: the least counted key gives its slot up; the newcomer
  // inherits its count, an upper bound of what it may have sent unseen.
  *min = Entry{key, min->bytes + bytes, min->bytes};
}

void HeavyHitters::Reset() {
  e_ = {};
  total_ = 0;
}

int HeavyHitters::Top(double min_share, Entry* out, int n) const {
  std::array<Entry, kSlots> s = e_;
  std::sort(s.begin(), s.end(), [](const Entry& a, const Entry& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
  });
  int k = 0;
  for (const Entry& e : s) {
    if (k == n || e.bytes == 0) break;
    if (static_cast<double>(e.bytes) < min_share * static_cast<double>(total_)) break;
    out[k++] = e;
  }
  return k;
}

void TokenBucket::Configure(uint64_t rate_bps, uint32_t burst_bytes, uint64_t now_ns) {
  rate_bps_ = rate_bps;
  depth_ = uint64_t{burst_bytes} * kBitNsPerByte;
  tokens_ = depth_;
  last_ns_ = now_ns;
}

bool TokenBucket::Take(uint32_t bytes, uint64_t now_ns) {
  if (now_ns > last_ns_) {
    const uint64_t dt = now_ns - last_ns_;
    // rate (bit/s) * dt (ns) = bit-ns units gained; capped at the depth
    // (dt is bounded first so the product cannot overflow).
    const uint64_t cap_dt = rate_bps_ ? depth_ / rate_bps_ + 1 : 0;
    tokens_ = std::min(depth_, tokens_ + std::min(dt, cap_dt) * rate_bps_);
    last_ns_ = now_ns;
  }
  const uint64_t need = uint64_t{bytes} * kBitNsPerByte;
  if (tokens_ < need) return false;
  tokens_ -= need;
  return true;
}

}  // namespace pfc::dcfit
