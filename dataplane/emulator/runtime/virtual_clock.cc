// SPDX-License-Identifier: BSD-3-Clause
// The virtual clock's run (virtual_clock.h). Every switch and host is an
// entity in a calendar (model/due_queue.h) with the time it is next due;
// the loop runs what is due now, lets each report its next deadline
// (common/deadline.h), then jumps to the earliest of those, the next
// timeline event and the recorder's next sample; with --threads, each
// partition does so on its thread up to the window's end, and the main
// thread does the boundary. A host's round, which both clocks run, is
// host.cc.
#include "dataplane/emulator/runtime/virtual_clock.h"

#include <pthread.h>
#include <rte_lcore.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <ctime>
#include <thread>

#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/worker.h"

namespace pfc::emulator {

namespace {

// The window boundary between the main thread and the partitions' threads:
// each thread reports its window done (Arrive), the main thread waits for
// all (AwaitAll), does the boundary alone and opens the next window
// (Open). Spins a little (a window is often tens of microseconds), yields,
// then sleeps in the kernel, so a waiting thread does not hold a core that
// a partition's thread could use (more threads than cores).
class WindowSync {
 public:
  void Arrive() {
    arrived_.fetch_add(1, std::memory_order_release);
    arrived_.notify_one();
  }
  // Worker: the next window after `seen` (its generation).
  void AwaitOpen(uint64_t* seen) {
    uint64_t g = Spin(gen_, *seen);
    while (g == *seen) {
      gen_.wait(g, std::memory_order_acquire);
      g = gen_.load(std::memory_order_acquire);
    }
    *seen = g;
  }
  void AwaitAll(unsigned workers) {
    if (workers == 0) return;  // one partition here (over MPI ranks, every window)
    for (unsigned a = Spin(arrived_, 0u); a != workers;
         a = arrived_.load(std::memory_order_acquire))
      arrived_.wait(a, std::memory_order_acquire);
    arrived_.store(0, std::memory_order_relaxed);
  }
  void Open() {
    gen_.fetch_add(1, std::memory_order_release);
    gen_.notify_all();
  }

 private:
  // Polls v while it equals `still` (up to a bound); its last value.
  template <typename T>
  static T Spin(const std::atomic<T>& v, T still) {
    T x = v.load(std::memory_order_acquire);
    for (int i = 0; i < 256 && x == still; i++) {
      if (i < 192)
        __builtin_ia32_pause();
      else
        std::this_thread::yield();
      x = v.load(std::memory_order_acquire);
    }
    return x;
  }
  alignas(64) std::atomic<unsigned> arrived_{0};
  alignas(64) std::atomic<uint64_t> gen_{0};
};

// A thread's share of Run's windows (WindowTimes), on a line of its own.
struct alignas(64) ThreadClock {
  uint64_t busy_ns = 0, wait_ns = 0;
  uint64_t last_ns = 0;  // its last window
};

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

void VirtualClock::PrefetchStart(uint32_t id) const {
  if (id < n_sws_)
    stages::PrefetchRoundStart(&sws_[id].ctx, &sws_[id].active);
  else if (id - n_sws_ < n_hosts_)
    __builtin_prefetch(&hosts_[id - n_sws_].landing);
}

void VirtualClock::PrefetchRingTable(uint32_t id) const {
  if (id < n_sws_) {
    using Rx = decltype(stages::ActivePorts::next_rx)::value_type;
    const auto* a = reinterpret_cast<const char*>(&sws_[id].active);
    const size_t a_end = std::min(sizeof(stages::ActivePorts),
                                  offsetof(stages::ActivePorts, next_rx) + sizeof(Rx) * rx_stride_);
    // The first line came with PrefetchStart.
    for (size_t o = 64; o < a_end; o += 64) __builtin_prefetch(a + o);
    const auto* q = reinterpret_cast<const char*>(rx_queues_.data() + size_t{id} * rx_stride_);
    for (size_t o = 0; o < sizeof(void*) * rx_stride_; o += 64) __builtin_prefetch(q + o);
  } else if (id - n_sws_ < n_hosts_) {
    __builtin_prefetch(&host_rx_queues_[id - n_sws_]);
  }
}

void VirtualClock::PrefetchPorts(uint32_t id, uint64_t at) const {
  // A switch of another rank has no context (nor ever runs here).
  if (id < n_sws_) {
    if (sws_[id].ctx.sw != nullptr) stages::PrefetchRoundPorts(sws_[id].ctx, at);
    return;
  }
  if (id - n_sws_ >= n_hosts_) return;
  // A host: its NIC, its model and the frame landing, as for a switch's port.
  const Host& h = hosts_[id - n_sws_];
  __builtin_prefetch(h.nic);
  __builtin_prefetch(h.model.get());
  if (h.landing.at <= at) sw::PrefetchLanding(h.landing);
}

// Every frame landing on the entity in the window, fetched as it starts:
// the first round's came with PrefetchPorts, the later rounds' would each
// wait on a frame another switch sent a link's delay ago. Up to about a
// window's full-size frames at 400G a port (16 took 1.035 of the CPU of
// 48 on the HPCC simulator's fat-tree; 256 the same as 48).
void VirtualClock::PrefetchWindow(uint32_t id) const {
  constexpr size_t kWindowFetch = 48;
  if (id >= n_sws_) {
    const Host& h = hosts_[id - n_sws_];
    if (h.landing.at < win_end_)
      EmuPort::PrefetchLandingBefore(*host_rx_queues_[id - n_sws_], win_end_, kWindowFetch);
    return;
  }
  const stages::ActivePorts* a;
  const EmuPort::RxQueue* const* q = RingsOf(id, &a);
  if (q == nullptr) return;
  for (PortMask m = a->rx; m != 0; m &= m - 1) {
    const auto p = static_cast<uint16_t>(__builtin_ctzll(m));
    if (a->next_rx[p].at >= win_end_) continue;
    if (q[p] != nullptr) EmuPort::PrefetchLandingBefore(*q[p], win_end_, kWindowFetch);
  }
}

// PrefetchWindow's loop again, on purpose: the two as one template taking
// a lambda compiled into a slower RunWindow (perf: 1,156-1,267 samples of
// it on fattree:16 against 770-1,199).
void VirtualClock::PrefetchRings(uint32_t id) const {
  if (id >= n_sws_) {
    if (id - n_sws_ < n_hosts_ && hosts_[id - n_sws_].landing.at < win_end_)
      host_rx_queues_[id - n_sws_]->PrefetchIndices();
    return;
  }
  const stages::ActivePorts* a;
  const EmuPort::RxQueue* const* q = RingsOf(id, &a);
  if (q == nullptr) return;
  for (PortMask m = a->rx; m != 0; m &= m - 1) {
    const auto p = static_cast<uint16_t>(__builtin_ctzll(m));
    if (a->next_rx[p].at < win_end_ && q[p] != nullptr) q[p]->PrefetchIndices();
  }
}

void VirtualClock::RunWindowByEntity(Part& part) {
  for (uint64_t at = part.due.Next(); at < win_end_; at = part.due.Next()) {
    const uint32_t id = part.due.PeekFirst();
    part.due.Set(id, kNever);  // what was sent to it meanwhile is in its rounds' answers
    PrefetchWindow(id);
    // While it runs, what runs after it: the next one's ports (its first
    // lines came during the entity before this one) and the first lines
    // of the one after that.
    uint32_t next, after;
    part.due.PeekTwo(&next, &after);
    PrefetchPorts(next, part.due.Next());
    PrefetchRings(next);
    PrefetchStart(after);
    PrefetchRingTable(after);
    // Every round it has in the window. What it sends lands after the
    // window (entity_window_ns_), and what others send it this window
    // lands after it too, so its rounds are those of time order.
    uint64_t now = at, due;
    while ((due = Round(part, id, now)) < win_end_) now = due;
    part.due.Lower(id, due);
  }
}

uint64_t VirtualClock::Round(Part& part, uint32_t id, uint64_t now) {
  if (id >= n_sws_) return hosts_[id - n_sws_].Round(dp_, now);
  if (qlen_.on()) qlen_.BeforeRound(id, sws_[id].ctx, now);
  Deadline ready = kNever;
  const unsigned work = stages::WorkerRound(sws_[id].ctx, now, &ready);
  part.rounds++;
  // One partition only (CheckThreads refuses DCFIT with more).
  if (stages::DcfitOf(*sws_[id].sw)) dcfit_.Take(dcfit_sws_, plan_, id, true);
  // A deadline already reached (none is, as the stages report them)
  // would also be due now.
  if (work != 0 && (stages::RoundLeftWork(sws_[id].ctx) || ready <= now)) return now;
  return ready == kNever ? kNever : Step(std::max(ready, now + 1));  // a switch runs on steps
}

void VirtualClock::RunWindow(Part& part) {
  if (by_entity_) {
    RunWindowByEntity(part);
    return;
  }
  std::vector<uint32_t>& run = part.run;
  for (;;) {
    const uint64_t now = part.due.Next();
    if (now >= win_end_) break;  // kNever too
    // Run what is due now, switches by index then hosts, in passes until
    // nothing is (a round with work runs again at the same time when it may
    // have left something due now: RoundLeftWork). Nothing run in a pass
    // makes another entity due at this very time (a frame lands after its
    // wire time, which is > 0; events come before the passes), so taking a
    // pass's set up front runs the same rounds in the same order as scanning
    // every entity in turn.
    for (part.due.TakeDue(now, &run); !run.empty(); part.due.TakeDue(now, &run)) {
      for (size_t k = 0; k < run.size(); k++) {
        const uint32_t id = run[k];
        part.due.Set(id, kNever);  // a frame delivered to it meanwhile is in its round's answer
        // What runs next and after it, as far as the calendar says now,
        // fetched a round ahead: the next one's ports (its first lines came
        // during the round before this one), and the first lines of the one
        // after it.
        const bool next_here = k + 1 < run.size();
        uint32_t next, after;
        if (next_here) {
          next = run[k + 1];
          after = k + 2 < run.size() ? run[k + 2] : part.due.PeekFirst();
        } else {
          part.due.PeekTwo(&next, &after);
        }
        PrefetchPorts(next, next_here ? now : part.due.Next());
        PrefetchStart(after);
        part.due.Lower(id, Round(part, id, now));
      }
    }
    // One partition's window runs to the next sample or event, which may be
    // minutes away: a signal ends it after this instant (with partitions or
    // ranks, windows are a lookahead long and Boundary looks).
    if (parts_.size() == 1 && stop_->load(std::memory_order_relaxed) != 0 &&
        fab_.spec().ranks <= 1) {
      win_end_ = now + 1;
      break;
    }
  }
}

void VirtualClock::InboundDue() {
  for (const auto& part : parts_) {
    for (const Part::Inbound& in : part->inbound) {
      const sw::Landing a = in.port->NextLanding();
      if (a.at == kNever) continue;
      // A stepped switch is due at the end of the step it lands in, as the
      // sender's Pump makes it within a partition.
      part->due.Lower(in.id, StepUp(a.at, in.port->step_ns()));
      if (in.active != nullptr) *in.active |= in.bit;
      if (in.landing != nullptr && a.at < in.landing->at) *in.landing = a;
    }
  }
}

void VirtualClock::Boundary() {
  const uint64_t end = duration_ns_;
  const bool ranked = fab_.spec().ranks > 1;
  uint64_t sent_ns = kNever;  // the earliest arrival of what went to other ranks
  if (started_) {
    // Every partition has run everything up to `last`: the state the one
    // thread has after its step at that time.
    const uint64_t last = win_end_ - 1;
    // Every frame that started before the window's end less a step is in
    // (a switch sends a frame on from its landing up to a step before the
    // round that sends it): those go to their captures' files, by start.
    fab_.FlushCaptures(win_end_ > quantum_ns_ ? win_end_ - quantum_ns_ : 0);
    if (last == rec_.next_ns()) Sample(last);
    // A signal: the run ends here, with what it has, as at its end (over
    // ranks, at the boundary after they agreed on it).
    if (!ranked) stopping_ = stop_->load(std::memory_order_relaxed);
    if (last >= end || stopping_ != 0) {
      stopped_by_ = last >= end ? 0 : stopping_;
      now_ = last;
      done_ = true;
      return;
    }
    // Frames that crossed into a partition: their receivers are due when
    // the first lands (each receiver's round reports the next ones). Those
    // for another rank are taken off their stand-ins to go there.
    if (ranked) sent_ns = rank_frames_.Take();
    InboundDue();
  }
  // The next step: the earliest thing due anywhere ...
  uint64_t t = std::min(end, rec_.next_ns());
  for (const auto& part : parts_) t = std::min(t, part->due.Next());
  t = std::min(t, timeline_.next_ns());
  // ... on every rank, with what this one sent (landing there makes its
  // receiver due then): one collective step agrees on it and says what
  // each rank gets, then the frames go, and those that came make their
  // receivers due. The rest of the boundary is the same on every rank.
  if (ranked) {
    const Ranks& ranks = Ranks::Get();
    int stop = stop_->load(std::memory_order_relaxed);
    t = rank_frames_.Agree(ranks, std::min(t, sent_ns), &stop);
    stopping_ = stop;
    if (rank_frames_.Deliver(fab_, ranks)) InboundDue();
  }
  if (started_) t = std::max(t, win_end_);
  started_ = true;
  now_ = t;
  timeline_.ApplyDue(fab_, now_, [this](uint32_t id, uint64_t at) { DueOf(id).Lower(id, at); });
  // The window: up to the lookahead, and to the next event, sample or end,
  // which are the main thread's.
  uint64_t e = std::min(rec_.next_ns(), end) + 1;
  if (lookahead_ns_ != kNever) e = std::min(e, t + lookahead_ns_);
  if (entity_window_ns_ != kNever) e = std::min(e, t + entity_window_ns_);
  if (!fab_.spec().captures.empty()) e = std::min(e, t + kCaptureWindowNs);
  e = std::min(e, timeline_.next_ns());
  win_end_ = std::max(e, t + 1);
}

uint64_t VirtualClock::Run(const std::atomic<int>& stop) {
  now_ = 0;
  started_ = done_ = false;
  stopping_ = 0;
  stop_ = &stop;
  for (uint32_t id = 0; id < fab_.HostId(fab_.hosts().size()); id++) DueOf(id).Set(id, 0);
  ListDcfitSwitches();
  const unsigned workers = static_cast<unsigned>(parts_.size() - 1);
  // EAL pinned this thread to the main lcore's one CPU, and threads
  // inherit that: with partitions, every thread may run on any CPU the
  // process was given (FabricSpec::cpus, which pfcfabric sets before EAL).
  cpu_set_t pinned, any;
  pthread_getaffinity_np(pthread_self(), sizeof pinned, &pinned);
  if (workers != 0) {
    CPU_ZERO(&any);
    for (unsigned c : fab_.spec().cpus) CPU_SET(c, &any);
    pthread_setaffinity_np(pthread_self(), sizeof any, &any);
  }
  WindowSync sync;
  // Each thread's window and wait times (window_times): its own line,
  // read by the main thread after AwaitAll (last_ns) and after the join.
  std::vector<ThreadClock> tc(workers + 1);
  std::vector<std::thread> threads;
  for (unsigned w = 1; w <= workers; w++) {
    threads.emplace_back([this, &sync, &c = tc[w], w] {
      // An lcore id of its own: a mempool cache, as the main thread has.
      const bool registered = rte_thread_register() == 0;
      uint64_t seen = 0;
      uint64_t t = MonotonicNs();
      for (;;) {
        sync.AwaitOpen(&seen);
        const uint64_t opened = MonotonicNs();
        c.wait_ns += opened - t;
        if (done_) break;
        RunWindow(*parts_[w]);
        t = MonotonicNs();
        c.last_ns = t - opened;
        c.busy_ns += c.last_ns;
        sync.Arrive();
      }
      if (registered) rte_thread_unregister();
    });
  }
  // On one thread nothing is timed: a small fabric's window may be a
  // round or two, about the cost of the clock reads.
  const bool timed = workers != 0;
  uint64_t boundary_ns = 0, critical_ns = 0, windows = 0;
  for (uint64_t t = timed ? MonotonicNs() : 0;;) {
    Boundary();
    const uint64_t opened = timed ? MonotonicNs() : 0;
    boundary_ns += opened - t;
    sync.Open();
    if (done_) break;
    RunWindow(*parts_[0]);
    const uint64_t ran = timed ? MonotonicNs() : 0;
    sync.AwaitAll(workers);
    if (!timed) continue;
    tc[0].last_ns = ran - opened;
    tc[0].busy_ns += tc[0].last_ns;
    uint64_t slowest = 0;
    for (const ThreadClock& c : tc) slowest = std::max(slowest, c.last_ns);
    critical_ns += slowest;
    windows++;
    t = MonotonicNs();
    tc[0].wait_ns += t - ran;
  }
  for (std::thread& th : threads) th.join();
  window_times_ = {};
  if (timed) {
    for (const ThreadClock& c : tc) {
      window_times_.busy_seconds.push_back(c.busy_ns / 1e9);
      window_times_.wait_seconds.push_back(c.wait_ns / 1e9);
    }
    window_times_.boundary_seconds = boundary_ns / 1e9;
    window_times_.critical_seconds = critical_ns / 1e9;
    window_times_.windows = windows;
  }
  if (workers != 0) pthread_setaffinity_np(pthread_self(), sizeof pinned, &pinned);
  rounds_ = 0;
  for (const auto& part : parts_) rounds_ += part->rounds;
  Finish();
  if (const uint64_t n = rank_frames_.dropped_nombuf())
    std::fprintf(stderr,
                 "pfcfabric: rank %u: %llu frames from other ranks found no mbuf: dropped\n",
                 Ranks::Get().rank(), static_cast<unsigned long long>(n));
  return rounds_;
}

}  // namespace pfc::emulator
