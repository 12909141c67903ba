// SPDX-License-Identifier: BSD-3-Clause
// The fuzz targets' invariant check: on a violation, names the check and
// aborts, which libFuzzer reports as a crash and saves the input.
#pragma once
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)
