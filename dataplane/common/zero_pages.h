// SPDX-License-Identifier: BSD-3-Clause
// An array of n zero-initialised trivially-copyable values in anonymous
// memory mapped for it (MAP_NORESERVE): the kernel hands out a zero page
// only where one is written, so a large, sparse table (a route table's 32
// MiB tbl24 holding a few hundred routes) costs the pages it touches, not
// its size, and nothing to clear. A std::vector of the same size would
// write every byte at construction. Move-only; owned by whoever holds it.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace pfc {

template <typename T>
class ZeroPages {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroPages() = default;
  // Throws std::bad_alloc when the mapping fails.
  explicit ZeroPages(size_t n) : n_(n) {
    if (n == 0) return;
    void* p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Small pages even where transparent hugepages are "always": a 2 MB
    // page for one written entry would undo the point.
    madvise(p, n * sizeof(T), MADV_NOHUGEPAGE);
    p_ = static_cast<T*>(p);
  }
  ZeroPages(ZeroPages&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ZeroPages& operator=(ZeroPages&& o) noexcept {
    if (this != &o) {
      Release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ZeroPages(const ZeroPages&) = delete;
  ZeroPages& operator=(const ZeroPages&) = delete;
  ~ZeroPages() { Release(); }

  T* data() { return p_; }
  const T* data() const { return p_; }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  // Bytes of it in memory now (pages written, or read since): mincore(2).
  size_t ResidentBytes() const {
    if (p_ == nullptr) return 0;
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t pages = (n_ * sizeof(T) + page - 1) / page;
    std::vector<unsigned char> in(pages);
    if (mincore(p_, n_ * sizeof(T), in.data()) != 0) return n_ * sizeof(T);
    size_t r = 0;
    for (unsigned char b : in) r += b & 1;
    return r * page;
  }

 private:
  void Release() {
    if (p_ != nullptr) munmap(p_, n_ * sizeof(T));
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace pfc
