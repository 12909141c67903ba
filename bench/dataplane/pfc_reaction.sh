#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# PFC reaction-time benchmark (issue 3): XOFF crossing -> PFC frame on the
# wire, and PFC frame arriving -> the paused priority stopping at an
# emulated 10 Gb/s, measured on the real stages over net_ring ports (EAL
# --no-huge, one core, about a second). See bench/dataplane/pfc_reaction_bench.cc.
# Usage: bench/dataplane/pfc_reaction.sh [BUILD_DIR] [--trials N] [--seed S] [--lcore CPU]
#                              [--shaper-burst BYTES]
# BUILD_DIR defaults to build/ in the repository; it is set up with meson if
# needed and the benchmark is built with ninja -j2. The last line is:
#   RESULT xoff_to_frame_us=<median> xoff_pkts=<median> pause_to_stop_us=<median>
#          pause_extra_bytes=<median> ... (more fields, see the lines above it)
# Exit status: 0 when every target is met, 2 when a figure misses, 1 on error.
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$REPO/build"
case "${1:-}" in
  "" | -*) ;;
  *) BUILD="$1"; shift ;;
esac
source "$REPO/bench/lib.sh"
pfc_build_target "$BUILD" bench/dataplane/pfc_reaction_bench
exec "$BUILD/bench/dataplane/pfc_reaction_bench" "$@"
