#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""DCFIT §5 on a k=8 fat-tree with random link failures (run by
bench/dcfit/fattree8.sh): each run draws two pods P and Q, an aggregation
index j, two of agg j's cores X and Y, and a ToR in each pod; the links
aP_j-tP and aQ_j-tQ fail at a random time, and the routes that bypass
them are stale, as while routing converges: traffic for tQ that reaches
aQ_j goes back up to Y, down to aP_j, through another ToR of pod P and
another aggregation, and round to tQ; traffic for tP the same way through
X and aQ_j. Two flows from other pods (green into tQ, blue into tP) share
the loop aP_j -> X -> aQ_j -> Y -> aP_j, as in the paper's k=4 setting
(bench/dcfit/detect.py's ft_on). Drawn per run as well: the loop flows'
rates (line rate deadlocks; 10-15 Gb/s each leaves the loop uncongested),
their start times, and background flows between random hosts at random
rates and times, some into a ToR of the loop (a trigger off the loop).

Truth is the data plane's (detect.py's deadlocked: a cycle among links
held paused and idle over the last 0.5 ms). Prints a row per run, then
  RESULT runs=<n> deadlocked=<n> on_loop_us_max=<x> off_loop_us_max=<x>
         detect_us_median=<x> false_pos=<n> false_neg=<n> lossless_drops=<n>

  fattree8.py RUNS FABRIC OUT_DIR
"""
import json
import os
import random
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

from dcfit import detect
from dcfit.detect_plot import plot
from pfclib.dcfit_fabrics import with_dcfit
from pfclib.fattree_loop import draw

K = 8


def write(tag, flows, events, seed, dur_ms, out):
    p = with_dcfit(detect.CFG, out, "dcfit-fattree8.yaml", "switch-lossless.yaml", "detect", dur_ms, tag,
                   "flows:\n" + flows + "events:\n" + events)
    t = open(p).read().replace("seed: 1 }", f"seed: {seed} }}")
    open(p, "w").write(t)
    return p


def one(k, out, dur_ms):
    rng = random.Random(8000 + k)
    flows, events, what, case = draw(rng, K)
    rec = detect.run(case, f"ft8-{k:03d}", (flows, events, 8000 + k), dur_ms)
    rec["what"] = what
    return rec


def main():
    runs, detect.fabric, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    detect.out = out
    # detect.run writes each run's file through detect.write: this
    # fabric's base file instead of the k=4 one.
    detect.write = lambda case, tag, spec, d: write(tag, spec[0], spec[1], spec[2], d, out)
    dur_ms = int(os.environ.get("DURATION_MS", "4"))
    print(f"{'run':10} {'deadlocked':>10} {'declared':>8} {'loops':>5} {'failed':>6} {'detect_us':>10}  "
          f"trigger / case")
    recs = []
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as ex:
        for r in ex.map(lambda k: one(k, out, dur_ms), range(runs)):
            recs.append(r)
            detect.print_row(r, 10, f" / {r['what']}")
    json.dump(recs, open(os.path.join(out, "runs.json"), "w"), indent=1)
    fp, fn, on, off = detect.verdicts(recs)
    first = [min(x["us"] for x in r["times"]) for r in recs if r["times"]]
    print(f"false positives: {' '.join(fp) or 'none'}; false negatives: {' '.join(fn) or 'none'}")
    plot(recs, os.path.join(out, "dcfit_fattree8.png"))
    mx = lambda v: f"{max(v):.2f}" if v else "nan"  # noqa: E731
    med = f"{statistics.median(first):.2f}" if first else "nan"
    print(f"RESULT runs={len(recs)} deadlocked={sum(r['dead'] for r in recs)} on_loop_us_max={mx(on)} "
          f"off_loop_us_max={mx(off)} detect_us_median={med} false_pos={len(fp)} false_neg={len(fn)} "
          f"lossless_drops={sum(r['lossless_drops'] for r in recs)}")


if __name__ == "__main__":
    main()
