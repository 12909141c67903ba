#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tagger at datacenter scale (run by bench/fabric/tagger_loop.sh): a
fattree:K (default 16: 320 switches, 1,024 hosts) where two links fail and
stale routes close a loop through two cores (pfclib/fattree_loop.py: two
line-rate flows share the loop aP_j -> X -> aQ_j -> Y -> aP_j, with
background traffic). Each draw runs twice on the virtual clock:
  without  every switch with configs/fabric/switch-lossless.yaml: the loop
           is a cyclic buffer dependency and deadlocks;
  with     switch-tagger.yaml and the rules pfc-tagger computes for the
           fabric's topology (--elp-gen clos --bounces BOUNCES --algo clos
           --clos-bounces BOUNCES):
           a bounce moves a frame to the next lossless tag, so no cycle
           forms.
Truth is the data plane's (bench/dcfit/detect.py's deadlocked: a cycle of
links held paused and idle over the last 0.5 ms); the loop flows'
goodput over the last millisecond shows who still moves.

  tagger_loop.py PFCFABRIC PFC_TAGGER OUT_DIR
  env: K (16), RUNS (3), BOUNCES (2: the detour bounces twice), DURATION_MS
       (4), THREADS (2: pfcfabric --threads)
Last line:
  RESULT k=<K> runs=<n> deadlocked_without=<n> deadlocked_with=<n>
         lossless_drops_with=<n> loop_gbps_with_min=<x>
"""
import json
import os
import random
import subprocess
import sys

from dcfit.detect import deadlocked
from pfclib.fabric_results import results
from pfclib.fattree_loop import UNLIMITED, draw

CFG = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "configs", "fabric"))
K = int(os.environ.get("K", "16"))
RUNS = int(os.environ.get("RUNS", "3"))
BOUNCES = os.environ.get("BOUNCES", "2")
DURATION_MS = int(os.environ.get("DURATION_MS", "4"))
THREADS = os.environ.get("THREADS", "2")


def fabric_file(path, template, flows, events, seed):
    with open(path, "w") as f:
        f.write(f"fabric: {{ clock: virtual, duration: {DURATION_MS}ms, bin: 100us, seed: {seed} }}\n"
                f"topology: {{ gen: fattree:{K} }}\nlinks: {{ rate: 40G, delay: 1us }}\n"
                f"switch: {{ config: {CFG}/{template} }}\nflows:\n{flows}events:\n{events}")


def run(fabric, path, out, *extra):
    p = subprocess.run([fabric, "--fabric", path, "--out", out, "--threads", THREADS, *extra],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"fabric_tagger_loop: pfcfabric failed on {path}:\n{p.stdout[-2000:]}{p.stderr}")
    return results(out)


def last_ms_gbps(out, names):
    """The named flows' receive rate over the run's last millisecond (Gb/s
    summed), from flows.csv's bins."""
    import csv
    rows = list(csv.DictReader(open(os.path.join(out, "flows.csv"))))
    t_end = max(float(r["t_ms"]) for r in rows)
    return sum(float(r["gbps"]) for r in rows
               if r["flow"] in names and float(r["t_ms"]) > t_end - 1.0) / 10.0


def plot(recs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4))
    xs = range(len(recs))
    for dx, key, label, colour in ((-0.2, "gbps_without", "switch-lossless (no Tagger)", "tab:red"),
                                   (0.2, "gbps_with", "pfc-tagger rules", "tab:green")):
        bars = ax.bar([x + dx for x in xs], [r[key] for r in recs], 0.4, label=label, color=colour)
        ax.bar_label(bars, labels=["deadlock" if r[key.replace("gbps", "dead")] else f"{r[key]:.0f}"
                                   for r in recs], fontsize=8)
    ax.set_xticks(list(xs), [f"draw {r['run']}\n{r['loop']}" for r in recs], fontsize=7)
    ax.set_ylabel("loop flows' goodput, last ms (Gb/s)")
    ax.set_title(f"fattree:{K}, two failed links and stale routes (bench/fabric/tagger_loop.sh)",
                 fontsize=9)
    ax.legend(fontsize=8)
    ax.set_ylim(0, max([r["gbps_with"] for r in recs] + [1]) * 1.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    fabric, tagger, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    recs = []
    rules = os.path.join(out, "rules")
    print(f"{'run':5} {'dead w/o':>9} {'Gb/s w/o':>9} {'dead w/':>8} {'Gb/s w/':>8} {'lossless':>9} "
          f"{'lossy':>8}  loop")
    for k in range(RUNS):
        seed = 1600 + k
        flows, events, what, _ = draw(random.Random(seed), K, rates=(UNLIMITED,), background=(8, 33))
        rec = {"run": k, "loop": what.split(";")[0].replace("loop ", "")}
        for side, template in (("without", "switch-lossless.yaml"), ("with", "switch-tagger.yaml")):
            path = os.path.join(out, f"{side}-{k}.yaml")
            fabric_file(path, template, flows, events, seed)
            d = os.path.join(out, f"{side}-{k}")
            extra = []
            if side == "with":
                if not os.path.isdir(rules):  # one topology for every draw
                    p = subprocess.run([tagger, "tag", "--topo", os.path.join(out, "without-0", "topology.json"),
                                        "--elp-gen", "clos", "--bounces", BOUNCES, "--algo", "clos",
                                        "--clos-bounces", BOUNCES, "-o", rules],
                                       capture_output=True, text=True)
                    if p.returncode != 0:
                        sys.exit(f"fabric_tagger_loop: pfc-tagger failed:\n{p.stdout}{p.stderr}")
                    print("pfc-tagger: " + p.stdout.strip().splitlines()[-1])
                extra = ["--rules", rules]
            r = run(fabric, path, d, *extra)
            rec[f"dead_{side}"] = deadlocked(d)
            rec[f"gbps_{side}"] = last_ms_gbps(d, ("green", "blue"))
            rec[f"lossless_{side}"] = r["lossless_drops"]
            rec[f"lossy_{side}"] = sum(p["drops_total"] for s in r["switches"].values() for p in s["ports"]) \
                - r["lossless_drops"]
        recs.append(rec)
        print(f"{k:<5} {str(rec['dead_without']):>9} {rec['gbps_without']:9.1f} {str(rec['dead_with']):>8} "
              f"{rec['gbps_with']:8.1f} {rec['lossless_with']:9d} {rec['lossy_with']:8d}  {rec['loop']}",
              flush=True)
    json.dump(recs, open(os.path.join(out, "runs.json"), "w"), indent=1)
    plot(recs, os.path.join(out, "fabric_tagger_loop.png"))
    print(f"RESULT k={K} runs={len(recs)} deadlocked_without={sum(r['dead_without'] for r in recs)} "
          f"deadlocked_with={sum(r['dead_with'] for r in recs)} "
          f"lossless_drops_with={sum(r['lossless_with'] for r in recs)} "
          f"loop_gbps_with_min={min(r['gbps_with'] for r in recs):.1f}")


if __name__ == "__main__":
    main()
