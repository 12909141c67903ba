#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger (ToN 2019) Fig. 11 with RC transport on the fabric emulator: the
# routing loop T1 <-> L1 from 2 ms to 3 ms in the Fig. 2 Clos testbed,
# both flows RC queue pairs writing 64 KB messages (4 MB each, 10 Gb/s;
# configs/fabric/fig11-rc-scenario.yaml), without Tagger and with the
# rules pfc-tagger computes for ELP = shortest up-down + 1-bounce paths.
# With Tagger the looping packets turn lossy and are dropped, and go-back-N
# resends them once the route is fixed: every message completes. Without
# it the loop deadlocks and the deadlock outlives the route. Virtual clock:
# deterministic.
#   bench/tagger/fig11_rc.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/fig11_rc.png (flow goodput, pause periods, buffers; left
# without, right with Tagger) and ends with a RESULT line.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/fabric/common.sh "${1:-build}" "${2:-fabric-fig11-rc}"
tagger_figure $FAB/fig11-rc-loop.yaml $FAB/fig11-rc-tagger.yaml fig11_rc.png \
  "Without Tagger (loop T1<->L1 from 2 to 3 ms),With Tagger (lossy fallback + go-back-N)" \
  "Tagger Fig. 11 with RC transport: flow1 H1->H15 loops 2-3 ms; flow2 H2->H16 shares T1->L1"
/usr/bin/python3 -m tagger.figures fig11_rc "$OUT"
