// SPDX-License-Identifier: BSD-3-Clause
// Frames between MPI ranks (rank_frames.h).
#include "dataplane/emulator/runtime/rank_frames.h"

#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

#include "dataplane/common/deadline.h"

namespace pfc::emulator {
namespace {

// A frame on the way between ranks: this header, then its bytes.
struct Header {
  uint32_t gport;  // the receiving end, as the topology numbers ports
  uint32_t len;
  uint64_t arrive_ns;
  uint32_t epoch;
  uint32_t control;
};

}  // namespace

uint64_t RankFrames::Take() {
  uint64_t first = kNever;
  for (std::vector<uint8_t>& b : buf_) b.clear();
  for (const StandIn& s : out_) {
    if (s.rank >= buf_.size()) buf_.resize(s.rank + 1);
    std::vector<uint8_t>& b = buf_[s.rank];
    s.end->TakeAllArriving([&](const WireFrame& w) {
      rte_mbuf* m = reinterpret_cast<rte_mbuf*>(w.handle);
      const Header h{s.gport, w.len, w.arrive_ns, w.epoch, w.control ? 1u : 0u};
      const size_t at = b.size();
      b.resize(at + sizeof h + w.len);
      std::memcpy(b.data() + at, &h, sizeof h);
      uint8_t* data = b.data() + at + sizeof h;
      const void* p = rte_pktmbuf_read(m, 0, w.len, data);
      if (p != data) std::memcpy(data, p, w.len);
      rte_pktmbuf_free(m);
      first = std::min(first, w.arrive_ns);
    });
  }
  return first;
}

uint64_t RankFrames::Agree(const Ranks& ranks, uint64_t t, int* stop) {
  const unsigned n = ranks.size();
  buf_.resize(n);
  // To each rank: what it gets from us, all we send, our earliest time,
  // the signal that asks us to stop (0: none).
  constexpr unsigned k = 4;
  uint64_t total = 0;
  for (const std::vector<uint8_t>& b : buf_) total += b.size();
  std::vector<uint64_t> out(k * n);
  for (unsigned r = 0; r < n; r++) {
    out[k * r] = buf_[r].size(), out[k * r + 1] = total, out[k * r + 2] = t;
    out[k * r + 3] = static_cast<uint64_t>(*stop);
  }
  const std::vector<uint64_t> in = ranks.AllToAll(out, k);
  from_.assign(n, 0);
  moving_ = false;
  for (unsigned r = 0; r < n; r++) {
    from_[r] = in[k * r];
    moving_ |= in[k * r + 1] != 0;
    t = std::min(t, in[k * r + 2]);
    *stop = std::max(*stop, static_cast<int>(in[k * r + 3]));
  }
  return t;
}

bool RankFrames::Deliver(Fabric& fab, const Ranks& ranks) {
  if (!moving_) return false;  // every rank knows: none calls the exchange
  const std::vector<uint8_t> in = ranks.AllToAllV(buf_, from_);
  const tagger::Topology& t = fab.spec().topo;
  sw::Dataplane& dp = fab.dp();
  for (size_t at = 0; at + sizeof(Header) <= in.size();) {
    Header h;
    std::memcpy(&h, in.data() + at, sizeof h);
    const uint8_t* data = in.data() + at + sizeof h;
    at += sizeof h + h.len;
    EmuPort* e = fab.PortOf(t.port_node(h.gport), static_cast<uint16_t>(t.local(h.gport)));
    rte_mbuf* m = dp.Alloc();  // grows the pool as the frames' first owner would
    char* p = m != nullptr ? rte_pktmbuf_append(m, static_cast<uint16_t>(h.len)) : nullptr;
    if (e == nullptr || p == nullptr) {
      nombuf_++;
      if (m != nullptr) rte_pktmbuf_free(m);
      continue;
    }
    std::memcpy(p, data, h.len);
    const WireFrame w{reinterpret_cast<uintptr_t>(m), h.arrive_ns, h.len, h.epoch, h.control != 0};
    if (!e->Arriving(w)) rte_pktmbuf_free(m);
  }
  return !in.empty();
}

}  // namespace pfc::emulator
