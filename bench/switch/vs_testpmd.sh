#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The I/O floor: pfcswitch vs dpdk-testpmd (--forward-mode=mac) on the same
# virtual ports, in the same run, alternating, several times. testpmd's mac
# forwarding only passes pointers, so this says how far the whole lossless
# pipeline is above what the ports themselves cost, not how pfcswitch
# compares with a switch users would run instead (bench/switch/vs_ovs.sh:
# Open vSwitch-DPDK doing the same per-packet work). Ports, seed frames and
# the measurement are shared with that script (bench/switch/fwd_common.sh).
# Prints the medians and, as its LAST line:
#   RESULT switch_mpps=<x> testpmd_mpps=<y> ratio=<x/y>
#
# Usage: bench/switch/vs_testpmd.sh [BUILD_DIR]      (default /tmp/build-stage)
#   env: RUNS=3 (runs per app, alternating)   WARMUP=1 (s)
#        MIN_CPU=1.0 (s of forwarding-core CPU time to measure over; the
#          window grows until the thread got that much, at most MAX_WALL=15 s)
#        LCORES=0,1 (main lcore, forwarding lcore)  HUGE=0|1 (1: hugepages,
#          --in-memory; needs free 2 MB pages: echo 512 > /proc/sys/vm/nr_hugepages)
#        RATE=cpu|wall (which rate the RESULT line reports; default cpu)
#        PORTS=ring|pcap (default ring, see below)
#
# Why this setup (the alternatives were measured, see the report):
#  * Ports: four net_ring vdevs (--vdev net_ringN). A net_ring port is a
#    self-loop: what an app transmits on port N it receives again on port N.
#    Pointer passing, no copy, no generator competing for the 2 shared cores:
#    what is compared is the apps, not a traffic source. (net_pcap with
#    infinite_rx copies every packet and caps even testpmd at ~20 Mpps on
#    this machine; a separate generator process would need a third core.)
#  * Each app keeps a fixed population of 128 64-byte packets circulating
#    (32 per port): testpmd seeds it with --tx-first (--txpkts=60 +4 FCS);
#    pfcswitch reads the same count once from a fifth port, net_pcap0 with a
#    finite rx_pcap (testpmd gets that port too, masked off with --portmask).
#  * pfcswitch runs in static-L2 mode (bench/switch/vs_testpmd.yaml): a
#    router decrements the TTL, so routed packets die in any closed loop.
#    L2 mode still runs parse, tag classification, lookup, buffer admission
#    and release, the Tagger rewrite (tags 24<->26 swap on every pass, so
#    half the packets get a DSCP + checksum rewrite each time), egress queue
#    by the new tag, scheduling and tx. The L3 extras (LPM, neighbour, TTL,
#    MAC rewrite) are measured by bench/dataplane/pipeline_bench, and by:
#  * PORTS=pcap, the second variant: four net_pcap ports replaying a pcap
#    forever (infinite_rx=1, tx dropped), so every packet is new and the
#    switch runs its full L3 pipeline (bench/switch/vs_testpmd_l3.yaml). The
#    pcap PMD copies each packet on rx, which dominates both apps' cost.
#  * Both apps: same EAL memory settings, main lcore idle, one forwarding
#    lcore; the rate is the sum of opackets of ports 0-3 read through DPDK's
#    own telemetry socket (/ethdev/stats), identical for both apps.
#  * The machine is shared: a wall-clock rate also measures whoever else runs
#    on the forwarding core. The script therefore reads the forwarding
#    thread's CPU time (/proc/PID/task/TID/schedstat) over the same window
#    and reports packets per CPU-second of the forwarding core (= Mpps on a
#    dedicated core); wall-clock Mpps and the core share are printed too.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "switch_vs_testpmd: $*" >&2; exit 1; }
# shellcheck source=bench/switch/fwd_common.sh
source "$SRC/bench/switch/fwd_common.sh" "${1:-/tmp/build-stage}"
TESTPMD=${TESTPMD:-$(command -v dpdk-testpmd || true)}
RATE=${RATE:-cpu}
PORTS=${PORTS:-ring}
[[ -n $TESTPMD && -x $TESTPMD ]] || die "dpdk-testpmd not found (Debian package dpdk)"
[[ $RATE == cpu || $RATE == wall ]] || die "RATE must be cpu or wall"
[[ $PORTS == ring || $PORTS == pcap ]] || die "PORTS must be ring or pcap"

WORK=$(mktemp -d /tmp/switch_vs_testpmd.XXXXXX)
cleanup() {
  stop_app
  rm -rf "$WORK"
}
trap cleanup EXIT

fwd_ports "$PORTS"
if [[ $PORTS == ring ]]; then
  TP_ARGS=(--portmask=0xf --tx-first --txpkts=60)
else
  TP_ARGS=()
fi

run_testpmd() {
  local prefix=svt_tp_$$_$1
  # --stats-period keeps testpmd running without stdin until SIGINT.
  run_app testpmd "$1" rte-worker "$prefix" \
    "$TESTPMD" -l "$LCORES" --no-pci "${MEM[@]}" --file-prefix "$prefix" --log-level=lib.eal:error \
    "${VDEVS[@]}" "${SEED_VDEV[@]}" -- --forward-mode=mac --nb-cores=1 "${TP_ARGS[@]}" \
    --burst=32 --total-num-mbufs=16384 --stats-period=100
}

echo "switch_vs_testpmd: ports $PORTS, $RUNS alternating runs per app, ${WARMUP}s warm-up, then until" \
     "${MIN_CPU}s of forwarding CPU (max ${MAX_WALL}s); lcores $LCORES; memory: ${MEM[*]}"
sw_wall=() sw_cpu=() tp_wall=() tp_cpu=()
for run in $(seq "$RUNS"); do
  run_switch "$run"
  read -r w c s <<< "$R"
  echo "run $run pfcswitch: wall ${w} Mpps, ${c} Mpps per forwarding-core CPU-second (core share ${s})"
  sw_wall+=("$w"); sw_cpu+=("$c")
  run_testpmd "$run"
  read -r w c s <<< "$R"
  echo "run $run testpmd  : wall ${w} Mpps, ${c} Mpps per forwarding-core CPU-second (core share ${s})"
  tp_wall+=("$w"); tp_cpu+=("$c")
done

sw_w=$(median "${sw_wall[@]}"); tp_w=$(median "${tp_wall[@]}")
sw_c=$(median "${sw_cpu[@]}"); tp_c=$(median "${tp_cpu[@]}")
echo "median wall-clock:     switch ${sw_w} Mpps, testpmd ${tp_w} Mpps, ratio $(ratio "$sw_w" "$tp_w")"
echo "median per CPU-second: switch ${sw_c} Mpps, testpmd ${tp_c} Mpps, ratio $(ratio "$sw_c" "$tp_c")"
if [[ $RATE == cpu ]]; then x=$sw_c y=$tp_c; else x=$sw_w y=$tp_w; fi
awk -v x="$x" -v y="$y" 'BEGIN {printf "RESULT switch_mpps=%.2f testpmd_mpps=%.2f ratio=%.3f\n", x, y, x/y}'
