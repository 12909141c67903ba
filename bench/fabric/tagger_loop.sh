#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger at datacenter scale: a 320-switch fat-tree (fattree:16) where two
# failed links and stale routes close a loop through two cores; each draw
# runs without Tagger (deadlock) and with pfc-tagger's rules (--algo clos),
# on the virtual clock split over two threads. bench/fabric/tagger_loop.py
# has the model and its knobs (K, RUNS, BOUNCES, DURATION_MS, THREADS).
#   bench/fabric/tagger_loop.sh [BUILD_DIR] [OUT_DIR]
# Figure OUT/fabric_tagger_loop.png; last line:
#   RESULT k=<K> runs=<n> deadlocked_without=<n> deadlocked_with=<n>
#          lossless_drops_with=<n> loop_gbps_with_min=<x>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=${1:-$PFC_BUILD_DEFAULT}
OUT=$(realpath -m "${2:-fabric-tagger-loop}")
pfc_build_target "$B" dataplane/emulator/pfcfabric
pfc_build_target "$B" ctrl/tagger/pfc-tagger
rm -rf "$OUT/rules"
/usr/bin/python3 bench/fabric/tagger_loop.py "$(pfc_bin "$B" pfcfabric)" "$(pfc_bin "$B" pfc-tagger)" "$OUT"
