#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/switch/soak.sh MINUTES [BUILD_DIR]     (as root; default BUILD_DIR: build)
# Runs pfcswitch for MINUTES (fractions allowed) in veth namespaces under
# mixed traffic: a lossless 2-to-1 incast into a shaped port, lossy overload,
# malformed frames, a pause-frame storm from a host and rule swaps every 3 s;
# then checks no crash, the mbuf pool full again, buffers back to zero, no
# lossless drop beyond lossless_headroom_exceeded and flat RSS (bench/switch/soak.py
# explains each). Last line:
#   RESULT minutes=<m> lossless_drops=<n> pool_ok=<0|1> rss_growth_kb=<k> swaps=<s>
# Exit status 0 only if every check passed.
set -euo pipefail
minutes=${1:?usage: bench/switch/soak.sh MINUTES [BUILD_DIR]}
build=${2:-build}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib.sh"
export PYTHONPATH="$PYTHONPATH:$PFC_ROOT/tests/system"  # soak.py drives the switch with swlib
seconds=$(/usr/bin/python3 -c "import sys; print(float(sys.argv[1]) * 60)" "$minutes")
PFC_BUILD=$(realpath "$build") exec /usr/bin/python3 "$here/soak.py" "$seconds"
