#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Flow completion times under the web search workload at 30% and 50% load
# on a k=4 fat-tree at 40 Gb/s, PFC alone against PFC + DCQCN, in the
# style of the HPCC paper (bench/dcqcn/fct_workload.py describes it).
#   bench/dcqcn/fct_workload.sh [WINDOW_MS] [RUN_MS] [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/fct_workload.png and summary.json; last line:
#   RESULT flows=<n> completed=<n> small_p99_slowdown_dcqcn=<x> small_p99_slowdown_none=<x>
#     pause_ms_dcqcn=<x> pause_ms_none=<x> lossless_drops=<n>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
WINDOW=${1:-20}
RUN=${2:-60}
B=${3:-build}
OUT=$(realpath -m "${4:-fct-workload}")
pfc_build_target "$B" dataplane/emulator/pfcfabric
/usr/bin/python3 bench/dcqcn/fct_workload.py "$B/dataplane/emulator/pfcfabric" "$OUT" "$WINDOW" "$RUN"
