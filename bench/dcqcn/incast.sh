#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# PFC alone against PFC + DCQCN: a 16-to-1 incast at 40 Gb/s with a victim
# flow sharing an uplink with it, on the fabric emulator's virtual clock
# (bench/dcqcn/incast.py describes the fabric and what is measured).
#   bench/dcqcn/incast.sh [DURATION_MS] [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/dcqcn_incast.png and summary.json; last line:
#   RESULT pause_frames_pfc=<n> pause_frames_dcqcn=<n> jain_dcqcn=<x>
#     victim_gbps_pfc=<x> victim_gbps_dcqcn=<x> lossless_drops=<n> ...
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
DURATION=${1:-30}
B=${2:-build}
OUT=$(realpath -m "${3:-dcqcn-incast}")
pfc_build_target "$B" dataplane/emulator/pfcfabric
/usr/bin/python3 bench/dcqcn/incast.py "$B/dataplane/emulator/pfcfabric" "$OUT" "$DURATION"
