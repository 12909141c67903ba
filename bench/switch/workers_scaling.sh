#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Do pfcswitch's workers slow each other? The closed loop of
# bench/switch/vs_testpmd.sh (four self-looped net_ring ports, static L2,
# 128 frames circulating, tags rewritten, buffers charged and released) run
# with `switch.workers: 1` and `switch.workers: 2`, alternating, RUNS times
# each; the rate is packets per CPU-second of ALL worker threads together,
# medians over the runs. On a 2-core machine the two workers share the cores
# with the main lcore and this script, so wall-clock scaling cannot show:
# per CPU-second can (it is what a larger machine would turn into
# near-linear scaling, if the workers share nothing on the hot path).
#
# What crosses workers: ports are owned round robin (p0, p2 and the seed
# port by worker 0, p1 and p3 by worker 1). In this loop a frame received on
# pK leaves on pK, so no packet crosses; what the two workers still share is
# what the switch shares between them (egress rings made for several
# producers, the shared buffer's occupancy, the rule snapshot).
#
# Lcores: workers 1: main lcore on CPU 0, the worker on CPU 1. workers 2:
# main lcore and worker 1 on CPU 0, worker 2 on CPU 1 (the main lcore sleeps
# in the telemetry loop).
#
# Each run also measures the machine's own reference for two workers: two
# separate one-worker processes at once (run_pair below); pair_ratio says
# how far this machine scales at all, w2_vs_pair what sharing inside one
# process costs beyond that.
#
# Prints per-run lines, the medians, and as its LAST line:
#   RESULT w1_mpps=<x> w2_mpps=<y> ratio=<y/x> pair_mpps=<p> pair_ratio=<p/x> w2_vs_pair=<y/p>
#
# Usage: bench/switch/workers_scaling.sh [BUILD_DIR] (default build)
#   env: RUNS=3 WARMUP=1 (s) MIN_CPU=1.0 (s of worker CPU time per
#        measurement) MAX_WALL=15 HUGE=0|1 (1: hugepages, needs free 2 MB
#        pages; the script says which it used)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "workers_scaling: $*" >&2; exit 1; }
# shellcheck source=bench/switch/fwd_common.sh
source "$SRC/bench/switch/fwd_common.sh" "${1:-build}"

WORK=$(mktemp -d /tmp/workers_scaling.XXXXXX)
cleanup() {
  stop_app
  [[ -n ${KEEP:-} ]] || rm -rf "$WORK"
}
trap cleanup EXIT

fwd_ports ring
for w in 1 2; do
  sed "s/^  workers: 1$/  workers: $w/" "$CONFIG" > "$WORK/w$w.yaml"
  grep -q "^  workers: $w$" "$WORK/w$w.yaml" || die "could not set workers: $w in a copy of $CONFIG"
done

# run_workers W TAG: pfcswitch with W workers, measured over all W worker
# threads (they are named rte-worker-N); fails on any drop.
run_workers() {
  local w=$1 tag=$2 prefix=ws_$$_$2 lcores
  if [[ $w == 1 ]]; then lcores=0@0,1@1; else lcores=0@0,1@0,2@1; fi
  local stats=$WORK/switch_$tag.json
  FWD_THREADS=$w run_app pfcswitch "$tag" rte-worker "$prefix" \
    "$PFCSWITCH" --lcores "$lcores" --no-pci "${MEM[@]}" --file-prefix "$prefix" \
    --log-level=lib.eal:error "${VDEVS[@]}" "${SEED_VDEV[@]}" -- --config "$WORK/w$w.yaml" \
    --stats-json "$stats"
  rm -rf "/var/run/dpdk/$prefix"
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["drops_total"]==0 else "pfcswitch dropped %d packets" % d["drops_total"])' \
    "$stats" || die "run $tag: drops (see $WORK/pfcswitch_$tag.log)"
}

# run_pair TAG: the hardware's own reference for two workers: two separate
# one-worker pfcswitch processes at once (each with the workers: 1 config
# on its own four ports, main lcore and worker on one CPU each: 0 and 1),
# measured together. They share nothing but the machine, so what two
# workers in one process lose beyond this is sharing inside the process.
# R = "wall_mpps cpu_mpps share" summed over both.
run_pair() {
  local tag=$1 i pids=() mpids=() rs=()
  for i in 0 1; do
    "$PFCSWITCH" --lcores "0@$i,1@$i" --no-pci "${MEM[@]}" --file-prefix "ws_$$_${tag}_$i" \
      --log-level=lib.eal:error "${VDEVS[@]}" "${SEED_VDEV[@]}" -- --config "$WORK/w1.yaml" \
      --stats-json "$WORK/switch_${tag}_$i.json" > "$WORK/pfcswitch_${tag}_$i.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1; do
    measure "/var/run/dpdk/ws_$$_${tag}_$i/dpdk_telemetry.v2" "${pids[$i]}" rte-worker \
      > "$WORK/measure_${tag}_$i" &
    mpids+=($!)
  done
  local ok=1
  wait "${mpids[0]}" || ok=0
  wait "${mpids[1]}" || ok=0
  for i in 0 1; do
    APP_PID=${pids[$i]} stop_app
    rm -rf "/var/run/dpdk/ws_$$_${tag}_$i"
    rs+=("$(cat "$WORK/measure_${tag}_$i")")
    "$PY" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["drops_total"] != 0)' \
      "$WORK/switch_${tag}_$i.json" || die "run $tag: process $i dropped packets"
  done
  [[ $ok == 1 ]] || die "run $tag: a measurement failed (see $WORK/pfcswitch_${tag}_*.log)"
  R=$(awk -v a="${rs[0]}" -v b="${rs[1]}" 'BEGIN {split(a, x); split(b, y);
    printf "%.3f %.3f %.3f", x[1] + y[1], (x[1] + y[1]) / (x[3] + y[3]), x[3] + y[3]}')
}

echo "workers_scaling: $RUNS alternating runs per worker count; memory: ${MEM[*]}"
W1=() W2=() P2=()
for run in $(seq "$RUNS"); do
  for w in 1 2; do
    run_workers "$w" "w${w}_$run"
    read -r wall cpu share <<< "$R"
    echo "run $run workers $w: wall $wall Mpps, $cpu Mpps per worker CPU-second (worker CPU share $share)"
    if [[ $w == 1 ]]; then W1+=("$cpu"); else W2+=("$cpu"); fi
  done
  run_pair "pair_$run"
  read -r wall cpu share <<< "$R"
  echo "run $run two processes: wall $wall Mpps, $cpu Mpps per worker CPU-second (worker CPU share $share)"
  P2+=("$cpu")
done
m1=$(median "${W1[@]}")
m2=$(median "${W2[@]}")
mp=$(median "${P2[@]}")
echo "median per worker CPU-second: workers 1 $m1 Mpps, workers 2 $m2 Mpps, two processes $mp Mpps"
echo "RESULT w1_mpps=$m1 w2_mpps=$m2 ratio=$(ratio "$m2" "$m1") pair_mpps=$mp pair_ratio=$(ratio "$mp" "$m1") w2_vs_pair=$(ratio "$m2" "$mp")"
