#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# DCFIT §5 at a larger scale: a k=8 fat-tree (80 switches, 128 hosts) with
# two links failing at random and stale rerouting closing a loop through
# two cores, random loop rates and background traffic
# (bench/dcfit/fattree8.py has the model). Detection times (on-loop and
# off-loop triggers), false positives and negatives against the data
# plane's own truth (a cycle of links held paused and idle at the end).
#   bench/dcfit/fattree8.sh [RUNS] [BUILD_DIR] [OUT_DIR]   (env JOBS=2, DURATION_MS=4)
# Writes OUT_DIR/runs.json and OUT_DIR/dcfit_fattree8.png. Last line:
#   RESULT runs=<n> deadlocked=<n> on_loop_us_max=<x> off_loop_us_max=<x>
#          detect_us_median=<x> false_pos=<n> false_neg=<n> lossless_drops=<n>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
RUNS=${1:-40}
B=${2:-$PFC_BUILD_DEFAULT}
OUT=$(realpath -m "${3:-dcfit-fattree8}")
pfc_build_target "$B" dataplane/emulator/pfcfabric
mkdir -p "$OUT"
/usr/bin/python3 bench/dcfit/fattree8.py "$RUNS" "$(pfc_bin "$B" pfcfabric)" "$OUT" | tee "$OUT/summary.txt"
