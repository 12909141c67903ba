#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger (ToN 2019) Fig. 11 on the fabric emulator: a routing loop T1 <-> L1
# installed at 2 ms in the 10-switch, 16-host, 40 Gb/s Clos testbed of Fig. 2
# (configs/fabric/fig11-scenario.yaml), without Tagger and with the rules
# pfc-tagger computes for ELP = shortest up-down + 1-bounce paths. Virtual
# clock: deterministic.
#   bench/tagger/fig11.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/fig11.png (flow rates, pause periods, buffers; left without,
# right with Tagger) and ends with a RESULT line. Rates are the mean over the
# last half of the run (the loop starts at 2 ms of 8); flow 1 is the looping
# flow, flow 2 shares the loop's link T1 -> L1.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/fabric/common.sh "${1:-build}" "${2:-fabric-fig11}"
tagger_figure $FAB/fig11-loop.yaml $FAB/fig11-tagger.yaml fig11.png \
  "Without Tagger (routing loop T1<->L1 from 2 ms),With Tagger (ELP: shortest + 1-bounce)" \
  "Tagger Fig. 11: flow1 H1->H15 enters a loop at 2 ms; flow2 H2->H16 shares T1->L1"
/usr/bin/python3 -m tagger.figures fig11 "$OUT"
