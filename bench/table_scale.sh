#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-packet cost against table sizes: instructions per forwarded packet of the switch's round
# (valgrind callgrind over WorkerRound: independent of machine load) on the whole-pipeline
# benchmark's BM_Scale points, each dimension grown alone around the same traffic (4 busy ports,
# 64-byte packets): ports 4 -> 32 (Debian's DPDK allows 32 ethdev ports a process), extra
# Tagger rules 0 -> 10,000 (at 32 ports), extra routes 0 -> 1,000,000.
#   bench/table_scale.sh [BUILD_DIR] [OUT_DIR]
# valgrind has no AVX-512: the profile runs the -Dcpu=baseline twin of BUILD_DIR (made if missing,
# see tools/rocev2-vm/guest-build.sh). Writes OUT_DIR/table_scale.png; last line:
# RESULT ports_ratio=<32 ports / 4> rules_ratio=<10,000 rules / 0> routes_ratio=<1M routes / 0>
# (1.00 = flat).
set -euo pipefail
cd "$(dirname "$0")/.."
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
  valgrind --tool=callgrind --toggle-collect='pfc::WorkerRound*' --callgrind-out-file="$WORK/cg.$tag" \
    "$BIN" --benchmark_filter="^BM_Scale/$pt/" --benchmark_format=json --benchmark_out="$WORK/bm.$tag.json" \
    -- --no-huge -m 2048 --no-shconf --no-pci -l 0 --no-telemetry --log-level='*:warning' \
    "--file-prefix=tscale$$$tag" > "$WORK/log.$tag" 2>&1 || { tail -20 "$WORK/log.$tag"; exit 1; }
  /usr/bin/python3 - "$WORK/cg.$tag" "$WORK/bm.$tag.json" "$pt" >> "$OUT/points.csv" <<'PY'
import json, re, sys
ir = int(re.search(r"^totals:\s*(\d+)", open(sys.argv[1]).read(), re.M).group(1))
bm = json.load(open(sys.argv[2]))["benchmarks"][-1]
if "error_message" in bm:
    sys.exit("BM_Scale: " + bm["error_message"])
ports, rules, routes = sys.argv[3].split("/")
print(f"{ports},{rules},{routes},{ir / bm['tx_total']:.1f}")
PY
  echo "ports/rules/routes $pt: $(tail -1 "$OUT/points.csv" | cut -d, -f4) instructions per packet"
done
/usr/bin/python3 - "$OUT" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
out = sys.argv[1]
rows = [tuple(int(x) for x in r[:3]) + (float(r[3]),) for r in csv.reader(open(f"{out}/points.csv"))]
cost = {r[:3]: r[3] for r in rows}
series = {
    "ports (no extra rules or routes)": [(p, c) for (p, ru, rt), c in cost.items() if ru == 0 and rt == 0],
    "extra rules (32 ports)": [(max(ru, 1), c) for (p, ru, rt), c in cost.items() if p == 32 and rt == 0],
    "extra routes (4 ports)": [(max(rt, 1), c) for (p, ru, rt), c in cost.items() if p == 4 and ru == 0],
}
fig, axes = plt.subplots(1, 3, figsize=(14, 4), sharey=True)
for ax, (name, pts) in zip(axes, series.items()):
    pts.sort()
    ax.plot([x for x, _ in pts], [c for _, c in pts], marker="o")
    ax.set_xscale("log")
    ax.set_xlabel(name + (" (0 drawn at 1)" if name.startswith("extra") else ""))
    ax.grid(True, alpha=0.3)
    for x, c in pts:
        ax.annotate(f"{c:.0f}", (x, c), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
axes[0].set_ylabel("instructions per packet (WorkerRound)")
axes[0].set_ylim(bottom=0)
fig.suptitle("pfcswitch per-packet cost vs table sizes (callgrind, 4 busy ports, 64 B)")
fig.tight_layout()
fig.savefig(f"{out}/table_scale.png", dpi=100)
r = lambda a, b: cost[a] / cost[b]
print(f"RESULT ports_ratio={r((32, 0, 0), (4, 0, 0)):.2f} rules_ratio={r((32, 10000, 0), (32, 0, 0)):.2f} "
      f"routes_ratio={r((4, 0, 1000000), (4, 0, 0)):.2f}")
PY
