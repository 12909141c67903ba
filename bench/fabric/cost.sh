#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What one emulated switch-hop costs, next to what one packet costs the
# standalone pipeline, in instructions (valgrind --tool=callgrind: independent
# of machine load), from the same build in the same run.
#  * emulator: pfcfabric on the virtual clock, a leaf-spine fabric of T ToRs,
#    2 spines, 2 hosts per ToR, 40 Gb/s links, every host sending 1000-byte
#    frames at 10 Gb/s to a host under the next ToR (bench/fabric/leafspine.sh;
#    datacenter-scale fabrics: bench/fabric/scale.sh). Every instruction of
#    VirtualClock::Run (runtime/virtual_clock.h: switch rounds, emulated links
#    and hosts, the clock, the recorder) is counted and
#    divided by the switch-hops: data packets the switches transmitted (the
#    sum of their per-priority tx_packets). The switch rounds' share
#    (WorkerRound) is shown apart, and bench/fabric/cost_split.py splits the
#    whole into parts per switch-hop (switch pipeline, round bookkeeping,
#    emulated link tx/rx/poll, hosts, clock and calendar, recorder); the
#    pipeline's own instructions per packet are split the same way.
#  * pipeline: bench/dataplane/pipeline_bench BM_Pipeline/64 (L3: LPM,
#    neighbour, tags, buffers, rewrite, queues; four ring ports, closed loop),
#    instructions inside WorkerRound per packet transmitted, as
#    bench/cost/table.sh counts them: full bursts (128 packets a round).
#  * the same pipeline at the emulator's kind of load, BM_Pipeline/1: one
#    packet in flight per port, 4 packets a round. On the exact virtual clock
#    a switch sees a frame whenever one lands (under one a round here), so
#    a hop pays a round's fixed cost as a lightly loaded standalone switch
#    does: this ratio is what the emulation itself adds.
#   bench/fabric/cost.sh [BUILD_DIR] [TORS]   (default build, 4 ToRs = 6 switches)
#   env: DURATION=1ms (virtual time of the fabric run)  PFCFABRIC_ARGS (extra pfcfabric options)
#        CC=dcqcn (ECN marking on, the flows ECN-capable under DCQCN: what having them costs)
#        TRANSPORT=rc (the flows RC queue pairs: their ACKs are switch-hops too)
#        QUANTUM=0 (fabric.quantum: the virtual clock's step; 0 = exact)
#        KEEP=1 (keep the work directory: callgrind files, the fabric run)
# Last line: RESULT emu_instr_per_hop=<n> pipeline_instr_per_pkt=<n> emu_over_pipeline=<ratio>
#   pipeline_light_instr_per_pkt=<n> emu_over_light_pipeline=<ratio>
set -euo pipefail
. "$(dirname "$0")/leafspine.sh"
source "$(dirname "$0")/../lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# valgrind has no AVX-512: profile the -Dcpu=baseline twin of the build (see guest-build.sh).
B=$("$SRC/tools/rocev2-vm/guest-build.sh" "${1:-$SRC/build}")
T=${2:-4}
DURATION=${DURATION:-1ms}
PY=/usr/bin/python3
die() { echo "fabric_cost: $*" >&2; exit 1; }
command -v valgrind > /dev/null || die "valgrind is not installed (apt-get install valgrind)"
ninja -C "$B" dataplane/emulator/pfcfabric bench/dataplane/pipeline_bench > /dev/null ||
  die "cannot build pfcfabric and pipeline_bench in $B"
TMP=$(mktemp -d /tmp/fabric-cost-XXXXXX)
trap '[[ -n ${KEEP:-} ]] && echo "fabric_cost: kept $TMP" || rm -rf "$TMP"; rm -rf /var/run/dpdk/fcost$$' EXIT

leafspine_switch "$TMP/switch.yaml"
{
  echo "fabric: { clock: virtual, duration: $DURATION, bin: 100us, quantum: ${QUANTUM:-0} }"
  leafspine_body "$T" "$TMP/switch.yaml"
} > "$TMP/fabric.yaml"

# callgrind's per-function totals (inclusive, from the toggle-collected part).
# (awk reads to the end: an early exit would fail callgrind_annotate with SIGPIPE.)
incl() { callgrind_annotate --auto=no --inclusive=yes "$1" | awk -v f="$2" 'index($0, f) && !n++ { gsub(",", "", $1); print $1 }'; }
total() { callgrind_annotate --auto=no "$1" | awk '/PROGRAM TOTALS/ && !n++ { gsub(",", "", $1); print $1 }'; }

echo "fabric_cost: callgrind on pfcfabric (leafspine:$T:2:2, $DURATION virtual) ..."
# shellcheck disable=SC2086
valgrind --tool=callgrind --toggle-collect='pfc::emulator::VirtualClock::Run(*' \
  --callgrind-out-file="$TMP/cg.emu" "$B/dataplane/emulator/pfcfabric" --fabric "$TMP/fabric.yaml" \
  --out "$TMP/out" ${PFCFABRIC_ARGS:-} > "$TMP/emu.log" 2>&1 || { tail "$TMP/emu.log"; die "pfcfabric failed"; }
emu_total=$(total "$TMP/cg.emu")
emu_sw=$(incl "$TMP/cg.emu" "pfc::stages::WorkerRound(")
# pipe TAG INFLIGHT: callgrind over pipeline_bench BM_Pipeline/INFLIGHT.
pipe() {
  echo "fabric_cost: callgrind on pipeline_bench BM_Pipeline/$2 ..."
  valgrind --tool=callgrind --toggle-collect='pfc::stages::WorkerRound*' --callgrind-out-file="$TMP/cg.$1" \
    "$B/bench/dataplane/pipeline_bench" --benchmark_filter="^BM_Pipeline/$2/" --benchmark_format=json \
    --benchmark_out="$TMP/bm.$1.json" -- --no-huge -m 512 --no-shconf --no-pci -l 0 --no-telemetry \
    --log-level='*:warning' --file-prefix=fcost$$ > "$TMP/$1.log" 2>&1 || { tail "$TMP/$1.log"; die "pipeline_bench failed"; }
}
pipe pipe 64
pipe light 1
pipe_total=$(total "$TMP/cg.pipe")
light_total=$(total "$TMP/cg.light")
hops=$("$PY" -m fabric.cost hops "$TMP/out")
txs() { "$PY" -m fabric.cost tx "$1"; }
pkts=$(txs "$TMP/bm.pipe.json")
light_pkts=$(txs "$TMP/bm.light.json")
echo "emulator, instructions per switch-hop by part:"
"$PY" "$SRC/bench/fabric/cost_split.py" "$TMP/cg.emu" "$hops"
echo "pipeline_bench (full bursts), instructions per packet by part:"
"$PY" "$SRC/bench/fabric/cost_split.py" "$TMP/cg.pipe" "$pkts"
echo "pipeline_bench (one packet per port a round), instructions per packet by part:"
"$PY" "$SRC/bench/fabric/cost_split.py" "$TMP/cg.light" "$light_pkts"

"$PY" -m fabric.cost summary "$TMP/out" "$TMP/bm.pipe.json" "$emu_total" "${emu_sw:-0}" "$pipe_total" "$hops" \
  "$pkts" "$light_total" "$light_pkts"
