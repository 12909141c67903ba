#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs bench/dataplane/pipeline_bench (the whole switch pipeline on one core)
# pinned to one CPU (EAL --lcores 0@CPU), on hugepages when enough are free (--in-memory: no
# hugetlbfs mount needed), else with --no-huge.
#   bench/dataplane/pipeline_bench.sh [BUILD_DIR] [Google Benchmark flags...]
#   env: CPU=1 (core to pin to)  HUGE=auto|0|1
# Example: bench/dataplane/pipeline_bench.sh /tmp/build-x --benchmark_filter=BM_Pipeline/64
# Read switch_Mpps (the switch alone) and Mpps (switch + the harness's hosts).
set -euo pipefail
BUILD=${1:-/tmp/build-stage}
shift || true
BIN=$BUILD/bench/dataplane/pipeline_bench
[[ -x $BIN ]] || { echo "pipeline_bench.sh: no $BIN (build it: ninja -C $BUILD bench/dataplane/pipeline_bench)" >&2; exit 1; }
CPU=${CPU:-1}
HUGE=${HUGE:-auto}
free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [[ $HUGE == 1 || ($HUGE == auto && ${free_pages:-0} -ge 256) ]]; then
  EAL=(--in-memory --no-pci "--lcores=0@$CPU" --no-telemetry --log-level='*:warning')
  echo "pipeline_bench.sh: hugepages (${free_pages} free 2 MB pages), pinned to CPU $CPU"
else
  EAL=(--no-huge -m 512 --no-shconf --no-pci "--lcores=0@$CPU" --no-telemetry --log-level='*:warning'
       "--file-prefix=pfcbench$$")
  echo "pipeline_bench.sh: --no-huge (echo 512 > /proc/sys/vm/nr_hugepages for hugepages), pinned to CPU $CPU"
fi
# EAL pins its lcore 0 (the benchmark thread) to CPU $CPU.
exec "$BIN" "$@" -- "${EAL[@]}"
