#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Long fuzzing run (issue 11): every libFuzzer target of tests/fuzz, built
# with ASan and UBSan by tests/fuzz/fuzz.sh, one after the other (one core),
# each for a bounded time or number of inputs.
# Usage: bench/fuzz/long.sh [SECONDS_PER_TARGET | --runs N] [TARGET...]
#   SECONDS_PER_TARGET  run each target this long
#   --runs N            run each target for N inputs (default 10000000), but
#                       never longer than MAX_SECONDS (default 3600) per target
#   TARGET...           only these targets (default: all of fuzz.sh targets);
#                       two runs on disjoint targets can share a machine's
#                       two cores (each prints its own RESULT line)
# Speed, for the targets that parse YAML (config, fabric: yaml-cpp's parse,
# and ASan's malloc under it, is what they spend their time in):
#  * -entropic=0 (FUZZ_ARGS): libFuzzer 14's entropic schedule walks the
#    whole corpus for each rare feature, 75% of the config target's time
#    once its corpus has a few hundred inputs (callgrind);
#  * ASAN_OPTIONS malloc_context_size=0 (no allocation stack kept: a report
#    names the faulting access only; rerun its input with `fuzz.sh run SRC
#    OUT TARGET INPUT` for the full report) and a 32 MiB quarantine. Detection
#    is unchanged, bar use-after-free of memory freed more than 32 MiB ago.
# FUZZ_JOBS=J (default 1) runs J libFuzzer processes per target at once,
# as libFuzzer's own -jobs does: each gets its own seed and log
# (WORK/TARGET.<j>.log) and N/J of the inputs (--runs N), and all share the
# corpus directory, so a machine's J cores reach N inputs J times sooner.
# The target's line and RESULT count the inputs of all of them.
# Work directory: FUZZ_WORK (default build/fuzz-long in the repository); its
# corpus-<target> directories grow from run to run, crashing inputs are kept
# there as <target>-crash-* (also -timeout-, -leak-, -oom-). libFuzzer stops
# a target at its first crash, so crashes per target are 0 or 1 (up to J
# with FUZZ_JOBS=J).
# Prints per target: executions, exec/s, coverage (libFuzzer's cov and ft),
# corpus size (libFuzzer's corp: inputs kept, seeds included), crashes;
# the last line is
#   RESULT targets=<n> total_execs=<x> crashes=<c>
# Exit status: 0 without crashes, 2 with, 1 on error.
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${FUZZ_WORK:-$REPO/build/fuzz-long}
FUZZ="$REPO/tests/fuzz/fuzz.sh"
usage() { echo "usage: $0 [SECONDS_PER_TARGET | --runs N] [TARGET...]" >&2; exit 1; }
jobs=${FUZZ_JOBS:-1}
case $jobs in "" | *[!0-9]* | 0) echo "fuzz_long: FUZZ_JOBS must be a count >= 1, got '$jobs'" >&2; exit 1 ;; esac
runs=10000000 secs=
case "${1:-}" in
  --runs) runs=${2:?--runs N}; shift 2 ;;
  -*) usage ;;
  "" | *[!0-9]*) ;;
  *) runs='' secs=$1; shift ;;
esac
case $runs in *[!0-9]*) usage ;; esac
if [ -n "$runs" ]; then
  limit="-runs=$(((runs + jobs - 1) / jobs)) -max_total_time=${MAX_SECONDS:-3600}"
else
  limit="-max_total_time=$secs"
fi
targets=${*:-$("$FUZZ" targets)}
for t in $targets; do
  case " $("$FUZZ" targets) " in *" $t "*) ;; *) echo "fuzz_long: unknown target '$t'" >&2; usage ;; esac
done
FUZZ_ARGS=${FUZZ_ARGS:--entropic=0}
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0:quarantine_size_mb=32}
mkdir -p "$WORK"

# Over the target's logs ($logs): the largest value after `key` on the last
# line of each that has it ("cov: 123"); the sum of a final stat::.
last() {
  for l in $logs; do grep -o "$1 [0-9]*" "$l" | tail -1 | awk '{print $2}'; done | sort -n | tail -1
}
stat() {
  for l in $logs; do sed -n "s/^stat::$1: *//p" "$l" | tail -1; done |
    awk 'NF { s += $1; n++ } END { if (n) print s }'
}

n=0 total=0 crashes=0
for t in $targets; do
  "$FUZZ" build "$REPO" "$WORK" "$t" || { echo "fuzz_long: cannot build $t" >&2; exit 1; }
  stamp="$WORK/.start-$t"
  touch "$stamp"
  if [ "$jobs" -eq 1 ]; then
    logs="$WORK/$t.log"
    echo "fuzz_long: $t ($limit $FUZZ_ARGS)"
    # shellcheck disable=SC2086
    "$FUZZ" run "$REPO" "$WORK" "$t" $limit $FUZZ_ARGS >"$logs" 2>&1 || true
  else
    logs=""
    echo "fuzz_long: $t, $jobs jobs, each ($limit $FUZZ_ARGS -seed=<j>)"
    j=1
    while [ "$j" -le "$jobs" ]; do
      logs="$logs $WORK/$t.$j.log"
      # shellcheck disable=SC2086
      "$FUZZ" run "$REPO" "$WORK" "$t" $limit $FUZZ_ARGS -seed="$j" >"$WORK/$t.$j.log" 2>&1 &
      j=$((j + 1))
    done
    wait || true
  fi
  found=$(find "$WORK" -maxdepth 1 -newer "$stamp" \( -name "$t-crash-*" -o -name "$t-timeout-*" \
    -o -name "$t-leak-*" -o -name "$t-oom-*" \) | wc -l)
  execs=$(stat number_of_executed_units)
  if [ -z "$execs" ]; then
    echo "fuzz_long: $t did not run, see $logs" >&2
    for l in $logs; do tail -5 "$l" >&2; done
    exit 1
  fi
  printf '%-14s execs=%s exec_per_s=%s cov=%s ft=%s corpus=%s crashes=%s\n' "$t" "$execs" \
    "$(stat average_exec_per_sec)" "$(last cov:)" "$(last ft:)" "$(last corp:)" "$found"
  # shellcheck disable=SC2086
  [ "$found" -eq 0 ] || grep -hE "invariant violated|runtime error|ERROR: " $logs | head -3
  n=$((n + 1))
  total=$((total + execs))
  crashes=$((crashes + found))
done
echo "RESULT targets=$n total_execs=$total crashes=$crashes"
[ "$crashes" -eq 0 ] || exit 2
