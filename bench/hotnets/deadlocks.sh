#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# HotNets'16 ("Deadlocks in datacenter networks") §3 on the fabric emulator,
# 40 Gb/s links, virtual clock (deterministic), 20 ms a run:
#  (a) §3.1: one flow trapped in a 2-switch routing loop
#      (configs/fabric/hotnets-loop.yaml), TTL 16; its injection rate swept.
#      Analytic condition: the loop deadlocks when its links are asked for
#      more than they carry. A packet sent with TTL t is forwarded t-1 times
#      (a switch drops it on arrival at TTL <= 1), all on loop links, so each
#      of the n = 2 directions carries r (t-1)/n: deadlock when
#      r > n B / (t-1) = 5.33 Gb/s; the paper writes n B / TTL = 5 Gb/s.
#  (b) §3.2-3.3: three flows on a 4-switch ring (hotnets-cbd.yaml), a CBD
#      without a loop; all flows rate limited to the same rate, swept, and
#      unlimited.
#   bench/hotnets/deadlocks.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/hotnets.png (deadlock against rate, both cases), and
# OUT_DIR/loop.png, OUT_DIR/cbd.png (fabric_plot of a run each side of the
# turn); ends with a RESULT line. The fabric files and the analysis are
# bench/hotnets/deadlocks.py's.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/fabric/common.sh "${1:-build}" "${2:-fabric-hotnets}"
SRC=$(pwd)
LOOP_RATES="3 3.5 4 4.5 4.75 5 5.25 5.5 5.75 6 6.5 7 8"
CBD_RATES="10 15 18 19 20 21 22 25 unlimited"
/usr/bin/python3 -m hotnets.deadlocks files "$SRC/$FAB" "$OUT/files" "$LOOP_RATES" "$CBD_RATES"
for r in $LOOP_RATES; do
  fabric_run "$OUT/files/loop-$r.yaml" "loop-$r" | grep -v '^pfcfabric: [0-9]* switches' || true
done
for r in $CBD_RATES; do
  fabric_run "$OUT/files/cbd-$r.yaml" "cbd-$r" | grep -v '^pfcfabric: [0-9]* switches' || true
done
/usr/bin/python3 -m hotnets.deadlocks summary "$OUT" "$LOOP_RATES" "$CBD_RATES"
