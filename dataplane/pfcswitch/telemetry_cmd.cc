// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/telemetry_cmd.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace pfc::pfcswitch {

int PortParam(const char* params, const std::vector<std::string>& names) {
  if (!params || !*params) return -1;
  for (size_t i = 0; i < names.size(); i++)
    if (names[i] == params) return static_cast<int>(i);
  // Digits only: strtol would also take " 2", "\n2" or "+2" for port 2.
  size_t v = 0;
  for (const char* p = params; *p; ++p) {
    if (*p < '0' || *p > '9') return -1;
    v = v * 10 + static_cast<size_t>(*p - '0');
    if (v >= names.size()) v = names.size();  // saturate: no overflow, stays out of range
  }
  return v < names.size() ? static_cast<int>(v) : -1;
}

bool ReloadParam(const char* params, std::string* path) {
  if (!params || !*params) return false;
  *path = params;
  return true;
}

int SwitchParam(const char* params, const std::vector<std::string>& switches, std::string* rest) {
  const std::string p = params != nullptr ? params : "";
  const size_t comma = p.find(',');
  const std::string name = p.substr(0, comma);
  if (switches.size() == 1 && name != switches[0]) {
    *rest = p;
    return 0;
  }
  *rest = comma == std::string::npos ? "" : p.substr(comma + 1);
  for (size_t i = 0; i < switches.size(); i++) {
    if (switches[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> Utf8Pieces(const std::string& text, size_t max_bytes) {
  std::vector<std::string> out;
  size_t at = 0;
  do {
    size_t n = std::min(max_bytes, text.size() - at);
    // Back off over continuation bytes (10xxxxxx) so the cut falls before a
    // character's first byte; a run of them longer than a character (not
    // UTF-8) is cut where it is rather than never.
    if (at + n < text.size()) {
      size_t k = n;
      while (k > 0 && (static_cast<unsigned char>(text[at + k]) & 0xc0) == 0x80) --k;
      if (k > 0) n = k;
    }
    out.push_back(text.substr(at, n));
    at += n;
  } while (at < text.size());
  return out;
}

namespace {

// The length of the UTF-8 character at s[i] and its code point, or 0 when
// the bytes there are no well-formed character.
size_t Utf8At(const std::string& s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || c >= 0xf5 || i + n > s.size()) return 0;
  uint32_t v = c & (0x7f >> n);
  for (size_t k = 1; k < n; k++) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3f);
  }
  // Overlong forms, surrogates and beyond U+10FFFF are not UTF-8.
  if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
      (v >= 0xd800 && v <= 0xdfff))
    return 0;
  *cp = v;
  return n;
}

void AppendU(std::string* out, uint32_t u) {
  char b[8];
  std::snprintf(b, sizeof b, "\\u%04x", u);
  *out += b;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xc0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xe0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

bool Hex(const std::string& s, size_t at, size_t n, uint32_t* v) {
  if (at + n > s.size()) return false;
  *v = 0;
  for (size_t k = 0; k < n; k++) {
    const char c = s[at + k];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    *v = *v * 16 + static_cast<uint32_t>(d);
  }
  return true;
}

}  // namespace

std::string TelemetrySafe(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    uint32_t cp = 0;
    if (c == '\\') {
      out += "\\\\";
      i++;
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      i++;
    } else if (c < 0x80) {  // control characters, DEL
      AppendU(&out, c);
      i++;
    } else if (const size_t n = Utf8At(text, i, &cp); n != 0) {
      if (cp >= 0x10000) {  // a surrogate pair, as JSON writes it
        AppendU(&out, 0xd800 + ((cp - 0x10000) >> 10));
        AppendU(&out, 0xdc00 + ((cp - 0x10000) & 0x3ff));
      } else {
        AppendU(&out, cp);
      }
      i += n;
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
      i++;
    }
  }
  return out;
}

std::string TelemetryText(const std::string& safe) {
  std::string out;
  for (size_t i = 0; i < safe.size(); i++) {
    uint32_t v = 0, lo = 0;
    if (safe[i] != '\\' || i + 1 >= safe.size()) {
      out += safe[i];
    } else if (safe[i + 1] == '\\') {
      out += '\\';
      i += 1;
    } else if (safe[i + 1] == 'x' && Hex(safe, i + 2, 2, &v)) {
      out += static_cast<char>(v);
      i += 3;
    } else if (safe[i + 1] == 'u' && Hex(safe, i + 2, 4, &v)) {
      i += 5;
      if (v >= 0xd800 && v < 0xdc00 && i + 2 < safe.size() && safe[i + 1] == '\\' &&
          safe[i + 2] == 'u' && Hex(safe, i + 3, 4, &lo) && lo >= 0xdc00 && lo < 0xe000) {
        v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
        i += 6;
      }
      AppendUtf8(&out, v);
    } else {
      out += safe[i];  // not one of ours: as it is
    }
  }
  return out;
}

}  // namespace pfc::pfcswitch
