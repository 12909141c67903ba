#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# pfcfabric side by side with the HPCC work's ns-3 RDMA simulator (issue 40):
# the same topology, flow and config files through both, flows matched one by
# one, per size bucket FCT p50/p95/p99 and slowdown (against the simulator's
# standalone FCT on both sides), the per-flow FCT ratio, pause frames, CPU
# and wall seconds and peak RSS (bench/hpcc/vs_simulator.py describes it).
#   bench/hpcc/vs_hpcc_simulator.sh [CASES] [BUILD_DIR] [OUT_DIR]
# CASES: comma-separated folders under $HPCC_REF/runs (default small; also
# fat320-websearch30-5ms, ~150 CPU s simulator + ~120 emulator, run at once),
# under bench/hpcc/cases (fat320-websearch50-5ms, the same at 50% load), or
# paths to folders holding config.txt and the files it names.
# Environment: HPCC_REF (default ../shared/reference/hpcc-simulator from the
# source root), HPCC_SIM_DIR (the simulator's build cache, default
# build/hpcc-simulator under the source root, built once with $HPCC_REF/build.sh,
# 4-6 min at -j1), SIM_FROM_REFERENCE=1 (read the simulator's kept outputs and
# time.log in the reference folder instead of running it; labelled as such),
# SEEDS=N (run each side N times, the simulator with RngRun 1..N and the
# emulator with fabric.seed 1..N, and compare per-flow mean FCTs too: one run
# is one draw of the marking), SIM_KEEP=1 (keep the simulator's outputs an earlier run left in OUT_DIR and
# run the emulator's side alone), NO_BUILD=1 (use BUILD_DIR's pfcfabric as it is: no ninja, e.g. in a build
# directory someone else is building), ANALYSE_ONLY=1 (run nothing: read the
# outputs an earlier run left in OUT_DIR again), SIDES=turns (the simulator
# alone, then the emulator alone, instead of both at once: each side's CPU
# seconds without the other beside it), EMU_THREADS=N (the emulator
# on N threads: the same results; CPU and wall seconds are both reported),
# EMU_QUANTUM=<time> (the emulator on a stepped clock, fabric.quantum added to
# the converted file: fewer switch rounds, answers a little off; with EMU_THREADS too),
# QLEN_MON=1 (both sides' queue monitors, every 100 ns over 100 ms from the
# case's QLEN_MON_START; queue-length percentiles over the traffic compared,
# bench/hpcc/qlen.py), SIM_TRACE=<node,...> (the simulator traces every packet
# event at those nodes into CASE/sim/out_mix.tr; bench/hpcc/sim_trace.sh prints it).
# Figure OUT_DIR/vs_hpcc_simulator.png, OUT_DIR/table.txt, summary.json; last line
#   RESULT <case>_p50_ratio_<bucket>=<x> ... <case>_ratio_p5=<x> <case>_ratio_p50=<x>
#          <case>_ratio_p95=<x> <case>_within_10pct=<n> <case>_matched=<n> <case>_cpu_s_sim=<x> <case>_cpu_s_emu=<x>
#          <case>_wall_s_sim=<x> <case>_wall_s_emu=<x> <case>_pause_sim=<n> <case>_pause_emu=<n>
#          <case>_refresh_emu=<n> <case>_drops_sim=<n|-> <case>_drops_emu=<n>
#          <case>_paused_links_sim=<n> <case>_paused_links_emu=<n> <case>_paused_links_both=<n>
#          [<case>_qlen_p99_kb_sim=<n> <case>_qlen_p99_kb_emu=<n> ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
source bench/hpcc/sim_lib.sh
CASES=${1:-small}
B=${2:-$PFC_BUILD_DEFAULT}
OUT=$(realpath -m "${3:-vs-hpcc-simulator}")
hpcc_sim_ready vs_hpcc_simulator "$B" "$OUT"
IFS=, read -r -a CASE_LIST <<< "$CASES"
/usr/bin/python3 bench/hpcc/vs_simulator.py "$(pfc_bin "$B" pfcfabric)" "$SIM" "$REF" "$OUT" \
  "${CASE_LIST[@]}"
