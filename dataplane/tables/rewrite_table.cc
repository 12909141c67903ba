// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/tables/rewrite_table.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

namespace pfc::tables {
namespace {

// Marks a cell no rule of the signature covers, while rows are painted.
constexpr uint8_t kUnset = 0xff;

PortMask ValidPorts(uint16_t num_ports) {
  return num_ports >= 64 ? kAnyPort : (PortMask{1} << num_ports) - 1;
}

bool CheckPortSet(PortMask m, PortMask valid, size_t i, const char* field, uint16_t num_ports,
                  std::string* err) {
  if ((m & valid) == 0) {
    *err = "rewrite rule " + std::to_string(i) + ": " + field + " matches none of ports 0.." +
           std::to_string(num_ports - 1);
    return false;
  }
  if (m != kAnyPort && (m & ~valid) != 0) {
    *err = "rewrite rule " + std::to_string(i) + ": " + field + " names port " +
           std::to_string(std::countr_zero(m & ~valid)) + ", expected ports 0.." +
           std::to_string(num_ports - 1) + " (or the wildcard)";
    return false;
  }
  return true;
}

bool Validate(const RewriteConfig& cfg, std::string* err) {
  if (cfg.num_ports < 1 || cfg.num_ports > kMaxPorts) {
    *err = "rewrite: num_ports is " + std::to_string(cfg.num_ports) + ", expected 1.." +
           std::to_string(kMaxPorts);
    return false;
  }
  if (cfg.default_tag >= kNumTags) {
    *err =
        "rewrite: default (lossy) tag is " + std::to_string(cfg.default_tag) + ", expected 0..63";
    return false;
  }
  const PortMask valid = ValidPorts(cfg.num_ports);
  for (size_t i = 0; i < cfg.rules.size(); ++i) {
    const RewriteRule& r = cfg.rules[i];
    if (r.new_tag >= kNumTags) {
      *err = "rewrite rule " + std::to_string(i) + ": new_tag is " + std::to_string(r.new_tag) +
             ", expected 0..63";
      return false;
    }
    if (r.tags == 0) {
      *err = "rewrite rule " + std::to_string(i) + ": tag set is empty, expected tags 0..63";
      return false;
    }
    if (!CheckPortSet(r.in_ports, valid, i, "in-port set", cfg.num_ports, err) ||
        !CheckPortSet(r.out_ports, valid, i, "out-port set", cfg.num_ports, err)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool RewriteTable::Compile(const RewriteConfig& cfg, std::string* err) {
  if (!Validate(cfg, err)) return false;
  const uint32_t shift = static_cast<uint32_t>(std::bit_width(cfg.num_ports - 1u));
  const uint32_t side = 1u << shift;
  const size_t row_size = size_t{side} * side;
  const PortMask valid = ValidPorts(cfg.num_ports);

  // Rules in precedence order: priority descending, earlier rule first.
  std::vector<uint32_t> order(cfg.rules.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return cfg.rules[a].priority > cfg.rules[b].priority;
  });

  // A tag's row depends only on which rules match the tag (its signature), so
  // rows are painted once per distinct signature. Painting goes from the
  // lowest-precedence rule to the highest, so the winner writes last.
  const size_t sig_words = (order.size() + 63) / 64;
  std::map<std::vector<uint64_t>, std::vector<uint8_t>> painted;
  std::vector<uint8_t> raw_of_tag[kNumTags];
  for (int t = 0; t < kNumTags; ++t) {
    std::vector<uint64_t> sig(sig_words, 0);
    bool any = false;
    for (size_t k = 0; k < order.size(); ++k) {
      if ((cfg.rules[order[k]].tags >> t) & 1) {
        sig[k / 64] |= uint64_t{1} << (k % 64);
        any = true;
      }
    }
    if (!any) continue;  // row 0
    auto [it, fresh] = painted.try_emplace(std::move(sig));
    if (fresh) {
      std::vector<uint8_t>& row = it->second;
      row.assign(row_size, kUnset);
      for (size_t k = order.size(); k-- > 0;) {
        if (!((it->first[k / 64] >> (k % 64)) & 1)) continue;
        const RewriteRule& r = cfg.rules[order[k]];
        for (PortMask ins = r.in_ports & valid; ins; ins &= ins - 1) {
          uint8_t* line =
              row.data() + (size_t{static_cast<uint32_t>(std::countr_zero(ins))} << shift);
          for (PortMask outs = r.out_ports & valid; outs; outs &= outs - 1) {
            line[std::countr_zero(outs)] = r.new_tag;
          }
        }
      }
    }
    raw_of_tag[t] = it->second;
  }

  // Final rows: unset cells take the unmatched value, then XOR by the tag's
  // key; identical rows (including the default row 0) are stored once.
  std::vector<uint8_t> cells(row_size, cfg.unmatched_keeps_tag ? 0 : cfg.default_tag);
  uint8_t row_of[kNumTags] = {};
  uint8_t xor_of[kNumTags] = {};
  int rows = 1;
  std::vector<uint8_t> row(row_size);
  for (int t = 0; t < kNumTags; ++t) {
    const uint8_t key = cfg.unmatched_keeps_tag ? static_cast<uint8_t>(t) : 0;
    xor_of[t] = key;
    if (raw_of_tag[t].empty()) continue;
    const uint8_t unmatched = cfg.unmatched_keeps_tag ? static_cast<uint8_t>(t) : cfg.default_tag;
    for (size_t c = 0; c < row_size; ++c) {
      const uint8_t v = raw_of_tag[t][c];
      row[c] = static_cast<uint8_t>((v == kUnset ? unmatched : v) ^ key);
    }
    int found = -1;
    for (int r = 0; r < rows && found < 0; ++r) {
      if (std::memcmp(cells.data() + r * row_size, row.data(), row_size) == 0) found = r;
    }
    if (found < 0) {
      found = rows++;
      cells.insert(cells.end(), row.begin(), row.end());
    }
    row_of[t] = static_cast<uint8_t>(found);
  }

  cells_ = std::move(cells);
  std::memcpy(row_of_, row_of, sizeof row_of_);
  std::memcpy(xor_of_, xor_of, sizeof xor_of_);
  shift_ = shift;
  shift2_ = 2 * shift;
  rows_ = rows;
  return true;
}

void RewriteTable::LookupBurst(const uint8_t* tags, const PortId* in, const PortId* out,
                               uint8_t* new_tags, int n) const {
  const uint8_t* cells = cells_.data();
  // Independent loads: the compiler and the CPU overlap them across packets.
  for (int i = 0; i < n; ++i) {
    const uint32_t t = tags[i] & 63u;
    const uint32_t idx = (static_cast<uint32_t>(row_of_[t]) << shift2_) |
                         (static_cast<uint32_t>(in[i]) << shift_) | out[i];
    new_tags[i] = cells[idx] ^ xor_of_[t];
  }
}

uint8_t NaiveRewriteLookup(const RewriteConfig& cfg, uint8_t tag, PortId in, PortId out) {
  const uint32_t t = tag & 63u;
  const RewriteRule* best = nullptr;
  for (const RewriteRule& r : cfg.rules) {
    const bool match = ((r.tags >> t) & 1) && in < 64 && ((r.in_ports >> in) & 1) && out < 64 &&
                       ((r.out_ports >> out) & 1);
    // Strictly greater: on a tie the earlier rule stays.
    if (match && (best == nullptr || r.priority > best->priority)) best = &r;
  }
  if (best != nullptr) return best->new_tag;
  return cfg.unmatched_keeps_tag ? static_cast<uint8_t>(t) : cfg.default_tag;
}

}  // namespace pfc::tables
