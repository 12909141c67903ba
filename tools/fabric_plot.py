#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draws pfcfabric results as the papers draw them.

  tools/fabric_plot.py RESULTS_DIR [RESULTS_DIR ...] -o fig.png [--title T]
                       [--labels "Without Tagger,With Tagger"]

One column per results directory (e.g. the same experiment without and with
Tagger, as Tagger ToN 2019 Fig. 10 (a) and (b)); rows:
  1. the rate of every flow over time at its receiver (Gb/s),
  2. pause periods: for each (switch, port) whose egress was paused on a
     lossless priority at some point, a bar while it is paused,
  3. ingress buffer occupancy (KB) of the lossless priorities, one line per
     (switch, port) that held any.
Reads flows.csv and ports.csv (written by pfcfabric); needs only
python3-matplotlib.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_flows(d):
    series = defaultdict(lambda: ([], []))
    with open(os.path.join(d, "flows.csv")) as f:
        for r in csv.DictReader(f):
            t, g = series[r["flow"]]
            t.append(float(r["t_ms"]))
            g.append(float(r["gbps"]))
    return series


def read_ports(d):
    """(switch, port, prio) -> rows of (t_ms, paused, pausing, buffer_bytes)."""
    rows = defaultdict(list)
    lossy = set()
    with open(os.path.join(d, "ports.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["switch"], r["port"], int(r["prio"]))
            rows[key].append((float(r["t_ms"]), int(r["paused"]), int(r["pausing"]), int(r["buffer_bytes"])))
    return rows, lossy


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--title", default="")
    ap.add_argument("--labels", default="")
    ap.add_argument("--lossy-prio", type=int, default=0, help="priority to leave out of rows 2-3")
    a = ap.parse_args()
    labels = a.labels.split(",") if a.labels else [os.path.basename(d.rstrip("/")) for d in a.dirs]
    n = len(a.dirs)
    fig, ax = plt.subplots(3, n, figsize=(6.4 * n, 8.5), squeeze=False, sharex="col",
                           gridspec_kw={"height_ratios": [1.2, 1.0, 1.0]})
    for c, d in enumerate(a.dirs):
        flows = read_flows(d)
        ports, _ = read_ports(d)
        a0, a1, a2 = ax[0][c], ax[1][c], ax[2][c]
        for name, (t, g) in sorted(flows.items()):
            a0.plot(t, g, label=name, linewidth=1.6)
        a0.set_ylabel("flow rate at receiver (Gb/s)")
        top = max([max(g) for _, g in flows.values()] + [1.0])
        a0.set_ylim(0, top * 1.15)
        a0.set_title(labels[c] if c < len(labels) else d)
        a0.legend(loc="upper right", fontsize=8)
        a0.grid(alpha=0.3)
        # Pause periods: egress paused by the peer, per lossless (switch, port).
        paused_keys = [k for k, v in sorted(ports.items()) if k[2] != a.lossy_prio and any(p for _, p, _, _ in v)]
        for i, k in enumerate(paused_keys):
            v = ports[k]
            spans = []
            start = None
            for j, (t, p, _, _) in enumerate(v):
                t0 = v[j - 1][0] if j else 0.0
                if p and start is None:
                    start = t0
                if not p and start is not None:
                    spans.append((start, t0 - start))
                    start = None
            if start is not None:
                spans.append((start, v[-1][0] - start))
            a1.broken_barh(spans, (i - 0.4, 0.8), color="tab:red")
        a1.set_yticks(range(len(paused_keys)))
        a1.set_yticklabels([f"{s}->{p} q{q}" for s, p, q in paused_keys], fontsize=7)
        a1.set_ylabel("egress paused by peer")
        if not paused_keys:
            a1.text(0.5, 0.5, "no port paused", ha="center", va="center", transform=a1.transAxes)
        a1.grid(alpha=0.3, axis="x")
        # Buffer occupancy of the lossless priorities.
        held = [k for k, v in sorted(ports.items()) if k[2] != a.lossy_prio and any(b for _, _, _, b in v)]
        held.sort(key=lambda k: -max(b for _, _, _, b in ports[k]))
        for k in held[:8]:
            v = ports[k]
            a2.plot([t for t, _, _, _ in v], [b / 1024 for _, _, _, b in v], label=f"{k[0]} from {k[1]} q{k[2]}",
                    linewidth=1.2)
        a2.set_ylabel("ingress buffer (KB)")
        a2.set_xlabel("time (ms)")
        if held:
            a2.legend(loc="upper right", fontsize=7)
        a2.grid(alpha=0.3)
    if a.title:
        fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"fabric_plot: wrote {a.out}")


if __name__ == "__main__":
    sys.exit(main())
