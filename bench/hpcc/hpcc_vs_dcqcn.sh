#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The HPCC paper's headline on both sides (bench/hpcc/hpcc_vs_dcqcn.py says
# what it shows): the cases fat320-websearch{30,50}-5ms (DCQCN),
# fat320-websearch{30,50}-5ms-hpcc (HPCC) and, with PINT=1 (the default),
# fat320-websearch{30,50}-5ms-pint (HPCC-PINT), each through
# bench/hpcc/vs_hpcc_simulator.sh into OUT_DIR/<case> (its SIM_KEEP,
# SEEDS and NO_BUILD apply; QLEN_MON=1: both sides' queue monitors; ~25
# CPU minutes for both sides of the first four, ~15 for PINT's two), then
# the comparison.
#   bench/hpcc/hpcc_vs_dcqcn.sh [BUILD_DIR] [OUT_DIR]
# Figure OUT_DIR/hpcc_vs_dcqcn.png; last line
#   RESULT <side>_<cc>_<load>_<metric>=<x> ...   (side sim|emu, cc dcqcn|hpcc|pint)
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=${1:-$PFC_BUILD_DEFAULT}
OUT=$(realpath -m "${2:-hpcc-vs-dcqcn}")
mkdir -p "$OUT"
dirs=()
cases=(fat320-websearch30-5ms fat320-websearch30-5ms-hpcc fat320-websearch50-5ms fat320-websearch50-5ms-hpcc)
[[ ${PINT:-1} == 1 ]] && cases+=(fat320-websearch30-5ms-pint fat320-websearch50-5ms-pint)
for c in "${cases[@]}"; do
  QLEN_MON=1 bench/hpcc/vs_hpcc_simulator.sh "$c" "$B" "$OUT/$c" > "$OUT/$c.log" 2>&1 ||
    { tail -20 "$OUT/$c.log" >&2; echo "hpcc_vs_dcqcn: $c failed (log $OUT/$c.log)" >&2; exit 1; }
  dirs+=("$OUT/$c")
done
/usr/bin/python3 bench/hpcc/hpcc_vs_dcqcn.py "$OUT/hpcc_vs_dcqcn.png" "${dirs[@]}"
