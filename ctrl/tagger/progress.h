// SPDX-License-Identifier: BSD-3-Clause
// A one-line progress bar on stderr for long generator runs. Enabled only
// when asked (CLI: stderr is a tty, or --progress); redraws at most every
// 100 ms so it costs nothing measurable. Used from the control thread only.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace pfc::tagger {

class Progress {
 public:
  Progress() = default;
  explicit Progress(bool enabled) : enabled_(enabled) {}
  void Start(const std::string& label, uint64_t total) {
    label_ = label;
    total_ = total ? total : 1;
    last_ = {};
    Update(0);
  }
  void Update(uint64_t done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 30;
    const int fill = static_cast<int>(width * std::min<uint64_t>(done, total_) / total_);
    std::fprintf(stderr, "\r%-24s [%s%s] %3d%%", label_.c_str(), std::string(fill, '#').c_str(),
                 std::string(width - fill, ' ').c_str(),
                 static_cast<int>(100 * std::min<uint64_t>(done, total_) / total_));
    std::fflush(stderr);
  }
  void Done() {
    if (!enabled_) return;
    Update(total_);
    std::fprintf(stderr, "\n");
  }
  bool enabled() const { return enabled_; }

 private:
  bool enabled_ = false;
  std::string label_;
  uint64_t total_ = 1;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace pfc::tagger
