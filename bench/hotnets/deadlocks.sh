#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# HotNets'16 ("Deadlocks in datacenter networks") §3 on the fabric emulator,
# 40 Gb/s links, virtual clock (deterministic), 20 ms a run:
#  (a) §3.1: one flow trapped in a 2-switch routing loop
#      (configs/fabric/hotnets-loop.yaml), TTL 16; its injection rate swept.
#      Analytic condition: the loop deadlocks when its links are asked for
#      more than they carry. A packet sent with TTL t is forwarded t-1 times
#      (a switch drops it on arrival at TTL <= 1), all on loop links, so each
#      of the n = 2 directions carries r (t-1)/n: deadlock when
#      r > n B / (t-1) = 5.33 Gb/s; the paper writes n B / TTL = 5 Gb/s.
#  (b) §3.2-3.3: three flows on a 4-switch ring (hotnets-cbd.yaml), a CBD
#      without a loop; all flows rate limited to the same rate, swept, and
#      unlimited.
#   bench/hotnets/deadlocks.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/hotnets.png (deadlock against rate, both cases), and
# OUT_DIR/loop.png, OUT_DIR/cbd.png (fabric_plot of a run each side of the
# turn); ends with a RESULT line.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/fabric_common.sh "${1:-build}" "${2:-fabric-hotnets}"
SRC=$(pwd)
LOOP_RATES="3 3.5 4 4.5 4.75 5 5.25 5.5 5.75 6 6.5 7 8"
CBD_RATES="10 15 18 19 20 21 22 25 unlimited"
mkdir -p "$OUT/files"
for r in $LOOP_RATES; do
  f=$OUT/files/loop-$r.yaml
  printf 'include: %s\nflows:\n  - { name: loop, from: H1, to: H2, dscp: 1, prio: 1, rate: %sG, ttl: 16 }\n' \
    "$SRC/$FAB/hotnets-loop.yaml" "$r" > "$f"
  fabric_run "$f" "loop-$r" | grep -v '^pfcfabric: [0-9]* switches' || true
done
for r in $CBD_RATES; do
  f=$OUT/files/cbd-$r.yaml
  lim=$([[ $r == unlimited ]] && echo "" || echo ", rate: ${r}G")
  {
    printf 'include: %s\nflows:\n' "$SRC/$FAB/hotnets-cbd.yaml"
    printf '  - { name: flow1, from: HA, to: HD, dscp: 1, prio: 1%s }\n' "$lim"
    printf '  - { name: flow2, from: HC, to: HB, dscp: 1, prio: 1%s }\n' "$lim"
    printf '  - { name: flow3, from: HB3, to: HC3, dscp: 1, prio: 1%s }\n' "$lim"
  } > "$f"
  fabric_run "$f" "cbd-$r" | grep -v '^pfcfabric: [0-9]* switches' || true
done
/usr/bin/python3 - "$OUT" "$LOOP_RATES" "$CBD_RATES" <<'PY'
import os, subprocess, sys
from pfclib.fabric_results import results, summary
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
out, loop_rates, cbd_rates = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
B, TTL, N = 40.0, 16, 2
analytic, paper = N * B / (TTL - 1), N * B / TTL
drops = 0

def run(name, ring):
    global drops
    s = summary(os.path.join(out, name))
    drops += s["lossless_drops"]
    return int(ring <= set(s["stuck"])), s

print(f"(a) routing loop A <-> B, B = {B:g} Gb/s, TTL {TTL}: rate, deadlock, ttl_expired drops, injected Gb/s")
loop = []
for r in loop_rates:
    dead, s = run(f"loop-{r}", {("A", "B"), ("B", "A")})
    res = results(os.path.join(out, f"loop-{r}"))
    sent = res["flows"][0]["tx_bytes"] * 8 / res["duration_ns"]
    loop.append((float(r), dead, s["ttl_expired"], sent))
    print(f"  {float(r):5.2f} Gb/s  deadlock={dead}  ttl_expired={s['ttl_expired']:6d}  injected {sent:5.2f}")
# Where it turns: the lowest swept rate from which every higher rate deadlocks.
turn = next((r for i, (r, _, _, _) in enumerate(loop) if all(d for _, d, _, _ in loop[i:])), None)
below = max((r for r, d, _, _ in loop if not d and (turn is None or r < turn)), default=None)
print(f"  deadlock from {turn} Gb/s (none at {below}); analytic: the loop's links are oversubscribed when "
      f"r > n B / (TTL - 1) = {analytic:.2f} Gb/s (a packet is forwarded TTL - 1 times); "
      f"the paper's n B / TTL = {paper:.2f} Gb/s")
print("(b) CBD on a 4-switch ring, three flows, each limited to: deadlock, flow rates (Gb/s)")
cbd = []
for r in cbd_rates:
    dead, s = run(f"cbd-{r}", {("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")})
    cbd.append((r, dead))
    print(f"  {r:>9s}: deadlock={dead}  " + ", ".join(f"{f} {g:.2f}" for f, g in sorted(s["rates"].items())))
limited = [(float(r), d) for r, d in cbd if r != "unlimited"]
# The highest limit up to which no swept rate deadlocks (above it a run may
# still escape within 20 ms: whether a CBD locks depends on the bursts).
cbd_ok = max((r for r, _ in limited if not any(d for x, d in limited if x <= r)), default=0)
cbd_unlimited = dict(cbd)["unlimited"]
print(f"  no deadlock up to {cbd_ok:g} Gb/s a flow (two flows share A->B, B->C, C->D: 2 r <= B = {B:g} "
      f"wire Gb/s); deadlock without rate limits: {cbd_unlimited}")
print(f"  deadlocks are stalls, not losses: lossless drops over all {len(loop) + len(cbd)} runs: {drops}")

fig, ax = plt.subplots(1, 2, figsize=(12, 4.2))
a = ax[0]
a.step([r for r, *_ in loop], [d for _, d, _, _ in loop], where="mid", color="tab:red", label="deadlock (1) or not (0)")
a.axvline(analytic, color="k", ls="--", label=f"n B / (TTL-1) = {analytic:.2f} Gb/s")
a.axvline(paper, color="gray", ls=":", label=f"paper: n B / TTL = {paper:.2f} Gb/s")
a2 = a.twinx()
a2.plot([r for r, *_ in loop], [t / 1e3 for _, _, t, _ in loop], "o-", color="tab:blue", ms=3)
a2.set_ylabel("ttl_expired drops (thousands)", color="tab:blue")
a.set_xlabel("injection rate (Gb/s)")
a.set_ylabel("deadlock at the end of 20 ms")
a.set_title(f"(a) routing loop of 2 switches, {B:g} Gb/s, TTL {TTL}")
a.legend(loc="center left", fontsize=8)
a = ax[1]
xs = [r for r, _ in limited] + [30]
a.step(xs, [d for _, d in limited] + [cbd_unlimited], where="mid", color="tab:red")
a.set_xticks(xs)
a.set_xticklabels([f"{r:g}" for r, _ in limited] + ["none"])
a.axvline(B / 2, color="k", ls="--", label="B / 2: two flows share a link")
a.set_xlabel("rate limit of each flow (Gb/s)")
a.set_ylabel("deadlock at the end of 20 ms")
a.set_title("(b) CBD of 3 flows on a 4-switch ring, 40 Gb/s")
a.legend(loc="center left", fontsize=8)
fig.suptitle("HotNets'16 §3: CBD is not sufficient for deadlock; rate decides")
fig.tight_layout()
fig.savefig(os.path.join(out, "hotnets.png"), dpi=110)
plot = lambda runs, png, labels: subprocess.run(
    ["/usr/bin/python3", "tools/fabric_plot.py", *[os.path.join(out, x) for x in runs], "-o",
     os.path.join(out, png), "--labels", labels], check=True)
if turn is not None and below is not None:
    plot([f"loop-{below:g}", f"loop-{turn:g}"], "loop.png",
         f"Loop: {below:g} Gb/s (no deadlock),Loop: {turn:g} Gb/s (deadlock)")
plot([f"cbd-{cbd_ok:g}", "cbd-unlimited"], "cbd.png",
     f"CBD: flows limited to {cbd_ok:g} Gb/s,CBD: no rate limit")
print(f"RESULT loop_deadlock_from_gbps={turn} loop_no_deadlock_at_gbps={below} analytic_gbps={analytic:.2f} "
      f"paper_formula_gbps={paper:.2f} cbd_unlimited_deadlock={cbd_unlimited} cbd_max_ok_rate_gbps={cbd_ok:g} "
      f"lossless_drops={drops}")
PY
