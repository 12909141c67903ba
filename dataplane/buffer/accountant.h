// SPDX-License-Identifier: BSD-3-Clause
// Ingress buffer accounting per (port, priority) — the "priority groups" of a
// shared-buffer switch ASIC (SIGCOMM'16 §3). Every packet is charged, in
// bytes, to the (ingress port, ingress priority) it arrived in, from the
// moment it is admitted until it leaves the switch (or is dropped later).
//
// Model: each priority group (PG) owns `reserved` bytes; beyond that it draws
// from one shared pool (total - all reserved - all lossless headroom).
//  * lossy PG: admitted while its shared use stays <= its limit (static bytes,
//    or dynamic: alpha x free shared pool); else DropReason::kLossyBufferFull.
//  * lossless PG: bytes fill reserved, then shared up to the XOFF point, then
//    the PG's own headroom. The PFC generator (pause/) polls occupancy and sends
//    XOFF above XoffThreshold and XON at or below XonThreshold with the
//    headroom empty (PfcLevels); the headroom
//    absorbs what is in flight meanwhile. A packet that does not fit in the
//    headroom is dropped as DropReason::kLosslessHeadroom (never expected).
//  * No PG's limit exceeds what the pool can still give it (own shared use +
//    free shared), so a full pool pauses lossless PGs instead of overdrawing.
//  * Bytes that went into headroom are released first (as ASICs do), so the
//    headroom is free again as soon as the backlog drains below XOFF.
//
// Threading: occupancy counters are atomics. The ingress-port owner charges,
// and whichever worker transmits the packet releases; both batch per burst
// (IngressBatch / ReleaseBatch) so a burst costs a few atomic ops, not one
// per packet. The one word all workers write, the shared pool's use, is
// moved through a per-worker PoolSlack (below): a worker publishes its
// accumulated change only when it exceeds pool_slack() bytes either way
// or when the worker has a round with nothing to do. Each PG keeps (occupancy, bytes in headroom)
// in ONE 64-bit word updated by compare-and-swap, and shared_used moves by exactly the change of
// that PG's shared part, so the pool returns to exactly 0 when all packets
// are released, whatever the interleaving. The configuration is written once
// (Configure) before workers start; readers (telemetry, PFC generator) may
// read every accessor from any thread at any time.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "dataplane/common/types.h"

namespace pfc::buffer {

// The part of a PG's bytes outside headroom (`normal`) that the shared
// pool holds: what is past its reserved bytes.
inline uint64_t SharedPart(uint64_t normal, uint32_t reserved) {
  return normal > reserved ? normal - reserved : 0;
}

struct PgConfig {
  bool lossless = false;
  uint32_t reserved = 0;  // bytes guaranteed to this PG
  // Lossy: limit on shared use. Lossless: the XOFF threshold on shared use.
  // 0 = dynamic (alpha x free shared pool), else static bytes.
  uint32_t static_limit = 0;
  double alpha = 1.0;     // dynamic threshold factor (1/128 .. 8 typical; 1/1024..64 accepted)
  uint32_t headroom = 0;  // lossless only: bytes above XOFF (pause/headroom.h computes a default)
  uint32_t xon_hysteresis = 0;  // lossless only: XON = XOFF - hysteresis
};

struct BufferConfig {
  uint64_t total_bytes = 0;  // at most kMaxTotalBytes
  uint16_t num_ports = 0;
  // pg[port][prio]; entries of ports >= num_ports are ignored.
  std::array<std::array<PgConfig, kNumPrio>, kMaxPorts> pg{};
};

class BufferAccountant {
 public:
  // A PG's (occupancy, headroom) pair shares one 64-bit word: 2 GiB is far
  // above any software switch's mbuf pool and keeps both halves from wrapping.
  static constexpr uint64_t kMaxTotalBytes = uint64_t{1} << 31;

  // Validates (reserved + headroom must fit in total, hysteresis below XOFF
  // for static thresholds, lossless PGs need headroom, ...) and resets all
  // counters. On failure *err says which field does not fit and by how much.
  bool Configure(const BufferConfig& cfg, std::string* err);
  const BufferConfig& config() const { return cfg_; }

  uint64_t occupancy(PortId p, int prio) const {
    return Occ(pg(p, prio).state.load(std::memory_order_relaxed));
  }
  uint64_t watermark(PortId p, int prio) const {
    return pg(p, prio).wmark.load(std::memory_order_relaxed);
  }
  // Transiently (between two workers' updates of the same PG) the raw sum can
  // dip below zero; readers see it clamped.
  uint64_t shared_used() const {
    const int64_t v = static_cast<int64_t>(shared_used_.load(std::memory_order_relaxed));
    return v < 0 ? 0 : static_cast<uint64_t>(v);
  }
  uint64_t shared_size() const { return shared_size_; }
  // The most a worker's PoolSlack holds back from shared_used():
  // min(64 KiB, shared pool / 64).
  uint64_t pool_slack() const { return pool_slack_; }
  uint64_t shared_free() const { return shared_size_ - std::min(shared_used(), shared_size_); }
  // Current thresholds (dynamic ones move with the free shared pool).
  // XoffThreshold: occupancy above which to pause (lossy PGs: AdmitLimit).
  // XonThreshold: occupancy at or below which to resume.
  // AdmitLimit: the largest occupancy admitted.
  uint64_t XoffThreshold(PortId p, int prio) const;
  uint64_t XonThreshold(PortId p, int prio) const;
  // Both at once (the PFC generator's every look at a non-empty group):
  // XON is XOFF less the hysteresis, worked out once.
  void Thresholds(PortId p, int prio, uint64_t* xoff, uint64_t* xon) const {
    *xoff = XoffThreshold(p, prio);
    const uint32_t h = pg(p, prio).rule.xon_hysteresis;
    *xon = *xoff > h ? *xoff - h : 0;
  }
  // What the PFC generator compares (pause/pfc_generator.h): occupancy,
  // XOFF, and the level at or below which the group may resume: XON, or 0
  // while the group holds headroom bytes. A dynamic XOFF point that rose
  // (the pool drained elsewhere) can put XON above a group whose headroom
  // is still in use; resuming then would leave the next XOFF's bytes in
  // flight less headroom than they need (the HPCC simulator's MMU resumes
  // only with its headroom empty too). One load of the group's word.
  void PfcLevels(PortId p, int prio, uint64_t* occ, uint64_t* xoff, uint64_t* resume) const {
    const uint64_t s = pg(p, prio).state.load(std::memory_order_relaxed);
    *occ = Occ(s);
    Thresholds(p, prio, xoff, resume);
    if (Hr(s) != 0) *resume = 0;
  }
  uint64_t AdmitLimit(PortId p, int prio) const;
  // Bytes currently held in the PG's headroom (charged while the PG was at
  // or above XOFF, released first).
  uint64_t headroom_used(PortId p, int prio) const {
    return Hr(pg(p, prio).state.load(std::memory_order_relaxed));
  }
  uint64_t headroom_watermark(PortId p, int prio) const {
    return pg(p, prio).hr_wmark.load(std::memory_order_relaxed);
  }
  // Starts every PG's watermarks again from what it holds now (pfcctl clear
  // watermarks; control thread). A worker raising one at the same moment
  // either lands after this store (kept) or read the old, higher value and
  // did not raise: then the new watermark lacks at most that one update's
  // bytes until the next arrival, which is what a clear may cost.
  void ClearWatermarks();
  // Releases of more bytes than the PG held (a caller bug; clamped at 0).
  uint64_t release_underflows() const { return underflows_.load(std::memory_order_relaxed); }

  // Atomic update of one PG by delta bytes, keeping shared_used and the
  // watermarks exact under concurrency. Used by the batches below; never
  // refuses (admission is the batch's decision).
  void Apply(PortId p, int prio, int64_t delta) { Update(p, prio, delta, -1, nullptr); }
  // One thread charges and releases every PG and the pool (a switch served
  // by one worker: stages/worker.cc): updates are plain stores, not the
  // read-modify-write instructions several writers need (each a locked
  // instruction on x86, tens of cycles, two a packet per switch).
  void set_single_writer(bool on) { single_writer_ = on; }

 private:
  friend class IngressBatch;
  friend class ReleaseBatch;
  friend class PoolSlack;
  // What the packet path reads of a PG's configuration (cfg_.pg[p][q]),
  // on the line of its state: admitting or releasing touches one line.
  struct PgRule {
    uint32_t reserved = 0;
    uint32_t static_limit = 0;
    uint32_t headroom = 0;
    uint32_t xon_hysteresis = 0;
    uint32_t alpha_fp = 0;  // alpha x 2^16; 0 = static limit
    bool lossless = false;
  };
  struct alignas(64) Pg {
    std::atomic<uint64_t> state{0};  // low 32: occupancy, high 32: bytes in headroom
    std::atomic<uint64_t> wmark{0};
    std::atomic<uint64_t> hr_wmark{0};
    PgRule rule;  // written by Configure only
  };
  static_assert(sizeof(Pg) == 64, "a PG's state and rule share one line");
  static uint64_t Occ(uint64_t s) { return s & 0xffffffffu; }
  static uint64_t Hr(uint64_t s) { return s >> 32; }
  const Pg& pg(PortId p, int prio) const { return pgs_[p * kNumPrio + prio]; }
  Pg& pg(PortId p, int prio) { return pgs_[p * kNumPrio + prio]; }
  // Max shared bytes this PG may hold given its own shared use and the free
  // pool: min(static or alpha x free, own + free).
  uint64_t SharedCap(PortId p, int prio, uint64_t own_shared, uint64_t free) const;
  // to_hr >= 0: the caller (IngressBatch) already decided how many of the
  // charged bytes go to headroom; -1: split against the current thresholds.
  // pool_delta: nullptr, the shared pool moves now; else the move is added
  // to *pool_delta and the caller publishes the batch's sum with one atomic
  // add (PublishPool). Workers share that word: one add per batch, not one
  // per PG, keeps it from bouncing between their caches at every update.
  void Update(PortId p, int prio, int64_t delta, int64_t to_hr, int64_t* pool_delta);
  // Update for the one writer (set_single_writer), inline: a plain load and
  // store of the PG's word, none of the other writers' retries. Charge:
  // `to_hr` of the d bytes go to headroom, as the batch decided. Release:
  // headroom first. Both add the pool's move to *pool_delta.
  void ChargeSole(PortId p, int prio, uint64_t d, uint64_t to_hr, int64_t* pool_delta) {
    Pg& g = pg(p, prio);
    const uint64_t s = g.state.load(std::memory_order_relaxed);
    const uint64_t occ = Occ(s), hr = Hr(s);
    const uint64_t nocc = std::min<uint64_t>(occ + d, 0xffffffffu);
    const uint64_t nhr = std::min(hr + to_hr, nocc);
    g.state.store(nocc | nhr << 32, std::memory_order_relaxed);
    *pool_delta += SharedMove(g.rule.reserved, occ - hr, nocc - nhr);
    // A watermark only rises here. A clear (pfcctl, ClearWatermarks) between
    // the load and the store leaves the new level, as Update's
    // compare-and-swap does.
    if (nocc > g.wmark.load(std::memory_order_relaxed))
      g.wmark.store(nocc, std::memory_order_relaxed);
    if (nhr > g.hr_wmark.load(std::memory_order_relaxed))
      g.hr_wmark.store(nhr, std::memory_order_relaxed);
  }
  void ReleaseSole(PortId p, int prio, uint64_t d, int64_t* pool_delta) {
    Pg& g = pg(p, prio);
    const uint64_t s = g.state.load(std::memory_order_relaxed);
    const uint64_t occ = Occ(s), hr = Hr(s);
    if (d > occ) [[unlikely]] {
      d = occ;
      underflows_.fetch_add(1, std::memory_order_relaxed);
    }
    const uint64_t nocc = occ - d, nhr = hr - std::min(d, hr);
    g.state.store(nocc | nhr << 32, std::memory_order_relaxed);
    *pool_delta += SharedMove(g.rule.reserved, occ - hr, nocc - nhr);
  }
  // How far the pool moves when a PG's bytes outside headroom go from
  // `before` to `after`.
  static int64_t SharedMove(uint32_t reserved, uint64_t before, uint64_t after) {
    return static_cast<int64_t>(SharedPart(after, reserved)) -
           static_cast<int64_t>(SharedPart(before, reserved));
  }
  void PublishPool(int64_t pool_delta) {
    if (pool_delta == 0) return;
    if (single_writer_)
      shared_used_.store(
          shared_used_.load(std::memory_order_relaxed) + static_cast<uint64_t>(pool_delta),
          std::memory_order_relaxed);
    else
      shared_used_.fetch_add(static_cast<uint64_t>(pool_delta), std::memory_order_relaxed);
  }
  uint64_t FreeOf(int64_t used) const {
    const uint64_t u = used < 0 ? 0 : static_cast<uint64_t>(used);
    return u >= shared_size_ ? 0 : shared_size_ - u;
  }

  BufferConfig cfg_{};
  std::unique_ptr<Pg[]> pgs_;
  uint64_t shared_size_ = 0;
  uint64_t pool_slack_ = 0;
  bool single_writer_ = false;
  // The one word every worker writes (charges and releases that move the
  // shared pool), on a cache line of its own: the read-mostly fields above
  // must not bounce between the workers' caches with it.
  alignas(kWorkerAlign) std::atomic<uint64_t> shared_used_{0};  // signed sum, see shared_used()
  std::atomic<uint64_t> underflows_{0};
  char pad_[kWorkerAlign - 2 * sizeof(std::atomic<uint64_t>)] = {};
};

// A worker's unpublished change of the shared pool's use (one per worker
// and switch, owned by that worker). With two workers on different cores,
// one atomic add per batch on the pool word would cost a cache-line
// transfer (hundreds of ns) per batch and turn every reader's next load into
// a miss: the word moves only when a worker's change passes the slack.
// What other workers see of the pool so lags by at most pool_slack() per
// worker, the same order as the bursts they already admit concurrently
// (each decides on a view taken at its burst's start); the worker's own
// view (IngressBatch) includes its pending change and is exact for it.
// Publish() on an idle round (stages/worker.cc) brings shared_used() back
// to its exact value, 0 once everything is released.
//
// A switch served by one worker has nobody to bounce the word with: its
// worker turns the slack off (set_enabled(false), stages/worker.cc), so the
// pool word and the PFC generator's thresholds stay exact there.
class PoolSlack {
 public:
  void set_enabled(bool on) { enabled_ = on; }
  void Add(BufferAccountant& acct, int64_t delta) {
    if (!enabled_) {
      acct.PublishPool(delta);
      return;
    }
    pending_ += delta;
    const int64_t lim = static_cast<int64_t>(acct.pool_slack_);
    if (pending_ > lim || pending_ < -lim) Publish(acct);
  }
  void Publish(BufferAccountant& acct) {
    acct.PublishPool(pending_);
    pending_ = 0;
  }
  int64_t pending() const { return pending_; }
  // A batch's pool change: through the worker's slack when it has one
  // (nullptr: none), else to the shared word at once.
  static void AddOrPublish(PoolSlack* slack, BufferAccountant& acct, int64_t delta) {
    if (slack)
      slack->Add(acct, delta);
    else
      acct.PublishPool(delta);
  }

 private:
  int64_t pending_ = 0;
  bool enabled_ = true;
};

// Admission for one rx burst of ONE ingress port. Decisions see the packets
// admitted earlier in the same burst (and the pool as it was when the burst
// first touched it); Flush() (or the destructor) publishes.
//
// Fast path (inline, a few instructions): each priority of the burst gets a
// budget `limit_[prio]` on `spent_`, the bytes the fast path has admitted
// (any priority) since the exact view was last synced, low enough that
// admitting up to it cannot take that priority's shared use past its cap,
// even as the other priorities' admissions shrink the free pool (see
// ComputeLimit). A packet that fits is charged with two additions; one that
// does not takes the exact path (AdmitSlow), which syncs the view and
// computes new budgets. The decisions are
// identical to admitting every packet exactly (accountant_test checks it on
// random sequences): the fast path only says yes where the exact rule would.
class IngressBatch {
 public:
  // slack: the worker's PoolSlack (nullptr: publish the pool at Flush).
  // packets: the burst's size when known; a burst of one takes the rule at
  // once and publishes its charge (AdmitOne), with no budgets worked out for
  // packets that will not come (the emulator's switches, most bursts).
  IngressBatch(BufferAccountant& acct, PortId port, PoolSlack* slack = nullptr,
               uint16_t packets = 0);
  ~IngressBatch() { Flush(); }
  // True: charged. False: *why is kLossyBufferFull or kLosslessHeadroom.
  bool Admit(int prio, uint32_t bytes, DropReason* why) {
    if (spent_ + bytes <= limit_[prio]) {
      spent_ += bytes;
      fast_[prio] += bytes;
      return true;
    }
    return AdmitSlow(prio, bytes, why);
  }
  // Inline for the destructor's call after the pipeline's own (nothing
  // left then): every admitted packet loaded its priority.
  void Flush() {
    if (loaded_ != 0) FlushLoaded();
  }
  // Lossless priorities of this port held lossy for the burst: no headroom
  // (nobody is paused to make it enough), so a packet past the XOFF point
  // is refused with `why`, the reason of whoever holds them (the pipeline's
  // held_lossy hook, stages/hooks.h). The fast path never charges headroom,
  // so only the exact rule looks at it.
  void set_held_lossy(uint8_t prios, DropReason why) {
    no_headroom_ = prios;
    held_why_ = why;
  }

 private:
  bool AdmitSlow(int prio, uint32_t bytes, DropReason* why);
  void FlushLoaded();
  // The rule on a view of prio's group (occupancy, headroom bytes) and of
  // the pool (`used`): whether `bytes` more fit, and how many of them go
  // into headroom (*to_hr).
  bool Rule(int prio, uint64_t occ, uint64_t hr, int64_t used, uint32_t bytes, uint64_t* to_hr,
            DropReason* why) const;
  // The rule on the exact local view, which it moves.
  bool AdmitExact(int prio, uint32_t bytes, DropReason* why);
  // A burst of one packet: the rule on the accountant's own state, and the
  // charge published at once (what Flush would publish), with no local
  // view to set up and fold back.
  bool AdmitOne(int prio, uint32_t bytes, DropReason* why);
  // Folds the fast path's bytes into the exact local view (occ_, delta_,
  // shared_used_) and zeroes spent_ (the budgets must then be recomputed).
  void Sync();
  // Budget on spent_ for prio, from the synced view and spent_.
  uint64_t ComputeLimit(int prio) const;

  BufferAccountant& acct_;
  PoolSlack* slack_;
  PortId port_;
  uint64_t spent_ = 0;                      // fast-path bytes since the last Sync
  std::array<uint64_t, kNumPrio> limit_{};  // budgets on spent_ (0: none)
  // Per prio, set when the prio joins the batch (bit in loaded_), so a
  // batch of one priority, the usual burst, starts with one array to clear.
  std::array<uint64_t, kNumPrio> fast_;   // fast-path bytes since the last Sync
  std::array<uint64_t, kNumPrio> occ_;    // local view: occupancy incl. this burst
  std::array<uint64_t, kNumPrio> hr_;     // local view: bytes in headroom
  std::array<int64_t, kNumPrio> delta_;   // bytes admitted this burst, to publish
  std::array<int64_t, kNumPrio> hr_add_;  // of which into headroom
  int64_t shared_used_ = 0;               // local view of the pool
  uint8_t loaded_ = 0;                    // prios whose snapshot is taken
  uint8_t no_headroom_ = 0;               // set_held_lossy
  DropReason held_why_ = DropReason::kLosslessHeadroom;
  bool pool_loaded_ = false;
  bool one_ = false;  // a burst of one packet
};

// A (port, priority) -> small index table (kMaxPorts x 8 bytes), all
// kNone between uses: a batch that groups packets by (port, priority) fills
// entries and puts back the ones it used, so a burst does not clear the
// whole table. A worker keeps one per call site (WorkerCtx); at most one
// live batch may use a table.
struct SlotTable {
  static constexpr uint8_t kNone = 0xff;
  uint8_t s[kMaxPorts * kNumPrio];
  explicit SlotTable(bool clear = true) {
    if (clear) std::memset(s, kNone, sizeof s);
  }
};

// Releases for one tx burst (packets from any ingress PG).
class ReleaseBatch {
 public:
  // slots: a table the caller keeps (see SlotTable), or nullptr for one of
  // the batch's own, cleared here (fine for rare paths, 512 bytes a burst
  // on hot ones).
  explicit ReleaseBatch(BufferAccountant& acct, PoolSlack* slack = nullptr,
                        SlotTable* slots = nullptr)
      : acct_(acct), slack_(slack), own_(slots == nullptr), slot_(slots ? slots->s : own_.s) {}
  ~ReleaseBatch() { Flush(); }
  void Add(PortId in_port, int in_prio, uint32_t bytes) {
    const unsigned key = in_port * kNumPrio + static_cast<unsigned>(in_prio);
    const uint8_t s = slot_[key];
    if (s != SlotTable::kNone) {
      bytes_[s] += bytes;
      return;
    }
    AddNew(key, bytes);
  }
  // Inline for the common empty case (an ingress burst's undo batch).
  void Flush() {
    if (n_ != 0) FlushEntries();
  }

 private:
  void AddNew(unsigned key, uint32_t bytes);
  void FlushEntries();
  BufferAccountant& acct_;
  PoolSlack* slack_;
  // The PGs touched since the last flush: key_[i] = in_port * 8 + prio with
  // bytes_[i] to release, and slot_[key] = i (kNone: not yet), so an Add is
  // one indexed load whatever the order packets come in. More than
  // kMaxBurst distinct PGs between flushes flush early.
  SlotTable own_;  // cleared only when the caller gives no table
  uint8_t* slot_;
  uint16_t key_[kMaxBurst];
  int64_t bytes_[kMaxBurst];
  int n_ = 0;
};
static_assert(kMaxBurst < 0xff, "ReleaseBatch slots fit in a byte");

}  // namespace pfc::buffer
