#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-packet cost against table sizes: instructions per forwarded packet of the switch's round
# (valgrind callgrind over WorkerRound: independent of machine load) on the whole-pipeline
# benchmark's BM_Scale points, each dimension grown alone around the same traffic (4 busy ports,
# 64-byte packets): ports 4 -> 32 (Debian's DPDK allows 32 ethdev ports a process), extra
# Tagger rules 0 -> 10,000 (at 32 ports), extra routes 0 -> 1,000,000.
#   bench/cost/table_scale.sh [BUILD_DIR] [OUT_DIR]
# valgrind has no AVX-512: the profile runs the -Dcpu=baseline twin of BUILD_DIR (made if missing,
# see tools/rocev2-vm/guest-build.sh). Writes OUT_DIR/table_scale.png; last line:
# RESULT ports_ratio=<32 ports / 4> rules_ratio=<10,000 rules / 0> routes_ratio=<1M routes / 0>
# (1.00 = flat).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=$(tools/rocev2-vm/guest-build.sh "${1:-build}")
OUT=$(realpath -m "${2:-table-scale}")
mkdir -p "$OUT"
command -v valgrind > /dev/null || { echo "table_scale: valgrind is not installed (apt-get install valgrind)"; exit 1; }
ninja -C "$B" bench/dataplane/pipeline_bench > /dev/null
BIN=$B/bench/dataplane/pipeline_bench
WORK=$(mktemp -d /tmp/table_scale.XXXXXX)
trap 'rm -rf "$WORK" /var/run/dpdk/tscale$$*' EXIT
POINTS="4/0/0 16/0/0 32/0/0 32/10/0 32/1000/0 32/10000/0 4/0/10 4/0/10000 4/0/1000000"
: > "$OUT/points.csv"
for pt in $POINTS; do
  tag=${pt//\//_}
  valgrind --tool=callgrind --toggle-collect='pfc::stages::WorkerRound*' --callgrind-out-file="$WORK/cg.$tag" \
    "$BIN" --benchmark_filter="^BM_Scale/$pt/" --benchmark_format=json --benchmark_out="$WORK/bm.$tag.json" \
    -- --no-huge -m 2048 --no-shconf --no-pci -l 0 --no-telemetry --log-level='*:warning' \
    "--file-prefix=tscale$$$tag" > "$WORK/log.$tag" 2>&1 || { tail -20 "$WORK/log.$tag"; exit 1; }
  /usr/bin/python3 -m cost.table_scale point "$WORK/cg.$tag" "$WORK/bm.$tag.json" "$pt" >> "$OUT/points.csv"
  echo "ports/rules/routes $pt: $(tail -1 "$OUT/points.csv" | cut -d, -f4) instructions per packet"
done
/usr/bin/python3 -m cost.table_scale plot "$OUT"
