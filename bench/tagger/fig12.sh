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
source bench/fabric/common.sh "${1:-build}" "${2:-fabric-fig12}"
tagger_figure $FAB/fig12-shuffle.yaml $FAB/fig12-tagger.yaml fig12.png \
  "Without Tagger (1-bounce routes from 2 ms),With Tagger (ELP: shortest + 1-bounce)" \
  "Tagger Fig. 12: 4-to-1 shuffle to H1 and 1-to-4 shuffle from H5, 1-bounce routes from 2 ms"
/usr/bin/python3 -m tagger.figures fig12 "$OUT"
