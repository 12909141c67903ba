#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two threads against one on the HPCC simulator's own experiment (issue 42's
# "every core for at least 1.8x"): the case converted once by
# tools/hpcc_import.py, then pfcfabric --threads 1 and --threads N in
# alternating pairs, outputs checked byte-identical (bench/hpcc/threads.py
# describes it). No simulator is needed, only the case's files.
#   bench/hpcc/threads.sh [CASE] [BUILD_DIR] [OUT_DIR]
# CASE as vs_hpcc_simulator.sh's (default fat320-websearch30-5ms: ~30 s a
# one-thread run here, three pairs ~3 min). Environment: PAIRS (3), THREADS
# (2), NO_BUILD=1, HPCC_REF (as vs_hpcc_simulator.sh's).
# Figure OUT_DIR/threads.png, OUT_DIR/threads.json; last line
#   RESULT <case>_speedup_median=<x> <case>_speedup_of_medians=<x> <case>_pairs=<x,...>
#          <case>_wall_s_t1=<x> <case>_wall_s_tN=<x> <case>_balance=<x> <case>_identical=<0|1>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
CASE=${1:-fat320-websearch30-5ms}
B=${2:-$PFC_BUILD_DEFAULT}
OUT=$(realpath -m "${3:-hpcc-threads}")
REF=$(realpath -m "${HPCC_REF:-$PFC_ROOT/../shared/reference/hpcc-simulator}")
mkdir -p "$OUT"
[[ ${NO_BUILD:-0} == 1 ]] || pfc_build_target "$B" dataplane/emulator/pfcfabric
/usr/bin/python3 bench/hpcc/threads.py "$(pfc_bin "$B" pfcfabric)" "$REF" "$OUT" "$CASE"
