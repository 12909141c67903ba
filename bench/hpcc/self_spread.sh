#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Each side against itself (issue 40): the simulator and pfcfabric each run
# again with their random seed changed, every flow's start jittered by up to
# 10 ns, and the largest flow started 1 ns later, and compared with their own
# first run in the terms vs_hpcc_simulator.sh compares them with each other
# (bench/hpcc/self_spread.py describes it).
#   bench/hpcc/self_spread.sh [CASES] [BUILD_DIR] [OUT_DIR]
# CASES: comma-separated, as vs_hpcc_simulator.sh's (default
# fat320-websearch30-5ms: seven runs of each side, ~12 min on two cores).
# Environment: PERTURB (default seed,jitter,shift), JITTER_NS (default 10),
# ANALYSE_ONLY=1, BASE_FROM=DIR (self_spread.py), NO_BUILD=1, HPCC_REF and HPCC_SIM_DIR as vs_hpcc_simulator.sh's.
# Figure OUT_DIR/self_spread.png, OUT_DIR/table.txt; last line
#   RESULT <case>_<cmp>_ratio_p5=<x> <case>_<cmp>_ratio_p95=<x> <case>_<cmp>_within_10pct=<n> ...
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
source bench/hpcc/sim_lib.sh
CASES=${1:-fat320-websearch30-5ms}
B=${2:-$PFC_BUILD_DEFAULT}
OUT=$(realpath -m "${3:-self-spread}")
hpcc_sim_ready self_spread "$B" "$OUT"
IFS=, read -r -a CASE_LIST <<< "$CASES"
/usr/bin/python3 bench/hpcc/self_spread.py "$(pfc_bin "$B" pfcfabric)" "$SIM" "$REF" "$OUT" \
  "${CASE_LIST[@]}"
