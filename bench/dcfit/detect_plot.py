# SPDX-License-Identifier: BSD-3-Clause
"""The PNG of bench/dcfit/detect.sh: every declared deadlock's detection
time (emulated us from the loop's formation), one column per case, on-loop
and off-loop triggers apart, with the issue's targets as lines; under each
case, how many runs deadlocked, declared, and found a loop."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(recs, path):
    cases = sorted({r["case"] for r in recs})
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for kind, colour, dx in (("on-loop", "tab:blue", -0.12), ("off-loop", "tab:red", 0.12)):
        xs, ys = [], []
        for i, c in enumerate(cases):
            for r in recs:
                if r["case"] != c:
                    continue
                for t in r["times"]:
                    if t["on_loop"] == (kind == "on-loop"):
                        xs.append(i + dx)
                        ys.append(t["us"])
        ax.scatter(xs, ys, s=14, alpha=0.6, color=colour, label=f"{kind} trigger ({len(ys)} declarations)")
    ax.axhline(50, color="tab:blue", ls=":", lw=1, label="target on-loop 50 us")
    ax.axhline(100, color="tab:red", ls=":", lw=1, label="target off-loop 100 us")
    labels = []
    for c in cases:
        rs = [r for r in recs if r["case"] == c]
        labels.append(f"{c}\n{sum(r['dead'] for r in rs)}/{len(rs)} dl\n"
                      f"{sum(bool(r['declared']) for r in rs)} decl\n{sum(bool(r['loops']) for r in rs)} loop")
    ax.set_xticks(range(len(cases)), labels, fontsize=8)
    ax.set_ylabel("detection time from loop formation (emulated us)")
    ax.set_title(f"DCFIT on the fabric emulator, {len(recs)} runs (dl: deadlocked per the fabric, "
                 "decl: declared, loop: a loop found)", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
