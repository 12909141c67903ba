#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Datacenter-scale fabrics on the virtual clock: fat-trees k = 4 to 32
# (20 to 1,280 switches, 16 to 8,192 hosts) and Jellyfish fabrics of 100,
# 500 and 1,000 switches (16 ports, 12 to switches), pfc-tagger's
# generators. For each: peak RSS, start-up seconds, the web search
# workload at 30% load for 1 ms (longer below 1,024 hosts, so that a small
# fabric's run is long enough to time: fattree:4 64 ms) (hops, wall seconds, Mhops/s; then on two threads and
# over two MPI ranks: speedups, byte-identical results, each rank's peak
# RSS) and instructions per switch-hop (callgrind, 50 us of a 30%
# permutation, on the build's -Dcpu=baseline twin; fabrics up to
# CALLGRIND_MAX=400 switches). Figures in OUT/fabric_scale.png. See
# bench/fabric/scale.py (RANKS=0: no MPI runs; HOP_PAIRS=N: the smallest and
# the largest fabric's one-thread runs, alternating, whose medians give
# hop_rate_min_over_max, hops per CPU second; default 3).
#   bench/fabric/scale.sh [BUILD_DIR] [OUT_DIR] [FABRIC...]
# About an hour here for the default set (callgrind and fattree:32 most of it).
# Last line: RESULT switches_max=<n> rss_mb_per_switch=<x> startup_s_at_max=<x>
#            instr_per_hop_max_over_min=<x> threads2_speedup=<x> identical_t2=<0|1>
#            ranks2_speedup=<x> identical_r2=<0|1> rank_rss_mb_at_max=<a+b>
#            mhops_per_s_at_max_r2=<x> hop_rate_min_over_max=<x> threads2_balance=<x>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=${1:-build}
OUT=$(realpath -m "${2:-fabric-scale}")
shift $(( $# < 2 ? $# : 2 ))
FABRICS=("$@")
[ ${#FABRICS[@]} -gt 0 ] || FABRICS=(fattree:4 fattree:8 fattree:12 fattree:16 fattree:24 fattree:32
  jellyfish:100:16:12 jellyfish:500:16:12 jellyfish:1000:16:12)
pfc_build_target "$B" dataplane/emulator/pfcfabric
# valgrind has no AVX-512: profile the -Dcpu=baseline twin of the build (see guest-build.sh).
COST=$(tools/rocev2-vm/guest-build.sh "$B")
ninja -C "$COST" dataplane/emulator/pfcfabric > /dev/null
PYTHONPATH=tools /usr/bin/python3 bench/fabric/scale.py "$B/dataplane/emulator/pfcfabric" \
  "$COST/dataplane/emulator/pfcfabric" "$OUT" "${FABRICS[@]}"
