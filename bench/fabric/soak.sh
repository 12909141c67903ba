#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/fabric/soak.sh MINUTES [BUILD_DIR]     (as root; default BUILD_DIR: build)
# Runs pfcfabric on the real clock for MINUTES (fractions allowed): three
# switches, three namespace hosts on af_packet veths sending paced lossless
# bursts and lossy overload across them, and emulated lossless and lossy
# flows; then checks no crash and exit 0, every mbuf back in its pool,
# buffers empty, no lossless drop, every lossless frame accounted for and
# flat RSS (bench/fabric/soak.py explains each). The results directory,
# with fabric_soak.png (RSS and rates over time), is BUILD_DIR/fabric-soak.
# Last line:
#   RESULT minutes=<m> lossless_drops=<n> pool_ok=<0|1> rss_growth_kb=<k> frames_lost=<n>
# Exit status 0 only if every check passed.
set -euo pipefail
minutes=${1:?usage: bench/fabric/soak.sh MINUTES [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib.sh"
export PYTHONPATH="$PYTHONPATH:$PFC_ROOT/tests/system"  # soak.py drives the hosts with swlib
out=$(realpath "$build")/fabric-soak
rm -rf "$out"
PFC_BUILD=$(realpath "$build") exec /usr/bin/python3 "$here/soak.py" --minutes "$minutes" --out "$out"
