#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tcg-check.sh BINARY... : can these binaries run in the rocev2-vm guest? qemu's TCG (7.2 here)
# emulates x86 up to AVX2, without AVX-512 (SIGILL), and its AVX2 gathers fault on masked-off
# lanes (seen: pfcswitch died with SIGSEGV in a vpgatherqd the compiler emitted for a tail
# loop). A -march=native build on an AVX-512 host has both. Exit 0 if neither is present,
# 1 with an explanation otherwise, 77 if objdump is missing (cannot tell).
command -v objdump >/dev/null || { echo "tcg-check: no objdump (binutils); cannot check $*"; exit 77; }
rc=0
for b in "$@"; do
  dis=$(objdump -d --no-show-raw-insn "$b" 2>/dev/null) || { echo "tcg-check: cannot disassemble $b"; rc=1; continue; }
  n512=$(grep -cE '%zmm|%k[1-7]\b|\{%k[1-7]\}' <<< "$dis")
  ngather=$(grep -cE '\bv(p)?gather' <<< "$dis")
  if [ "$n512" -gt 0 ] || [ "$ngather" -gt 0 ]; then
    echo "tcg-check: $b has $n512 AVX-512 and $ngather AVX2-gather instructions, which qemu/TCG cannot run"
    echo "tcg-check: (AVX-512 -> SIGILL, gathers -> SIGSEGV). Build it without them, e.g."
    echo "tcg-check:   meson configure BUILDDIR -Dcpp_args='-mno-avx512f -mno-avx2' && ninja -C BUILDDIR"
    rc=1
  fi
done
exit $rc
