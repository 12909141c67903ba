#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draws pfcfabric results as the papers draw them.

  tools/fabric_plot.py RESULTS_DIR [RESULTS_DIR ...] -o fig.png [--title T]
                       [--labels "Without Tagger,With Tagger"] [--no-switch-events]

One column per results directory (e.g. the same experiment without and with
Tagger, as Tagger ToN 2019 Fig. 10 (a) and (b)); rows:
  1. the rate of every flow over time at its receiver (Gb/s); each flow has
     its own colour, line style and marker, and a flow whose series equals
     another's says so in the legend ("f3 = f2") and is drawn thinner on top,
     so neither hides the other,
  2. pause periods: for each (switch, port) whose egress was paused on a
     lossless priority at some point, a bar while it is paused,
  3. ingress buffer occupancy (KB) of the lossless priorities, one line per
     (switch, port) that held any,
  4. frames lost per sample bin over the fabric: on lossless priorities, on
     lossy ones, and on links that were down (drops.csv).
Every row has a vertical line at each event of the run, labelled in row 1
(events of one kind less than 1% of the run apart share one):
the fabric file's timeline (grey: link down/up, routes, flow start/stop,
host storms, rules), the pause-storm watchdog's storms and restores (red)
and the first DCFIT event of each kind (purple); pfclib.fabric_timeline
reads them. Reads results.json, flows.csv, ports.csv and drops.csv (written
by pfcfabric; `pfcfabric --plot FILE.png` runs this script at the end of a
run); needs python3-matplotlib.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

from pfclib.fabric_results import results
from pfclib.fabric_timeline import drops, event_markers, same_series

# One style per flow: colours, line styles and markers cycle at different
# lengths (10, 4, 7), so neighbours in the legend differ in all three.
LINESTYLES = ["-", "--", "-.", ":"]
MARKERS = ["o", "s", "^", "v", "D", "x", "P"]
MARKER_EVERY = 8
EVENT_COLOURS = {"timeline": "0.35", "pfcwd": "tab:red", "dcfit": "tab:purple"}


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
    with open(os.path.join(d, "ports.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["switch"], r["port"], int(r["prio"]))
            rows[key].append((float(r["t_ms"]), int(r["paused"]), int(r["pausing"]), int(r["buffer_bytes"])))
    return rows


def flow_style(i):
    """The i-th flow's matplotlib style."""
    return {"color": f"C{i % 10}", "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "marker": MARKERS[i % len(MARKERS)], "markevery": (i % MARKER_EVERY, MARKER_EVERY),
            "markersize": 4}


def draw_flows(ax, flows):
    same = same_series(flows)
    for i, (name, (t, g)) in enumerate(sorted(flows.items())):
        label = f"{name} = {same[name]}" if name in same else name
        # A copy goes on top, thinner, its markers at other samples.
        ax.plot(t, g, label=label, linewidth=1.0 if name in same else 1.8, zorder=3 if name in same else 2,
                **flow_style(i))
    ax.set_ylabel("flow rate at receiver (Gb/s)")
    top = max([max(g) for _, g in flows.values() if g] + [1.0])
    ax.set_ylim(0, top * 1.3)  # room for the event labels
    ax.legend(loc="upper right", fontsize=7, ncol=2 if len(flows) > 6 else 1)
    ax.grid(alpha=0.3)


def draw_pauses(ax, ports, lossy_prio):
    """Pause periods: egress paused by the peer, per lossless (switch, port)."""
    paused_keys = [k for k, v in sorted(ports.items()) if k[2] != lossy_prio and any(p for _, p, _, _ in v)]
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
        ax.broken_barh(spans, (i - 0.4, 0.8), color="tab:red")
    ax.set_yticks(range(len(paused_keys)))
    ax.set_yticklabels([f"{s}->{p} q{q}" for s, p, q in paused_keys], fontsize=7)
    ax.set_ylabel("egress paused by peer")
    if not paused_keys:
        ax.text(0.5, 0.5, "no port paused", ha="center", va="center", transform=ax.transAxes)
    ax.grid(alpha=0.3, axis="x")


def draw_buffers(ax, ports, lossy_prio):
    """Buffer occupancy of the lossless priorities, the 8 that held most."""
    held = [k for k, v in sorted(ports.items()) if k[2] != lossy_prio and any(b for _, _, _, b in v)]
    held.sort(key=lambda k: -max(b for _, _, _, b in ports[k]))
    for i, k in enumerate(held[:8]):
        v = ports[k]
        ax.plot([t for t, _, _, _ in v], [b / 1024 for _, _, _, b in v], label=f"{k[0]} from {k[1]} q{k[2]}",
                linewidth=1.2, **flow_style(i))
    ax.set_ylabel("ingress buffer (KB)")
    if held:
        ax.legend(loc="upper right", fontsize=7)
    ax.grid(alpha=0.3)


def draw_drops(ax, d):
    """Frames lost per bin, by class, as steps (a bin's count over the bin)."""
    s = drops(d)
    ax.set_ylabel("frames lost per bin")
    ax.set_xlabel("time (ms)")
    ax.grid(alpha=0.3)
    if s is None:
        ax.text(0.5, 0.5, "no drops.csv (results of an older pfcfabric)", ha="center", va="center",
                transform=ax.transAxes)
        return
    rows = [("lossless", "lossless priorities", "tab:red", "-", "o"),
            ("lossy", "lossy priorities", "tab:orange", "--", "s"), ("link_down", "links down", "0.3", ":", "x")]
    drawn = False
    for key, label, colour, ls, marker in rows:
        y = s[key]
        if y is None or not any(y):
            continue
        ax.step(s["t_ms"], y, where="pre", label=f"{label} ({sum(y):,})", color=colour, linestyle=ls,
                linewidth=1.5)
        # A marker on each bin with a loss, so a few frames beside thousands still show.
        nz = [(t, n) for t, n in zip(s["t_ms"], y) if n]
        ax.plot([t for t, _ in nz], [n for _, n in nz], linestyle="none", marker=marker, color=colour, markersize=4)
        drawn = True
    if drawn:
        top = max(max(n or 0 for n in s[key]) for key in ("lossless", "lossy", "link_down") if s[key] is not None)
        ax.set_ylim(0, top * 1.3)  # room for the legend
        ax.legend(loc="upper right", fontsize=7)
    else:
        ax.text(0.5, 0.5, "no frame lost", ha="center", va="center", transform=ax.transAxes)


def draw_events(axes, markers):
    """A line at each event on every row; its label at the top of the first,
    written upwards beside the line."""
    for mk in markers:
        colour = EVENT_COLOURS.get(mk.source, "0.35")
        for ax in axes:
            ax.axvline(mk.t_ms, color=colour, linestyle=(0, (4, 3)), linewidth=0.9, alpha=0.8, zorder=1)
        axes[0].annotate(mk.label, xy=(mk.t_ms, 1.0), xycoords=("data", "axes fraction"), xytext=(2, -3),
                         textcoords="offset points", rotation=90, ha="left", va="top", fontsize=7,
                         color=colour)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--title", default="")
    ap.add_argument("--labels", default="")
    ap.add_argument("--lossy-prio", type=int, default=0, help="priority to leave out of rows 2-3")
    ap.add_argument("--no-switch-events", action="store_true",
                    help="mark only the fabric file's timeline, not the watchdog's and DCFIT's events")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"fabric_plot: needs matplotlib (Debian: apt install python3-matplotlib): {e}", file=sys.stderr)
        return 2
    labels = a.labels.split(",") if a.labels else [os.path.basename(d.rstrip("/")) for d in a.dirs]
    n = len(a.dirs)
    fig, ax = plt.subplots(4, n, figsize=(6.4 * n, 10.5), squeeze=False, sharex="col",
                           gridspec_kw={"height_ratios": [1.3, 1.0, 1.0, 0.8]})
    for c, d in enumerate(a.dirs):
        col = [ax[r][c] for r in range(4)]
        ports = read_ports(d)
        draw_flows(col[0], read_flows(d))
        col[0].set_title(labels[c] if c < len(labels) else d)
        draw_pauses(col[1], ports, a.lossy_prio)
        draw_buffers(col[2], ports, a.lossy_prio)
        draw_drops(col[3], d)
        # Events closer than 1% of the run share a line: their labels would overlap.
        merge_ms = results(d)["duration_ns"] / 1e8
        draw_events(col, event_markers(d, switch_events=not a.no_switch_events, merge_ms=merge_ms))
    if a.title:
        fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"fabric_plot: wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
