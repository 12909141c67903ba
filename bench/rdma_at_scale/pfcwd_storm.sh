#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The PFC pause-storm watchdog on the fabric emulator (issue 9, "Watchdog";
# virtual clock, deterministic): a host storms its ToR from a random start
# for a random duration while other flows share the switches, without the
# watchdog and with it for detect_time {200us, 500us (the default: left out
# of the config), 1ms} x restore_time
# {1ms, 5ms} x action {drop, forward}; then heavy incasts with no storm
# (3 to 7 senders into one host across three switches) at every detect
# time. bench/rdma_at_scale/pfcwd_storm.py describes the runs and what is measured.
#   bench/rdma_at_scale/pfcwd_storm.sh [RUNS] [BUILD_DIR] [OUT_DIR]
# RUNS (default 10) storms and as many incasts. Writes OUT_DIR/runs.json and
# OUT_DIR/pfcwd_storm.png; last line:
#   RESULT runs=<n> detect_us_max=<x> detect_target_us=1000 detect_late_us_max=<x - detect_time>
#     detect_us_max_default=<x at the default detect_time> restore_us_max=<y> restore_late_us_max=<y - restore_time> false_alarms=<z>
#     victim_gbps_with=<a> victim_gbps_without=<b>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
RUNS=${1:-10}
B=${2:-build}
OUT=$(realpath -m "${3:-pfcwd-storm}")
FABRIC=$B/dataplane/emulator/pfcfabric
[[ -x $FABRIC ]] || { echo "build first: ninja -C $B dataplane/emulator/pfcfabric" >&2; exit 1; }
mkdir -p "$OUT"
/usr/bin/python3 bench/rdma_at_scale/pfcwd_storm.py "$RUNS" "$FABRIC" "$OUT" | tee "$OUT/summary.txt"
