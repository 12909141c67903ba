#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# PFC losslessness at a larger scale than the test suite: two pfcswitch
# processes wired port to port, 2-to-1 incast of PACKETS lossless + LOSSY
# lossy 1000-byte packets per sender into a 20 Mb/s bottleneck (see
# tests/system/test_lossless_chain.py for the topology). Prints the checks and
# a last line `RESULT lossless_sent=.. lossless_delivered=.. lossless_drops=..
# lossy_sent=.. lossy_drops=.. s2_xoff=.. s2_headroom_watermark=.. s1_paused_ms=..`.
# Usage (root): bench/switch/pfc_incast.sh [PACKETS] [LOSSY]     (default 3000 1000)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PFC_BUILD=${PFC_BUILD:-$PWD/build}
[ -x "$PFC_BUILD/dataplane/pfcswitch/pfcswitch" ] || { meson setup "$PFC_BUILD" --buildtype=release && ninja -C "$PFC_BUILD"; }
CHAIN_PREFIX=bi CHAIN_PACKETS=${1:-3000} CHAIN_LOSSY=${2:-1000} /usr/bin/python3 tests/system/test_lossless_chain.py
