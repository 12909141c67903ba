#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger (ToN 2019) Fig. 10 on the fabric emulator: the 1-bounce deadlock of
# Fig. 3 in the 10-switch, 16-host, 40 Gb/s Clos testbed of Fig. 2, without
# Tagger and with the rules pfc-tagger computes for ELP = shortest up-down +
# 1-bounce paths. Virtual clock: deterministic, about a second each here.
#   bench/tagger/fig10.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/fig10.png (flow rates, pause periods, buffers; left without,
# right with Tagger) and ends with a RESULT line. The rates are the mean over
# the last half of the run (green starts at 2 ms of 8).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=${1:-build}
OUT=$(realpath -m "${2:-fabric-fig10}")
FAB=configs/fabric
mkdir -p "$OUT"
# Without Tagger; the same command writes topology.json for pfc-tagger.
"$B/dataplane/emulator/pfcfabric" --fabric $FAB/fig10-1bounce.yaml --out "$OUT/without" | grep -v '^pfcfabric: [0-9.]* ms:'
"$B/ctrl/tagger/pfc-tagger" tag --topo "$OUT/without/topology.json" --elp-gen clos --bounces 1 --algo clos \
  -o "$OUT/rules" | tail -1
"$B/dataplane/emulator/pfcfabric" --fabric $FAB/fig10-tagger.yaml --rules "$OUT/rules" --out "$OUT/with" \
  | grep -v '^pfcfabric: [0-9.]* ms:'
/usr/bin/python3 tools/fabric_plot.py "$OUT/without" "$OUT/with" -o "$OUT/fig10.png" \
  --labels "Without Tagger (1-bounce paths deadlock),With Tagger (ELP: shortest + 1-bounce)" \
  --title "Tagger Fig. 10: 10-switch Clos at 40 Gb/s, blue from 0 ms, green from 2 ms"
/usr/bin/python3 -m tagger.figures fig10 "$OUT"
