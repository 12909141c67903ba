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
source bench/fabric_common.sh "${1:-build}" "${2:-fabric-fig11}"
tagger_figure $FAB/fig11-loop.yaml $FAB/fig11-tagger.yaml fig11.png \
  "Without Tagger (routing loop T1<->L1 from 2 ms),With Tagger (ELP: shortest + 1-bounce)" \
  "Tagger Fig. 11: flow1 H1->H15 enters a loop at 2 ms; flow2 H2->H16 shares T1->L1"
/usr/bin/python3 - "$OUT" <<'PY'
import sys
from pfclib.fabric_results import STOPPED_GBPS, pair
s = pair(sys.argv[1])
loop = {("T1", "L1"), ("L1", "T1")}
# Deadlock: flow 2 stopped and both directions of the loop paused and idle.
dead = {run: int(s[run]["rates"]["flow2"] < STOPPED_GBPS and loop <= set(s[run]["stuck"])) for run in s}
w, t = s["without"], s["with"]
print("A deadlock is a stall, not a loss: flow 1's packets die of TTL expiry (ttl_expired drops);"
      " lossless drops count every other drop of a lossless priority.")
print(f"RESULT without_flow2_gbps={w['rates']['flow2']:.2f} with_flow2_gbps={t['rates']['flow2']:.2f} "
      f"without_flow1_gbps={w['rates']['flow1']:.2f} with_flow1_gbps={t['rates']['flow1']:.2f} "
      f"ttl_expired_without={w['ttl_expired']} ttl_expired_with={t['ttl_expired']} "
      f"deadlock_without={dead['without']} deadlock_with={dead['with']} "
      f"lossless_drops={w['lossless_drops'] + t['lossless_drops']}")
PY
