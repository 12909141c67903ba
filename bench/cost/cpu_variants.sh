#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The product build for this machine (-Dcpu=native) against the build the qemu TCG guest and
# valgrind run (-Dcpu=baseline: no AVX2/AVX-512), on the whole-pipeline benchmark, alternating
# runs in the same session (the machine is shared and noisy: compare medians of the ratio).
#   bench/cost/cpu_variants.sh [BUILD_DIR] [RUNS]    (BUILD_DIR native, default build; its baseline
#                                               twin is BUILD_DIR-guest, made if missing)
# Last line: RESULT native_mpps=<median> baseline_mpps=<median> ratio=<median native/baseline>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=$(realpath "${1:-build}")
RUNS=${2:-5}
FILTER=${CPU_VARIANTS_FILTER:-BM_Pipeline/64}
G=$(tools/rocev2-vm/guest-build.sh "$B")
[ "$G" != "$B" ] || { echo "cpu_variants: $B is already a baseline build (nothing to compare)"; exit 1; }
ninja -C "$B" bench/dataplane/pipeline_bench > /dev/null
ninja -C "$G" bench/dataplane/pipeline_bench > /dev/null
run() {  # run BUILD: the switch's Mpps of one benchmark run
  bench/dataplane/pipeline_bench.sh "$1" --benchmark_filter="$FILTER" --benchmark_format=json 2>/dev/null |
    /usr/bin/python3 -m cost.cpu_variants mpps
}
native=() base=()
for i in $(seq "$RUNS"); do
  native+=("$(run "$B")")
  base+=("$(run "$G")")
  echo "run $i: native ${native[-1]} Mpps, baseline ${base[-1]} Mpps"
done
/usr/bin/python3 -m cost.cpu_variants result "${native[*]}" "${base[*]}"
