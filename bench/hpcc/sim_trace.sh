#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The HPCC simulator's packet trace as text (bench/hpcc/sim_trace.cc says
# the columns): run a case with SIM_TRACE=<node,...> through
# vs_hpcc_simulator.sh, then
#   bench/hpcc/sim_trace.sh OUT_DIR/CASE/sim/out_mix.tr [NODE...]
# The reader is built once against the simulator's headers in its build
# cache (HPCC_SIM_DIR, default build/hpcc-simulator).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIM=$(realpath -m "${HPCC_SIM_DIR:-$ROOT/build/hpcc-simulator}")
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_MIX_TR [NODE...]" >&2; exit 2; }
MODEL=$SIM/hpcc/simulation/src/point-to-point/model
[[ -f $MODEL/trace-format.h ]] ||
  { echo "sim_trace: no simulator sources in $SIM (run bench/hpcc/vs_hpcc_simulator.sh once)" >&2; exit 1; }
BIN=$SIM/sim_trace
if [[ ! -x $BIN || $ROOT/bench/hpcc/sim_trace.cc -nt $BIN ]]; then
  g++ -O2 -std=c++17 -I"$MODEL" -I"$SIM/hpcc/analysis" -o "$BIN" "$ROOT/bench/hpcc/sim_trace.cc"
fi
exec "$BIN" "$@"
