#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where pfcswitch's time goes, independent of machine load: instructions per
# forwarded packet, per pipeline stage, counted by valgrind's callgrind on
# bench/dataplane/pipeline_bench (WorkerRound exactly as pfcswitch runs it,
# four ring ports, 64-byte packets, a closed loop: the harness turns every
# transmitted packet around). Two configs: static L2 (BM_PipelineL2, the
# config of bench/switch/vs_testpmd.sh) and L3 (BM_Pipeline: LPM, neighbour,
# TTL and MAC rewrite). Only instructions inside WorkerRound are counted
# (--toggle-collect), divided by the packets the switch transmitted, so the
# harness's own work is left out. bench/cost/callgrind_stages.py assigns every
# instruction to a stage by the source file it came from (the build has -g,
# so inlined code keeps its file) or the function it was compiled into.
#
# For the I/O floor the same is measured for dpdk-testpmd (mac and io
# forwarding, four self-looped net_ring ports, 128 packets): all
# instructions of its forwarding thread per packet it transmitted.
#
# Prints the table and, as its LAST line:
#   RESULT instr_per_pkt=<L2 total> l3_instr_per_pkt=<L3 total>
#
# Usage: bench/cost/table.sh [BUILD_DIR]   (default build-cost in the source tree)
#   BUILD_DIR is configured here if it does not exist, as the release build
#   plus debug info (meson setup --buildtype=release -Ddebug=true: the same
#   -O3 code, with line tables) for a CPU without AVX2/AVX-512 (-Dcpu=baseline:
#   valgrind 3.19 cannot run AVX-512); an existing one must have been built with -g.
#   env: TESTPMD=1 (0: skip testpmd)  TP_SECONDS=20 (wall time of each
#        testpmd run under valgrind)  PFC_BENCH_DCFIT=1 (the switch with
#        dcfit.enabled: DCFIT's bookkeeping cost, against a run without)
#        PFC_BENCH_ECN=1 (ECN marking on the lossless queues, a 50K/200K/5%
#        WRED profile the closed loop stays under: the per-packet cost of
#        keeping queue depths)  PFC_BENCH_INT=1 (an INT hop record on every
#        packet: the cost of in-band telemetry at a transit switch)
# valgrind is installed from Debian (as root) if missing. Takes 2-4 minutes.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build-cost}
TESTPMD=${TESTPMD:-1}
TP_SECONDS=${TP_SECONDS:-20}
PY=/usr/bin/python3
source "$SRC/bench/lib.sh"  # PYTHONPATH for table.py (pfclib)
die() { echo "cost_table: $*" >&2; exit 1; }

if ! command -v valgrind > /dev/null; then
  [[ $(id -u) == 0 ]] || die "valgrind is not installed (apt-get install valgrind as root)"
  echo "cost_table: installing valgrind from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind > /dev/null ||
    { apt-get update > /dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind > /dev/null; } ||
    die "could not install valgrind"
fi
if [[ ! -d $BUILD ]]; then
  echo "cost_table: configuring $BUILD (release + debug info)"
  meson setup "$BUILD" "$SRC" --buildtype=release -Ddebug=true -Dcpu=baseline > /dev/null
fi
ninja -C "$BUILD" -j "$(nproc)" bench/dataplane/pipeline_bench > /dev/null || die "cannot build pipeline_bench in $BUILD"
BIN=$BUILD/bench/dataplane/pipeline_bench
grep -q -- ' -g ' "$BUILD/compile_commands.json" ||
  die "$BUILD has no debug info: the stages are told apart by source lines (use a build set up with -Ddebug=true)"

WORK=$(mktemp -d /tmp/cost_table.XXXXXX)
# EAL makes a runtime directory per --file-prefix even with --no-shconf.
trap 'rm -rf "$WORK" /var/run/dpdk/cost$$l2 /var/run/dpdk/cost$$l3 /var/run/dpdk/costtp$$mac /var/run/dpdk/costtp$$io' EXIT
EAL_MEM=(--no-huge -m 512 --no-shconf --no-pci)
EAL=("${EAL_MEM[@]}" -l 0 --no-telemetry --log-level='*:warning')

# profile NAME FILTER: callgrind over one pipeline_bench config; writes
# $WORK/NAME.json with the instructions per stage and "packets".
profile() {
  local name=$1 filter=$2
  valgrind --tool=callgrind --toggle-collect='pfc::stages::WorkerRound*' --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$WORK/cg.$name" "$BIN" --benchmark_filter="$filter" \
    --benchmark_format=json --benchmark_out="$WORK/bm.$name.json" \
    -- "${EAL[@]}" "--file-prefix=cost$$$name" > "$WORK/log.$name" 2>&1 ||
    { tail -20 "$WORK/log.$name" >&2; die "pipeline_bench under callgrind failed ($name)"; }
  "$PY" "$SRC/bench/cost/callgrind_stages.py" "$WORK/cg.$name" "$(basename "$BIN")" > "$WORK/$name.stages" ||
    die "cannot split the $name profile into stages"
  "$PY" "$SRC/bench/cost/table.py" stages "$WORK/bm.$name.json" "$WORK/$name.stages" "$WORK/$name.json"
}

# testpmd_cost MODE: instructions of testpmd's forwarding thread per packet.
testpmd_cost() {
  local mode=$1 out=$WORK/tp.$1
  timeout -s INT "$TP_SECONDS" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out" \
    dpdk-testpmd -l 0,1 "${EAL_MEM[@]}" --no-telemetry --log-level=lib.eal:error "--file-prefix=costtp$$$mode" \
    --vdev net_ring0 --vdev net_ring1 --vdev net_ring2 --vdev net_ring3 -- \
    "--forward-mode=$mode" --nb-cores=1 --tx-first --txpkts=60 --burst=32 --total-num-mbufs=16384 \
    --stats-period=100 > "$out.log" 2>&1 || true
  "$PY" "$SRC/bench/cost/table.py" testpmd "$out"
}

echo "cost_table: callgrind on $BIN (L2 and L3 configs), instructions per forwarded packet"
# (The benchmarks' own MinTime, 2 s of CPU, is CPU time under valgrind.)
profile l2 '^BM_PipelineL2/64/'
profile l3 '^BM_Pipeline/64/'
TP_MAC="-" TP_IO="-"
if [[ $TESTPMD == 1 ]]; then
  command -v dpdk-testpmd > /dev/null || die "dpdk-testpmd not found (Debian package dpdk; TESTPMD=0 skips it)"
  TP_MAC=$(testpmd_cost mac) || die "testpmd mac under callgrind failed"
  TP_IO=$(testpmd_cost io) || die "testpmd io under callgrind failed"
fi

"$PY" "$SRC/bench/cost/table.py" table "$WORK/l2.json" "$WORK/l3.json" "$TP_MAC" "$TP_IO"
