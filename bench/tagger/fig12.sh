#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger (ToN 2019) Fig. 12 on the fabric emulator: PFC PAUSE propagation
# from a deadlock. A 4-to-1 shuffle (H9, H10, H13, H14 -> H1) and a 1-to-4
# shuffle (H5 -> H11, H12, H15, H16) in the 10-switch, 16-host, 40 Gb/s Clos
# testbed of Fig. 2 (configs/fabric/fig12-scenario.yaml); at 2 ms routes
# change so that H9 -> H1 and H5 -> H15 take the 1-bounce paths of Fig. 3.
# Without Tagger and with the rules pfc-tagger computes for ELP = shortest
# up-down + 1-bounce paths. Virtual clock: deterministic.
#   bench/tagger/fig12.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/fig12.png (flow rates, pause periods, buffers; left without,
# right with Tagger) and ends with a RESULT line. Rates are the mean over the
# last half of the run (the bounces start at 2 ms of 8).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/fabric_common.sh "${1:-build}" "${2:-fabric-fig12}"
tagger_figure $FAB/fig12-shuffle.yaml $FAB/fig12-tagger.yaml fig12.png \
  "Without Tagger (1-bounce routes from 2 ms),With Tagger (ELP: shortest + 1-bounce)" \
  "Tagger Fig. 12: 4-to-1 shuffle to H1 and 1-to-4 shuffle from H5, 1-bounce routes from 2 ms"
/usr/bin/python3 - "$OUT" <<'PY'
import sys
from pfclib.fabric_results import STOPPED_GBPS, pair
s = pair(sys.argv[1])
stopped = {run: sum(g < STOPPED_GBPS for g in s[run]["rates"].values()) for run in s}
w, t = s["without"], s["with"]
print("A deadlock is a stall, not a loss: lossless drops count every drop of a lossless priority.")
print(f"RESULT flows=8 stopped_without={stopped['without']} stopped_with={stopped['with']} "
      f"without_total_gbps={sum(w['rates'].values()):.2f} with_total_gbps={sum(t['rates'].values()):.2f} "
      f"with_min_gbps={min(t['rates'].values()):.2f} stuck_links_without={len(w['stuck'])} "
      f"stuck_links_with={len(t['stuck'])} lossless_drops={w['lossless_drops'] + t['lossless_drops']}")
PY
