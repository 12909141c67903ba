#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Mixed (issue 9): Tagger Fig. 10's 1-bounce cyclic buffer dependency and a
# misbehaving host that storms its ToR from 4 ms (configs/fabric/mixed-storm.yaml),
# four runs on the virtual clock: {without, with Tagger} x {without, with the
# pause-storm watchdog (500 us, drop)}. Tagger's rules are pfc-tagger's for
# ELP = shortest up-down + 1-bounce paths. Expected: without Tagger blue and
# green deadlock; with it they keep flowing; without the watchdog the storm
# stops gray (a flow that only shares a path with the storming host's
# traffic); with it gray keeps moving.
#   bench/fabric/mixed.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/mixed.png (per run: flow rates, pause periods, buffers) and
# OUT_DIR/outcomes.json; last line:
#   RESULT tagger0_wd0=<outcome> tagger0_wd1=<..> tagger1_wd0=<..> tagger1_wd1=<..> ...
# where an outcome is deadlock|wd_breaks_loop|flowing (blue and green over the
# last 4 ms; bench/fabric/mixed.py)
# and gray_stopped|gray_moving.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/fabric/common.sh "${1:-build}" "${2:-fabric-mixed}"
fabric_run $FAB/mixed-lossless.yaml tagger0_wd0
fabric_run $FAB/mixed-lossless-pfcwd.yaml tagger0_wd1
"$TAGGER" tag --topo "$OUT/tagger0_wd0/topology.json" --elp-gen clos --bounces 1 --algo clos \
  -o "$OUT/rules" | tail -1
fabric_run $FAB/mixed-tagger.yaml tagger1_wd0 --rules "$OUT/rules"
fabric_run $FAB/mixed-tagger-pfcwd.yaml tagger1_wd1 --rules "$OUT/rules"
/usr/bin/python3 tools/fabric_plot.py "$OUT"/tagger0_wd0 "$OUT"/tagger0_wd1 "$OUT"/tagger1_wd0 "$OUT"/tagger1_wd1 \
  -o "$OUT/mixed.png" --labels "No Tagger / no watchdog,No Tagger / watchdog,Tagger / no watchdog,Tagger / watchdog" \
  --title "Mixed: Tagger Fig. 10 CBD (blue, green) + H14 storming from 4 ms (red to H14, gray shares its path)"
/usr/bin/python3 bench/fabric/mixed.py "$OUT"
