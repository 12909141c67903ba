# SPDX-License-Identifier: BSD-3-Clause
"""The chaos runs in one PNG (bench/chaos/runs.py): per run, the faults
injected by kind (top), and where every frame the hosts sent ended
(bottom: received, dropped by a switch, lost on a downed link, and what
no counter accounts for, which must be nothing), violated runs marked."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

KINDS = ["link", "flap", "loop", "bounce", "storm", "rules", "badrules"]
COLORS = ["#4c72b0", "#8172b2", "#c44e52", "#dd8452", "#937860", "#55a868", "#8c8c8c"]


def plot(rows, path):
    x = list(range(len(rows)))
    fig, (top, bot) = plt.subplots(2, 1, figsize=(max(8, 0.28 * len(rows) + 3), 7), sharex=True)
    base = [0] * len(rows)
    for k, c in zip(KINDS, COLORS):
        n = [r["fault_kinds"].count(k) for r in rows]
        top.bar(x, n, bottom=base, color=c, label=k, width=0.8)
        base = [a + b for a, b in zip(base, n)]
    bad = [i for i, r in enumerate(rows) if r["violations"]]
    stuck = [i for i, r in enumerate(rows) if r["stuck"]]
    top.scatter(bad, [base[i] + 0.8 for i in bad], marker="x", color="red", s=60, label="violation", zorder=3)
    top.scatter(stuck, [base[i] + 0.8 for i in stuck], marker="v", color="black", s=30,
                label="deadlock (unprotected)", zorder=3)
    top.set_ylabel("faults injected")
    top.set_ylim(0, max(base + [1]) * 1.35)
    top.legend(ncol=5, fontsize=7, loc="upper left")
    top.set_title(f"Chaos runs: {len(rows)} runs, {sum(r['faults'] for r in rows)} faults, "
                  f"{sum(len(r['violations']) for r in rows)} violations")
    parts = [("received", "host_rx", "#55a868"), ("dropped by a switch", "switch_drops", "#dd8452"),
             ("lost on a down link (at most)", "link_down", "#8172b2")]
    base = [0.0] * len(rows)
    for label, key, c in parts:
        frac = [r[key] / r["host_tx"] if r["host_tx"] else 0 for r in rows]
        bot.bar(x, frac, bottom=base, color=c, label=label, width=0.8)
        base = [a + b for a, b in zip(base, frac)]
    gap = [max(0.0, 1 - b) if r["host_tx"] else 0 for b, r in zip(base, rows)]
    bot.bar(x, gap, bottom=base, color="red", label="none of these: held by a deadlock, else a violation", width=0.8)
    bot.set_ylabel("share of frames the hosts sent")
    bot.set_ylim(0, 1.15)
    bot.legend(ncol=4, fontsize=7, loc="upper left")
    bot.set_xticks(x)
    bot.set_xticklabels([f"{r['seed']}\n{r['kind'][:4]}" for r in rows], fontsize=6)
    bot.set_xlabel("seed, topology")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
