// SPDX-License-Identifier: BSD-3-Clause
// An enum and its names from one X-macro table, so a name is written once,
// beside its enumerator (VPP's foreach_* lists): the detector's event kinds
// and fail reasons, DCFIT's message status, trigger handling's actions. The
// names are part of logs, telemetry and results files. The drop reasons
// carry more per row (class, lossless loss) and have their own table in
// types.h.
//   #define PFC_COLOURS(X) X(kRed, "red") X(kBlue, "blue")
//   PFC_NAMED_ENUM(Colour, ColourName, PFC_COLOURS)
// defines `enum class Colour : uint8_t { kRed, kBlue }` and
// `constexpr const char* ColourName(Colour)` ("?" out of range).
// Pure header.
#pragma once
#include <cstddef>
#include <cstdint>

#define PFC_NAMED_ENUM_VALUE(e, name) e,
#define PFC_NAMED_ENUM_NAME(e, name) name,
#define PFC_NAMED_ENUM(Type, NameFn, LIST)                                             \
  enum class Type : uint8_t { LIST(PFC_NAMED_ENUM_VALUE) };                            \
  inline constexpr const char* k##Type##Names[] = {LIST(PFC_NAMED_ENUM_NAME)};         \
  constexpr const char* NameFn(Type v) {                                               \
    return static_cast<size_t>(v) < sizeof(k##Type##Names) / sizeof(k##Type##Names[0]) \
               ? k##Type##Names[static_cast<size_t>(v)]                                \
               : "?";                                                                  \
  }
