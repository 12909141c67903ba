#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# DCFIT Fig. 5 on the fabric emulator (virtual clock): a misbehaving host
# keeps pausing its edge switch and a deadlock forms off the loop; with
# recovery: break alone it is broken and comes back again and again, with
# dcfit.trigger_handling it is broken once and stays away. The setting and
# the measures are in bench/dcfit/fig5.py.
#   bench/dcfit/fig5.sh [BUILD_DIR] [OUT_DIR] [DURATION_MS]   (default build dcfit-fig5 10)
# Writes OUT_DIR/dcfit_fig5.png (normalised throughput over time, both cases
# side by side) and OUT_DIR/fig5.json. Last line:
#   RESULT deadlocks_baseline=<n> deadlocks_handled=<m> tput_baseline=<x> tput_handled=<y>
# (tput: the loop flows' mean normalised throughput after the storm starts).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=${1:-build}
OUT=$(realpath -m "${2:-dcfit-fig5}")
DUR=${3:-10}
FABRIC=$B/dataplane/emulator/pfcfabric
[[ -x $FABRIC ]] || { echo "build first: ninja -C $B dataplane/emulator/pfcfabric" >&2; exit 1; }
mkdir -p "$OUT"
/usr/bin/python3 bench/dcfit/fig5.py "$FABRIC" "$OUT" "$DUR" | tee "$OUT/summary.txt"
