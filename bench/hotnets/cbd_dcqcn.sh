#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# HotNets'16 §4: does DCQCN keep the paper's CBD from deadlocking? PFC alone
# against PFC + DCQCN on the 4-switch ring for link delays of 1 to 20 us
# (bench/hotnets/cbd_dcqcn.py describes the runs). Virtual clock.
#   bench/hotnets/cbd_dcqcn.sh [BUILD_DIR] [OUT_DIR] [DELAYS_US...]
# Writes OUT_DIR/cbd_dcqcn.png; last line:
#   RESULT runs=<n> deadlocks_pfc=<n> deadlocks_dcqcn_55us=<n> deadlocks_dcqcn_900us=<n> ...
#     fig10_deadlock_pfc=<0/1> fig10_deadlock_dcqcn_55us=<0/1> fig10_deadlock_dcqcn_900us=<0/1>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=${1:-build}
OUT=$(realpath -m "${2:-hotnets-cbd-dcqcn}")
pfc_build_target "$B" dataplane/emulator/pfcfabric
/usr/bin/python3 bench/hotnets/cbd_dcqcn.py "$B/dataplane/emulator/pfcfabric" "$OUT" "${@:3}"
