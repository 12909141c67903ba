#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger Algorithm 2 at scale (Tagger Fig. 13): Jellyfish with N switches of
# 64 ports (32 to switches, 32 to hosts), ELP = destination-rooted
# shortest-path trees (Table V), greedy tagging + compression, no file output.
# Usage: bench/tagger/scale.sh N [BUILD_DIR] [extra pfc-tagger tag options]
# BUILD_DIR defaults to build/ in the repository; it is set up with meson if
# needed and pfc-tagger is built with ninja -j2. TAGGER_BUDGET overrides the
# cycle-search budget in edges examined (default 256; 0 = exact Algorithm 2).
# The last line is:
#   RESULT switches=<N> seconds=<s> peak_mb=<m> priorities=<p> max_rules=<r>
set -eu
N="${1:?usage: $0 N [BUILD_DIR] [options]}"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="${2:-$REPO/build}"
[ $# -ge 2 ] && shift 2 || shift 1
BUDGET="${TAGGER_BUDGET:-256}"
source "$REPO/bench/lib.sh"
pfc_build_target "$BUILD" ctrl/tagger/pfc-tagger
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
/usr/bin/time -v "$BUILD/ctrl/tagger/pfc-tagger" tag \
  --topo-gen "jellyfish:$N:64:32:1" --elp-gen trees --seed 1 \
  --search-budget "$BUDGET" --no-verify "$@" >"$OUT" 2>&1 || { cat "$OUT"; exit 1; }
grep -E "^  |^summary" "$OUT" | grep -v "^\s*$" || true
# Wall clock "h:mm:ss" or "m:ss.ss" -> seconds.
secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT" |
  awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
cpu=$(sed -n -e 's/.*User time (seconds): //p' -e 's/.*System time (seconds): //p' "$OUT" |
  awk '{ s += $1 } END { print s }')
echo "cpu_seconds=$cpu (user+sys; wall time includes waiting for a shared CPU)"
kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT")
prio=$(sed -n 's/^summary: priorities=\([0-9]*\) .*/\1/p' "$OUT")
rules=$(sed -n 's/^summary: .* max_rules=\([0-9]*\) .*/\1/p' "$OUT")
echo "RESULT switches=$N seconds=$secs peak_mb=$((kb / 1024)) priorities=$prio max_rules=$rules"
