#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Is a change to the emulator faster? Runs one fabric file with two builds
# (the commit before a change and after it) in turns, A B A B ..., so load
# from others on a shared machine falls on both alike, and compares each
# run's CPU seconds, user and system (getrusage of pfcfabric, single-
# threaded; system time counts: page faults are the process's cost) and its
# outputs (every file but timing.json, byte for byte: a speed-up must not
# change a result).
#   bench/fabric/ab_cpu.sh BUILD_A BUILD_B FABRIC_FILE [RUNS] [OUT_DIR]
# RUNS: pairs (default 3). AB_TOGETHER=1 runs each pair's A and B at the
# same time instead, each pinned to a CPU of its own (swapped every pair):
# on a shared machine whose load drifts by more than the change (a virtual
# machine's neighbours), both sides then see the same moment; an A against
# A run that way is the noise to compare with. AB_RUN_CPU=1 compares the
# run's own CPU seconds (timing.json's cpu_seconds: the clock's run, without
# parsing the file and building the fabric) instead of the process's: a
# change to the run is then not diluted by start-up. Prints each run and the
# medians, draws OUT_DIR/ab_cpu.png, and ends with
#   RESULT cpu_s_a=<median> cpu_s_b=<median> ratio=<b/a> pair_ratio=<median
#   of each pair's b/a> runs=<n> identical=<0|1>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
[ $# -ge 3 ] || { sed -n '3,13p' "$0" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2")
FABRIC=$(realpath "$3")
RUNS=${4:-3}
OUT=$(realpath -m "${5:-fabric-ab-cpu}")
for b in "$A" "$B"; do
  [ -x "$(pfc_bin "$b" pfcfabric)" ] || { echo "ab_cpu: build $b first" >&2; exit 1; }
done
[ -f "$FABRIC" ] || { echo "ab_cpu: $FABRIC: no such fabric file" >&2; exit 1; }
TOGETHER=${AB_TOGETHER:-0} RUN_CPU=${AB_RUN_CPU:-0}
for v in "AB_TOGETHER=$TOGETHER" "AB_RUN_CPU=$RUN_CPU"; do
  case "${v#*=}" in
    0 | 1) ;;
    *) echo "ab_cpu: ${v%%=*}: expected 0 or 1 (got '${v#*=}')" >&2; exit 2 ;;
  esac
done
CPUS=()
if [ "$TOGETHER" = 1 ]; then
  mapfile -t CPUS < <(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
    awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' | head -2)
  [ ${#CPUS[@]} -eq 2 ] || { echo "ab_cpu: AB_TOGETHER needs two CPUs" >&2; exit 1; }
fi
rm -rf "$OUT" && mkdir -p "$OUT"
: > "$OUT/times.csv"
identical=1
# One run of `side` (on CPU $2 when given); its rc in $OUT/$side.rc.
run_side() {
  local side=$1 cpu=${2:-} build=$A rc=0
  [ "$side" = B ] && build=$B
  rm -rf "${OUT:?}/$side"
  local pin=()
  [ -n "$cpu" ] && pin=(taskset -c "$cpu")
  /usr/bin/time -f "%U %S %e" -o "$OUT/time.$side" "${pin[@]}" "$(pfc_bin "$build" pfcfabric)" \
    --fabric "$FABRIC" --out "$OUT/$side" > "$OUT/$side.log" 2>&1 || rc=$?
  echo "$rc" > "$OUT/$side.rc"
}
for i in $(seq 1 "$RUNS"); do
  if [ "$TOGETHER" = 1 ]; then
    ca=${CPUS[$(( (i + 1) % 2 ))]} cb=${CPUS[$(( i % 2 ))]}
    run_side A "$ca" & run_side B "$cb" & wait
  else
    run_side A
    run_side B
  fi
  for side in A B; do
    rc=$(cat "$OUT/$side.rc")
    # 3: the run's verdict (--expect) is not ours to judge; anything else failed.
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] ||
      { echo "ab_cpu: run $i of $side failed (exit $rc): $OUT/$side.log" >&2; exit 1; }
    read -r user sys wall < "$OUT/time.$side"
    if [ "$RUN_CPU" = 1 ]; then
      cpu=$(/usr/bin/python3 -c 'import json, sys
print("%.2f" % json.load(open(sys.argv[1]))["cpu_seconds"])' "$OUT/$side/timing.json")
      echo "run $i $side: $cpu s CPU in the run (process: $user user + $sys system), $wall s wall"
    else
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      echo "run $i $side: $cpu s CPU ($user user + $sys system), $wall s wall"
    fi
    echo "$side,$i,$cpu,$wall" >> "$OUT/times.csv"
  done
  # The last pair's outputs, every file but the wall-clock one.
  while IFS= read -r f; do
    cmp -s "$OUT/A/$f" "$OUT/B/$f" || { echo "ab_cpu: $f differs" >&2; identical=0; }
  done < <(cd "$OUT/A" && find . -type f ! -name timing.json | sort)
done
/usr/bin/python3 - "$OUT" "$identical" "$A" "$B" "$TOGETHER" "$RUN_CPU" <<'EOF'
import csv, statistics, sys
out, identical, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
together, run_cpu = sys.argv[5] == "1", sys.argv[6] == "1"
rows = list(csv.reader(open(f"{out}/times.csv")))
cpu = {s: [float(r[2]) for r in rows if r[0] == s] for s in "AB"}
ma, mb = statistics.median(cpu["A"]), statistics.median(cpu["B"])
pr = statistics.median(y / x for x, y in zip(cpu["A"], cpu["B"]))
print(f"A {a}: median {ma:.2f} s CPU over {len(cpu['A'])} runs")
print(f"B {b}: median {mb:.2f} s CPU ({mb / ma:.3f} of A; each pair's B/A, median {pr:.3f})")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.5))
    n = len(cpu["A"])
    xs = range(1, n + 1)
    ax.bar([x - 0.2 for x in xs], cpu["A"], 0.4, label=f"A (median {ma:.1f} s)")
    ax.bar([x + 0.2 for x in xs], cpu["B"], 0.4, label=f"B (median {mb:.1f} s)")
    ax.set_xlabel("pair (A and B at once)" if together else "run (A then B)")
    ax.set_ylabel("the run's CPU, timing.json (s)" if run_cpu
                  else "pfcfabric CPU, user + system (s)")
    ax.set_xticks(list(xs))
    ax.set_title(f"B / A = {mb / ma:.3f} (pairs' median {pr:.3f}), "
                 f"outputs {'identical' if identical else 'DIFFER'}")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(f"{out}/ab_cpu.png", dpi=100)
    print(f"figure {out}/ab_cpu.png")
except ImportError:
    print("ab_cpu: no python3-matplotlib: no figure", file=sys.stderr)
print(f"RESULT cpu_s_a={ma:.2f} cpu_s_b={mb:.2f} ratio={mb / ma:.3f} pair_ratio={pr:.3f} "
      f"runs={len(cpu['A'])} identical={identical}")
EOF
