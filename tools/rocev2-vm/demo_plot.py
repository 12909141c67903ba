#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""demo_plot.py OUTDIR : the end of tools/rocev2-demo.sh's report. Reads the switches' counters
sampled about once a second during the demo (OUTDIR/samples/<switch>/<unix time>.json, written
by rv_sw_sample_start in guest-lib.sh: `pfcctl stats` of a running pfcswitch) and
  * prints a short table: per switch and priority, the bytes sent, the mean and peak throughput
    between samples (Mb/s) and the PFC frames sent and received by that switch's ports;
  * draws OUTDIR/demo-plot.png (Debian's /usr/bin/python3 with python3-matplotlib): the
    throughput each priority left the switch with, and the PFC frames per second it sent and
    received, over the run (seconds since the first sample).
Counters are the switch's own: bytes and frames leaving its ports (tx by egress priority).
A sample that is not complete JSON (the sampler stopped while pfcctl wrote) is skipped."""
import glob
import json
import os
import sys


def load_series(outdir):
    """{switch: [(t, stats), ...]} in time order."""
    series = {}
    for d in sorted(glob.glob(os.path.join(outdir, "samples", "*"))):
        rows = []
        for f in glob.glob(os.path.join(d, "*.json")):
            try:
                t = float(os.path.basename(f)[:-len(".json")])
                with open(f) as fh:
                    rows.append((t, json.load(fh)))
            except (ValueError, json.JSONDecodeError):
                continue
        if len(rows) >= 2:
            series[os.path.basename(d)] = sorted(rows, key=lambda r: r[0])
    return series


def prio_tx_bytes(stats, q):
    return sum(p["prio"][q]["tx_bytes"] for p in stats["ports"])


def pfc_frames(stats, key):
    return sum(p[key] for p in stats["ports"])


def rates(rows, value):
    """[(t_mid, per-second rate of value(stats))] between consecutive samples."""
    out = []
    for (t0, s0), (t1, s1) in zip(rows, rows[1:]):
        if t1 > t0:
            out.append(((t0 + t1) / 2, (value(s1) - value(s0)) / (t1 - t0)))
    return out


def active_prios(rows):
    last, first = rows[-1][1], rows[0][1]
    n = len(last["ports"][0]["prio"])
    return [q for q in range(n) if prio_tx_bytes(last, q) > prio_tx_bytes(first, q)]


def table(series):
    lines = [f"{'switch':<7} {'prio':>4} {'sent MB':>9} {'mean Mb/s':>10} {'peak Mb/s':>10}"
             f" {'PFC tx':>7} {'PFC rx':>7}"]
    for sw, rows in series.items():
        first, last = rows[0][1], rows[-1][1]
        tx = pfc_frames(last, "pfc_frames_tx") - pfc_frames(first, "pfc_frames_tx")
        rx = pfc_frames(last, "pfc_frames_rx") - pfc_frames(first, "pfc_frames_rx")
        span = rows[-1][0] - rows[0][0]
        for i, q in enumerate(active_prios(rows) or [None]):
            pfc = f" {tx:>7} {rx:>7}" if i == 0 else ""
            if q is None:
                lines.append(f"{sw:<7} {'-':>4} {0:>9.3f} {0:>10.3f} {0:>10.3f}{pfc}")
                continue
            sent = prio_tx_bytes(last, q) - prio_tx_bytes(first, q)
            peak = max(r for _, r in rates(rows, lambda s: prio_tx_bytes(s, q)))
            lines.append(f"{sw:<7} {q:>4} {sent / 1e6:>9.3f} {sent * 8 / span / 1e6:>10.3f}"
                         f" {peak * 8 / 1e6:>10.3f}{pfc}")
    return "\n".join(lines)


def plot(series, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t0 = min(rows[0][0] for rows in series.values())
    fig, (ax_bw, ax_pfc) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for sw, rows in series.items():
        for q in active_prios(rows):
            r = rates(rows, lambda s, q=q: prio_tx_bytes(s, q))
            ax_bw.plot([t - t0 for t, _ in r], [v * 8 / 1e6 for _, v in r], marker=".",
                       label=f"{sw} priority {q}")
        for key, style in (("pfc_frames_tx", "-"), ("pfc_frames_rx", "--")):
            r = rates(rows, lambda s, key=key: pfc_frames(s, key))
            ax_pfc.plot([t - t0 for t, _ in r], [v for _, v in r], style, marker=".",
                        label=f"{sw} {'sent' if key.endswith('tx') else 'received'}")
    ax_bw.set_ylabel("throughput out of the switch (Mb/s)")
    ax_bw.set_title("pfcswitch in the RoCEv2 demo: per-priority throughput and PFC frames")
    ax_pfc.set_ylabel("PFC frames per second")
    ax_pfc.set_xlabel("seconds since the first sample")
    for ax in (ax_bw, ax_pfc):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: demo_plot.py OUTDIR")
    outdir = sys.argv[1]
    series = load_series(outdir)
    if not series:
        print(f"(no counter samples in {outdir}/samples: no table, no plot)")
        return 1
    print("switch counters over the run (tx by egress priority; PFC frames of all its ports):")
    print(table(series))
    png = os.path.join(outdir, "demo-plot.png")
    plot(series, png)
    print(f"plot: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
