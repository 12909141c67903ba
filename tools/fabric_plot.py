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
  2. pause periods, a bar while paused, on lossless priorities: red for each
     (switch, port) whose egress its peer paused at some point ("L2->S1 q1"),
     blue for each host its switch paused ("H1->A q1": the switch's XOFF in
     force towards the host, ports.csv's `pausing` on the host's port; a
     host with ignore_pause, or a real one that does not honour pause,
     still sends),
  3. ingress buffer occupancy (KB) of the lossless priorities, one line per
     (switch, port) that held any,
  4. frames lost per sample bin over the fabric: on lossless priorities, on
     lossy ones, and on links that were down (drops.csv).
Every row has a vertical line at each event of the run, labelled in row 1
(events of one kind less than 1% of the run apart share one):
the fabric file's timeline (grey: link down/up, routes, flow start/stop,
host storms, rules), the pause-storm watchdog's storms and restores (red)
and the first DCFIT event of each kind (purple); pfclib.fabric_timeline
reads them. Reads results.json, flows.csv, ports.csv, drops.csv and
hosts.json (written by pfcfabric; `pfcfabric --plot FILE.png` runs this
script at the end of a run); needs python3-matplotlib.
"""
import argparse
import csv
import json
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
PAUSED_SWITCH, PAUSED_HOST = "tab:red", "tab:blue"


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


def read_host_ports(d, ports):
    """(switch, port) -> host, for each switch port that faces a host.
    hosts.json names them; results without it (an older pfcfabric) fall
    back on the fabric's naming: a switch port is named after its
    neighbour, and results.json lists the emulated hosts."""
    path = os.path.join(d, "hosts.json")
    if os.path.exists(path):
        with open(path) as f:
            return {(h["switch"], h["port"]): h["name"] for h in json.load(f)["hosts"]}
    hosts = set(results(d).get("hosts", {}))
    return {(s, p): p for s, p, _ in ports if p in hosts}


def pause_spans(v, col):
    """(start, length) in ms of the samples of v with column col set (1:
    paused, 2: pausing): a sample covers the bin that ends at its time."""
    spans = []
    start = None
    for j, row in enumerate(v):
        t0 = v[j - 1][0] if j else 0.0
        if row[col] and start is None:
            start = t0
        if not row[col] and start is not None:
            spans.append((start, t0 - start))
            start = None
    if start is not None:
        spans.append((start, v[-1][0] - start))
    return spans


def pause_rows(ports, lossy_prio, host_ports):
    """[(label, spans, colour)]: each lossless (switch, port) whose egress its
    peer paused, then each host its switch paused (the switch port facing
    it pausing its peer), each on its priority."""
    rows = []
    for (s, p, q), v in sorted(ports.items()):
        if q != lossy_prio and any(r[1] for r in v):
            rows.append((f"{s}->{p} q{q}", pause_spans(v, 1), PAUSED_SWITCH))
    for (s, p, q), v in sorted(ports.items(), key=lambda kv: (host_ports.get(kv[0][:2], ""), kv[0])):
        if (s, p) in host_ports and q != lossy_prio and any(r[2] for r in v):
            rows.append((f"{host_ports[(s, p)]}->{s} q{q}", pause_spans(v, 2), PAUSED_HOST))
    return rows


def draw_pauses(ax, ports, lossy_prio, host_ports):
    """Pause periods: switch egresses paused by their peer, hosts paused by
    their switch, per lossless priority."""
    rows = pause_rows(ports, lossy_prio, host_ports)
    for i, (_, spans, colour) in enumerate(rows):
        ax.broken_barh(spans, (i - 0.4, 0.8), color=colour)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([label for label, _, _ in rows], fontsize=7 if len(rows) <= 30 else 5)
    ax.set_ylabel("egress paused by peer")
    if not rows:
        ax.text(0.5, 0.5, "no switch port or host paused", ha="center", va="center", transform=ax.transAxes)
    else:
        from matplotlib.patches import Patch
        kinds = [(PAUSED_SWITCH, "switch egress, paused by its peer"), (PAUSED_HOST, "host, paused by its switch")]
        used = {colour for _, _, colour in rows}
        # Room above the top bar, so that the legend covers none.
        ax.set_ylim(-0.6, len(rows) - 0.4 + max(1.2, 0.25 * len(rows)))
        ax.legend(handles=[Patch(color=c, label=t) for c, t in kinds if c in used], loc="upper right", fontsize=7)
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
        draw_pauses(col[1], ports, a.lossy_prio, read_host_ports(d, ports))
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
