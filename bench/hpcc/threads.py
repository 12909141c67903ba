#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pfcfabric on one thread and on THREADS, in turns, on an HPCC simulator
case (issue 42: every core of the machine for at least 1.8x).

The case's files go through tools/hpcc_import.py once; then PAIRS pairs of
runs, each a --threads 1 run followed by a --threads THREADS run (the order
alternates pair by pair, so that a slow stretch of a shared machine falls on
both sides), each reading its wall seconds and, with threads, its balance
from timing.json (the threads' mean busy seconds over the critical path,
docs/reference/fabric-file.md). Every run's results.json, fct.csv and
flows.csv must be byte-identical to the first's: the split may change the
speed, never the answer.

  threads.py FABRIC_BIN REF_DIR OUT_DIR CASE
Prints a table; writes OUT_DIR/threads.png and OUT_DIR/threads.json; last line
  RESULT <case>_speedup_median=<x> (the median of the pairs' ratios)
         <case>_speedup_of_medians=<x> <case>_pairs=<x,...> <case>_wall_s_t1=<x>
         <case>_wall_s_tN=<x> (medians) <case>_balance=<x> (median) <case>_identical=<0|1>
"""
import filecmp
import json
import os
import statistics
import subprocess
import sys

import vs_simulator as vs
from pfclib import bench_env

OUTPUTS = ("results.json", "fct.csv", "flows.csv")


PAIRS = bench_env.env_count("hpcc threads", "PAIRS", 3, 1)
THREADS = bench_env.env_count("hpcc threads", "THREADS", 2, 2)


def run(fabric_bin, fabric, out, threads):
    r = subprocess.run([fabric_bin, "--fabric", fabric, "--out", out, "--threads", str(threads)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"hpcc threads: pfcfabric --threads {threads} failed:\n{r.stdout}{r.stderr}")
    t = json.load(open(os.path.join(out, "timing.json")))
    th = t.get("threads") or {}
    return {"wall_s": t["wall_seconds"], "cpu_s": t["cpu_seconds"], "balance": th.get("balance")}


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    fabric_bin, ref, out, case = sys.argv[1:]
    cdir = vs.case_dir(ref, case)
    conv = os.path.join(out, "fabric")
    vs.hpcc_import(cdir, os.path.join(cdir, "config.txt"), conv, "hpcc threads")
    fabric = os.path.join(conv, "fabric.yaml")
    runs, first, identical = [], None, True
    for i in range(PAIRS):
        order = (1, THREADS) if i % 2 == 0 else (THREADS, 1)
        pair = {}
        for th in order:
            d = os.path.join(out, f"pair{i + 1}-t{th}")
            pair[th] = run(fabric_bin, fabric, d, th)
            if first is None:
                first = d
            same = all(filecmp.cmp(os.path.join(first, f), os.path.join(d, f), shallow=False)
                       for f in OUTPUTS)
            identical &= same
            print(f"pair {i + 1} --threads {th}: wall {pair[th]['wall_s']:.2f} s, "
                  f"cpu {pair[th]['cpu_s']:.2f} s"
                  + (f", balance {pair[th]['balance']:.3f}" if pair[th]["balance"] else "")
                  + ("" if same else "  OUTPUTS DIFFER"), flush=True)
        runs.append(pair)
    ratios = [p[1]["wall_s"] / p[THREADS]["wall_s"] for p in runs]
    t1 = statistics.median(p[1]["wall_s"] for p in runs)
    tn = statistics.median(p[THREADS]["wall_s"] for p in runs)
    bal = statistics.median(p[THREADS]["balance"] for p in runs)
    key = case.replace("-", "_")
    data = {"case": case, "threads": THREADS, "runs": runs, "ratios": ratios,
            "speedup_median": statistics.median(ratios), "speedup_of_medians": t1 / tn,
            "balance": bal, "identical": identical}
    with open(os.path.join(out, "threads.json"), "w") as f:
        json.dump(data, f, indent=1)
    plot(data, os.path.join(out, "threads.png"))
    print(f"RESULT {key}_speedup_median={data['speedup_median']:.2f} "
          f"{key}_speedup_of_medians={t1 / tn:.2f} "
          f"{key}_pairs={','.join(f'{r:.2f}' for r in ratios)} {key}_wall_s_t1={t1:.2f} "
          f"{key}_wall_s_t{THREADS}={tn:.2f} {key}_balance={bal:.3f} "
          f"{key}_identical={int(identical)}")
    if not identical:
        sys.exit(1)


def plot(d, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    th = d["threads"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    xs = range(1, len(d["runs"]) + 1)
    a.bar([x - 0.2 for x in xs], [p[1]["wall_s"] for p in d["runs"]], 0.4, label="1 thread")
    a.bar([x + 0.2 for x in xs], [p[th]["wall_s"] for p in d["runs"]], 0.4,
          label=f"{th} threads")
    a.set_xlabel("pair")
    a.set_ylabel("wall seconds")
    a.set_xticks(list(xs))
    a.legend()
    a.set_title(f"{d['case']}: wall time, same results ({'identical' if d['identical'] else 'DIFFER'})")
    b.plot(list(xs), d["ratios"], "o-", label="speedup (pair)")
    b.plot(list(xs), [p[th]["balance"] * th for p in d["runs"]], "s--", label=f"balance x {th}")
    b.axhline(1.8, color="grey", ls=":", label="issue 42's 1.8x")
    b.set_ylim(1, max([th] + d["ratios"]) + 0.1)
    b.set_xlabel("pair")
    b.set_xticks(list(xs))
    b.legend()
    b.set_title(f"one thread's wall over {th} threads'")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main()
