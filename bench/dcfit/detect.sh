#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# DCFIT detection on the fabric emulator (virtual clock, 40 Gb/s links,
# every switch with dcfit: { enabled: true, recovery: detect }), issue 9's
# experiments; bench/dcfit/detect.py has the cases and the truth:
#  ft_on      §5, k=4 fat-tree (configs/fabric/dcfit-fattree.yaml): links
#             a0_0-t0_0 and a1_0-t1_0 fail, the rerouted flows close the
#             loop a0_0 -> c0 -> a1_0 -> c1; initial trigger on the loop;
#  ft_off     the same loop at 15 Gb/s, deadlocked by an incast into
#             h0_1_0: the trigger (t0_1) is off the loop, a middle switch
#             (a0_0) must detect;
#  fig4       §3.4 Fig. 4: a0_0 gets the same {S_tri, P_tri} from two ports
#             (c0, c1), no loop: no detection;
#  transient  the loop flows plus a short burst on two loop links: pauses
#             go round the loop and resume;
#  incast     up to 11 senders into one host, shortest routes: congestion,
#             no CBD;
#  resumed    a host pause storm closes that loop at 30 Gb/s; the run
#             again, with a loop link failing 1 us after DCFIT's first pass
#             found the loop: the temporal check fails, nothing declared;
#  storm      (mix only) green's destination host pauses for 50-1000 us;
#  fig10, ring, cbd10  Tagger Fig. 10's loop, HotNets'16's ring deadlock and
#             the ring at 10 Gb/s (a CBD that does not deadlock);
# RUNS (default 3) of each, then MIX (default 10 x RUNS) randomised runs of
# the same cases with drawn rates, sizes, senders and start times.
#   bench/dcfit/detect.sh [RUNS] [BUILD_DIR] [OUT_DIR]     (env MIX=n)
# Writes OUT_DIR/runs.json and OUT_DIR/dcfit_detect.png (detection times by
# case). Last line:
#   RESULT runs=<n> on_loop_us_max=<x> off_loop_us_max=<y> false_pos=<a> false_neg=<b>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
RUNS=${1:-3}
B=${2:-build}
OUT=$(realpath -m "${3:-dcfit-detect}")
MIX=${MIX:-$((RUNS * 10))}
FABRIC=$B/dataplane/emulator/pfcfabric
[[ -x $FABRIC ]] || { echo "build first: ninja -C $B dataplane/emulator/pfcfabric" >&2; exit 1; }
mkdir -p "$OUT"
/usr/bin/python3 bench/dcfit/detect.py "$RUNS" "$MIX" "$FABRIC" "$OUT" | tee "$OUT/summary.txt"
