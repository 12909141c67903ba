// SPDX-License-Identifier: BSD-3-Clause
// Buffer accountant: configuration checks, the per-PG compare-and-swap
// update, and the per-burst admission/release batches. See accountant.h.
#include "dataplane/buffer/accountant.h"

#include <cmath>
#include <string>

namespace pfc::buffer {
namespace {

constexpr double kMinAlpha = 1.0 / 1024;
constexpr double kMaxAlpha = 64.0;

std::string PgName(int port, int prio) {
  return "buffer.pg[port " + std::to_string(port) + "][prio " + std::to_string(prio) + "]";
}

// Raises an atomic maximum; the plain load first keeps the common case
// (no new maximum) free of read-modify-write traffic.
void RaiseMax(std::atomic<uint64_t>& m, uint64_t v) {
  uint64_t cur = m.load(std::memory_order_relaxed);
  while (v > cur && !m.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

}  // namespace

bool BufferAccountant::Configure(const BufferConfig& cfg, std::string* err) {
  auto fail = [&](const std::string& msg) {
    if (err) *err = msg;
    return false;
  };
  if (cfg.num_ports == 0 || cfg.num_ports > kMaxPorts)
    return fail("buffer.num_ports = " + std::to_string(cfg.num_ports) + ": expected 1.." +
                std::to_string(kMaxPorts));
  if (cfg.total_bytes == 0 || cfg.total_bytes > kMaxTotalBytes)
    return fail("buffer.total_bytes = " + std::to_string(cfg.total_bytes) + ": expected 1.." +
                std::to_string(kMaxTotalBytes) + " bytes");

  uint64_t reserved_sum = 0, headroom_sum = 0;
  std::array<uint32_t, kMaxPorts * kNumPrio> alpha_fp{};  // alpha x 2^16; 0 = static limit
  for (int p = 0; p < cfg.num_ports; ++p) {
    for (int q = 0; q < kNumPrio; ++q) {
      const PgConfig& c = cfg.pg[p][q];
      const std::string name = PgName(p, q);
      reserved_sum += c.reserved;
      if (c.static_limit == 0) {
        if (!std::isfinite(c.alpha) || c.alpha < kMinAlpha || c.alpha > kMaxAlpha)
          return fail(name + ".alpha = " + std::to_string(c.alpha) +
                      ": dynamic threshold (static_limit 0) needs alpha in [1/1024, 64]");
        alpha_fp[p * kNumPrio + q] =
            static_cast<uint32_t>(std::max(1.0, std::round(c.alpha * 65536.0)));
      }
      if (!c.lossless) {
        if (c.headroom != 0)
          return fail(name + ".headroom = " + std::to_string(c.headroom) +
                      ": headroom only applies to lossless priorities (expected 0)");
        if (c.xon_hysteresis != 0)
          return fail(name + ".xon_hysteresis = " + std::to_string(c.xon_hysteresis) +
                      ": XON only applies to lossless priorities (expected 0)");
        continue;
      }
      if (c.headroom == 0)
        return fail(name +
                    ".headroom = 0: a lossless priority needs headroom for the bytes in "
                    "flight after XOFF (see dataplane/pause/headroom.h for the default)");
      headroom_sum += c.headroom;
      if (c.static_limit != 0) {
        const uint64_t xoff = uint64_t{c.reserved} + c.static_limit;
        if (c.xon_hysteresis >= xoff)
          return fail(name + ".xon_hysteresis = " + std::to_string(c.xon_hysteresis) +
                      ": must be below the XOFF threshold reserved + static_limit = " +
                      std::to_string(xoff) + " bytes");
      }
    }
  }
  const uint64_t carved = reserved_sum + headroom_sum;
  if (carved > cfg.total_bytes)
    return fail("buffer.total_bytes = " + std::to_string(cfg.total_bytes) +
                " cannot hold the reserved space (" + std::to_string(reserved_sum) +
                " bytes) plus the lossless headroom (" + std::to_string(headroom_sum) +
                " bytes) of " + std::to_string(cfg.num_ports) + " ports: short by " +
                std::to_string(carved - cfg.total_bytes) +
                " bytes (headroom: auto assumes the worst mix of small frames; "
                "buffer.lossless.small_packets lowers it for a class of full frames)");

  cfg_ = cfg;
  shared_size_ = cfg.total_bytes - carved;
  pool_slack_ = std::min<uint64_t>(uint64_t{64} << 10, shared_size_ / 64);
  pgs_ = std::make_unique<Pg[]>(static_cast<size_t>(cfg.num_ports) * kNumPrio);
  for (int p = 0; p < cfg.num_ports; ++p) {
    for (int q = 0; q < kNumPrio; ++q) {
      const PgConfig& c = cfg.pg[p][q];
      PgRule& r = pgs_[p * kNumPrio + q].rule;
      r.reserved = c.reserved;
      r.static_limit = c.static_limit;
      r.headroom = c.headroom;
      r.xon_hysteresis = c.xon_hysteresis;
      r.alpha_fp = alpha_fp[p * kNumPrio + q];
      r.lossless = c.lossless;
    }
  }
  shared_used_.store(0, std::memory_order_relaxed);
  underflows_.store(0, std::memory_order_relaxed);
  return true;
}

uint64_t BufferAccountant::SharedCap(PortId p, int prio, uint64_t own_shared, uint64_t free) const {
  const PgRule& r = pg(p, prio).rule;
  const uint32_t a = r.alpha_fp;
  // free < 2^31 and a <= 64 x 2^16, so the product stays below 2^53.
  const uint64_t lim = a ? (free * a) >> 16 : r.static_limit;
  return std::min(lim, own_shared + free);
}

uint64_t BufferAccountant::XoffThreshold(PortId p, int prio) const {
  const PgRule& c = pg(p, prio).rule;
  const uint64_t s = pg(p, prio).state.load(std::memory_order_relaxed);
  const uint64_t own = SharedPart(Occ(s) - Hr(s), c.reserved);
  const int64_t used = static_cast<int64_t>(shared_used_.load(std::memory_order_relaxed));
  return c.reserved + SharedCap(p, prio, own, FreeOf(used));
}

uint64_t BufferAccountant::XonThreshold(PortId p, int prio) const {
  uint64_t xoff, xon;
  Thresholds(p, prio, &xoff, &xon);
  return xon;
}

uint64_t BufferAccountant::AdmitLimit(PortId p, int prio) const {
  const PgRule& c = pg(p, prio).rule;
  return XoffThreshold(p, prio) + (c.lossless ? c.headroom : 0);
}

void BufferAccountant::Update(PortId p, int prio, int64_t delta, int64_t hint_hr,
                              int64_t* pool_delta) {
  if (delta == 0) return;
  Pg& g = pg(p, prio);
  const PgRule& c = g.rule;
  uint64_t s = g.state.load(std::memory_order_relaxed);
  uint64_t ns, nocc, nhr;
  bool underflow;
  for (;;) {
    const uint64_t occ = Occ(s), hr = Hr(s), normal = occ - hr;
    underflow = false;
    if (delta > 0) {
      const uint64_t d = static_cast<uint64_t>(delta);
      uint64_t to_hr = hint_hr > 0 ? static_cast<uint64_t>(hint_hr) : 0;
      if (c.lossless && hint_hr < 0) {
        // Charge: reserved, then shared up to the XOFF point, then headroom.
        // Only this split reads the pool word (batches pass their split):
        // a load of a line other workers write is a miss.
        const int64_t used = static_cast<int64_t>(shared_used_.load(std::memory_order_relaxed));
        const uint64_t own = SharedPart(normal, c.reserved);
        const uint64_t xoff_normal = c.reserved + SharedCap(p, prio, own, FreeOf(used));
        const uint64_t room = xoff_normal > normal ? xoff_normal - normal : 0;
        to_hr = d > room ? d - room : 0;
      }
      nocc = std::min<uint64_t>(occ + d, 0xffffffffu);
      nhr = std::min(hr + to_hr, nocc);
    } else {
      // Release: headroom first, then shared, then reserved.
      uint64_t d = static_cast<uint64_t>(-delta);
      if (d > occ) {
        d = occ;
        underflow = true;
      }
      nocc = occ - d;
      nhr = hr - std::min(d, hr);
    }
    ns = nocc | (nhr << 32);
    if (single_writer_) {
      g.state.store(ns, std::memory_order_relaxed);
      break;
    }
    if (g.state.compare_exchange_weak(s, ns, std::memory_order_relaxed)) break;
  }
  // s is the word we replaced: the pool moves by exactly this PG's change.
  const int64_t dshared = SharedMove(c.reserved, Occ(s) - Hr(s), nocc - nhr);
  if (pool_delta != nullptr)
    *pool_delta += dshared;
  else
    PublishPool(dshared);
  if (underflow) underflows_.fetch_add(1, std::memory_order_relaxed);
  if (delta > 0) {
    RaiseMax(g.wmark, nocc);
    if (nhr) RaiseMax(g.hr_wmark, nhr);
  }
}

void BufferAccountant::ClearWatermarks() {
  if (!pgs_) return;
  for (size_t i = 0; i < static_cast<size_t>(cfg_.num_ports) * kNumPrio; i++) {
    Pg& g = pgs_[i];
    const uint64_t s = g.state.load(std::memory_order_relaxed);
    g.wmark.store(Occ(s), std::memory_order_relaxed);
    g.hr_wmark.store(Hr(s), std::memory_order_relaxed);
  }
}

IngressBatch::IngressBatch(BufferAccountant& acct, PortId port, PoolSlack* slack, uint16_t packets)
    : acct_(acct), slack_(slack), port_(port), one_(packets == 1) {}

void IngressBatch::Sync() {
  for (uint32_t m = loaded_; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    const uint64_t f = fast_[q];
    if (f == 0) continue;
    // The fast path charged normal (not headroom) bytes: the pool moved by
    // this PG's change of shared part.
    const uint32_t reserved = acct_.pg(port_, q).rule.reserved;
    const uint64_t normal = occ_[q] - hr_[q];
    shared_used_ += BufferAccountant::SharedMove(reserved, normal, normal + f);
    occ_[q] += f;
    delta_[q] += static_cast<int64_t>(f);
    fast_[q] = 0;
  }
  spent_ = 0;
}

uint64_t IngressBatch::ComputeLimit(int prio) const {
  const BufferAccountant::PgRule& c = acct_.pg(port_, prio).rule;
  if (c.lossless && hr_[prio] > c.headroom) return spent_;  // the exact rule refuses everything
  const uint64_t own = SharedPart(occ_[prio] - hr_[prio], c.reserved);
  // The pool has moved by at most spent_ since the exact view was synced.
  const uint64_t synced_free = acct_.FreeOf(shared_used_);
  const uint64_t free = synced_free > spent_ ? synced_free - spent_ : 0;
  // With g more bytes admitted (any prio), this PG's shared use is at most
  // own + g and the pool has at least free - g left, so its cap is at least
  // lim(free - g). Static: own + g <= static_limit and g <= free. Dynamic:
  // own + g <= (free - g) x alpha, i.e. g <= (free x alpha - own) /
  // (1 + alpha), rounded down in the same fixed point as SharedCap.
  const uint32_t a = c.alpha_fp;
  uint64_t g;
  if (a == 0) {
    g = c.static_limit > own ? c.static_limit - own : 0;
  } else {
    const uint64_t x = (free * a) >> 16;
    g = x > own ? ((x - own) << 16) / (65536u + a) : 0;
  }
  return spent_ + std::min(g, free);
}

bool IngressBatch::AdmitSlow(int prio, uint32_t bytes, DropReason* why) {
  if (one_) return AdmitOne(prio, bytes, why);
  const uint8_t bit = static_cast<uint8_t>(1u << prio);
  if (!pool_loaded_) {
    shared_used_ = static_cast<int64_t>(acct_.shared_used_.load(std::memory_order_relaxed)) +
                   (slack_ ? slack_->pending() : 0);
    pool_loaded_ = true;
  }
  if (!(loaded_ & bit)) {
    // First packet of this prio in the burst: its snapshot is exact (the
    // fast path has charged nothing to it), so it joins with a budget of its own.
    const uint64_t s = acct_.pg(port_, prio).state.load(std::memory_order_relaxed);
    occ_[prio] = BufferAccountant::Occ(s);
    hr_[prio] = BufferAccountant::Hr(s);
    fast_[prio] = 0;
    delta_[prio] = hr_add_[prio] = 0;
    loaded_ |= bit;
    limit_[prio] = ComputeLimit(prio);
    if (spent_ + bytes <= limit_[prio]) {
      spent_ += bytes;
      fast_[prio] += bytes;
      return true;
    }
  }
  Sync();
  const bool ok = AdmitExact(prio, bytes, why);
  // New budgets from the exact view, for every prio seen so far.
  for (uint32_t m = loaded_; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    limit_[q] = ComputeLimit(q);
  }
  return ok;
}

bool IngressBatch::Rule(int prio, uint64_t occ, uint64_t hr, int64_t used, uint32_t bytes,
                        uint64_t* to_hr, DropReason* why) const {
  const BufferAccountant::PgRule& c = acct_.pg(port_, prio).rule;
  const uint64_t normal = occ - hr;
  const uint64_t cap =
      acct_.SharedCap(port_, prio, SharedPart(normal, c.reserved), acct_.FreeOf(used));
  *to_hr = 0;
  if (!c.lossless) {
    if (SharedPart(normal + bytes, c.reserved) > cap) {
      *why = DropReason::kLossyBufferFull;
      return false;
    }
    return true;
  }
  const uint64_t xoff_normal = c.reserved + cap;
  const uint64_t room = xoff_normal > normal ? xoff_normal - normal : 0;
  *to_hr = bytes > room ? bytes - room : 0;
  if (*to_hr > 0 && (no_headroom_ >> prio & 1)) {
    *why = held_why_;
    return false;
  }
  if (hr + *to_hr > c.headroom) {
    *why = DropReason::kLosslessHeadroom;
    return false;
  }
  return true;
}

bool IngressBatch::AdmitExact(int prio, uint32_t bytes, DropReason* why) {
  const uint64_t hr = hr_[prio], normal = occ_[prio] - hr;
  uint64_t to_hr;
  if (!Rule(prio, occ_[prio], hr, shared_used_, bytes, &to_hr, why)) return false;
  const uint64_t nnormal = normal + bytes - to_hr;
  shared_used_ +=
      BufferAccountant::SharedMove(acct_.pg(port_, prio).rule.reserved, normal, nnormal);
  hr_[prio] = hr + to_hr;
  occ_[prio] = nnormal + hr_[prio];
  delta_[prio] += bytes;
  hr_add_[prio] += static_cast<int64_t>(to_hr);
  return true;
}

bool IngressBatch::AdmitOne(int prio, uint32_t bytes, DropReason* why) {
  const int64_t used = static_cast<int64_t>(acct_.shared_used_.load(std::memory_order_relaxed)) +
                       (slack_ ? slack_->pending() : 0);
  const uint64_t s = acct_.pg(port_, prio).state.load(std::memory_order_relaxed);
  uint64_t to_hr;
  if (!Rule(prio, BufferAccountant::Occ(s), BufferAccountant::Hr(s), used, bytes, &to_hr, why))
    return false;
  // What FlushLoaded publishes for a batch that admitted this one packet.
  int64_t pool = 0;
  if (acct_.single_writer_)
    acct_.ChargeSole(port_, prio, bytes, to_hr, &pool);
  else
    acct_.Update(port_, prio, bytes, static_cast<int64_t>(to_hr), &pool);
  PoolSlack::AddOrPublish(slack_, acct_, pool);
  return true;
}

void IngressBatch::FlushLoaded() {
  Sync();
  int64_t pool = 0;
  for (uint32_t m = loaded_; m; m &= m - 1) {
    const int q = __builtin_ctz(m);
    // Publish the split decided here: only this port's owner charges the PG
    // and releases only shrink its headroom use, so it stays <= headroom.
    if (delta_[q] != 0) {
      if (acct_.single_writer_)
        acct_.ChargeSole(port_, q, static_cast<uint64_t>(delta_[q]),
                         static_cast<uint64_t>(hr_add_[q]), &pool);
      else
        acct_.Update(port_, q, delta_[q], hr_add_[q], &pool);
    }
    limit_[q] = 0;
  }
  PoolSlack::AddOrPublish(slack_, acct_, pool);
  loaded_ = 0;
  pool_loaded_ = false;
}

void ReleaseBatch::AddNew(unsigned key, uint32_t bytes) {
  if (n_ == kMaxBurst) FlushEntries();
  slot_[key] = static_cast<uint8_t>(n_);
  key_[n_] = static_cast<uint16_t>(key);
  bytes_[n_] = bytes;
  ++n_;
}

void ReleaseBatch::FlushEntries() {
  int64_t pool = 0;
  const bool sole = acct_.single_writer_;
  for (int i = 0; i < n_; ++i) {
    const auto port = static_cast<PortId>(key_[i] / kNumPrio);
    const int prio = key_[i] % kNumPrio;
    if (sole)
      acct_.ReleaseSole(port, prio, static_cast<uint64_t>(bytes_[i]), &pool);
    else
      acct_.Update(port, prio, -bytes_[i], -1, &pool);
    slot_[key_[i]] = SlotTable::kNone;
  }
  PoolSlack::AddOrPublish(slack_, acct_, pool);
  n_ = 0;
}

}  // namespace pfc::buffer
