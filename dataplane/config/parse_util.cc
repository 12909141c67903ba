// SPDX-License-Identifier: BSD-3-Clause
// Scalar parsers for rates, sizes, MAC and IPv4 text. Strict: the whole
// string must parse, no silent truncation.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "dataplane/config/config.h"

namespace pfc::config {
namespace {

bool ParseScaled(const std::string& s, double k, uint64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v) || v < 0) return false;
  std::string suffix(end);
  double mult = 1;
  if (suffix.empty())
    mult = 1;
  else if (suffix == "K" || suffix == "k")
    mult = k;
  else if (suffix == "M")
    mult = k * k;
  else if (suffix == "G")
    mult = k * k * k;
  else if (suffix == "T")
    mult = k * k * k * k;
  else
    return false;
  double r = v * mult;
  if (r > 1.8e19) return false;
  *out = static_cast<uint64_t>(std::llround(r));
  return true;
}

}  // namespace

bool ParseRate(const std::string& s, uint64_t* bps) { return ParseScaled(s, 1000, bps); }
bool ParseBytes(const std::string& s, uint64_t* bytes) { return ParseScaled(s, 1024, bytes); }

bool ParseMac(const std::string& s, MacAddr* mac) {
  unsigned b[6];
  char tail;
  if (s.size() != 17 || std::sscanf(s.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2],
                                    &b[3], &b[4], &b[5], &tail) != 6)
    return false;
  for (int i = 0; i < 6; i++) {
    if (s[i * 3] == ':' || s[i * 3 + 1] == ':') return false;
    (*mac)[i] = static_cast<uint8_t>(b[i]);
  }
  return true;
}

bool ParseIpv4(const std::string& s, uint32_t* ip) {
  uint32_t v = 0;
  int parts = 0;
  size_t i = 0;
  while (parts < 4) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    uint32_t octet = 0;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      octet = octet * 10 + (s[i] - '0');
      if (octet > 255 || i - start > 2) return false;
      i++;
    }
    v = (v << 8) | octet;
    parts++;
    if (parts < 4) {
      if (i >= s.size() || s[i] != '.') return false;
      i++;
    }
  }
  if (i != s.size()) return false;
  *ip = v;
  return true;
}

bool ParsePrefix(const std::string& s, uint32_t* ip, uint8_t* len) {
  size_t slash = s.find('/');
  if (slash == std::string::npos) return false;
  if (!ParseIpv4(s.substr(0, slash), ip)) return false;
  std::string l = s.substr(slash + 1);
  if (l.empty() || l.size() > 2 || l.find_first_not_of("0123456789") != std::string::npos)
    return false;
  int v = std::stoi(l);
  if (v > 32) return false;
  *len = static_cast<uint8_t>(v);
  return true;
}

int SwitchConfig::PortIndex(const std::string& name) const {
  for (size_t i = 0; i < ports.size(); i++)
    if (ports[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace pfc::config
