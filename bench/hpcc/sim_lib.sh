# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the benches that run the HPCC simulator beside pfcfabric
# (vs_hpcc_simulator.sh, self_spread.sh), after bench/lib.sh: sets REF (the
# archive, HPCC_REF) and SIM (its build cache, HPCC_SIM_DIR), builds
# pfcfabric unless NO_BUILD=1 and the simulator once. hpcc_sim_ready NAME BUILD_DIR OUT_DIR
hpcc_sim_ready() {
  local name=$1 b=$2 out=$3
  REF=$(realpath -m "${HPCC_REF:-$PFC_ROOT/../shared/reference/hpcc-simulator}")
  SIM=$(realpath -m "${HPCC_SIM_DIR:-$PFC_ROOT/build/hpcc-simulator}")
  [[ -f $REF/build.sh ]] || { echo "$name: no simulator archive in $REF (set HPCC_REF)" >&2; exit 1; }
  mkdir -p "$out"
  [[ ${NO_BUILD:-0} == 1 ]] || pfc_build_target "$b" dataplane/emulator/pfcfabric
  if [[ ${SIM_FROM_REFERENCE:-0} != 1 && ! -x $SIM/hpcc/simulation/build/scratch/third ]]; then
    echo "$name: building the simulator into $SIM (4-6 min, log $out/sim-build.log)"
    "$REF/build.sh" "$SIM" > "$out/sim-build.log" 2>&1 ||
      { echo "$name: the simulator's build failed (see $out/sim-build.log)" >&2; exit 1; }
  fi
}
