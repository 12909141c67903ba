#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The HPCC paper's headline (Li et al., SIGCOMM 2019, Fig. 11: WebSearch
at 30% and 50% load on a fat tree, HPCC against DCQCN) on both sides: the
HPCC work's own simulator and pfcfabric, from the summaries that
bench/hpcc/vs_hpcc_simulator.sh left for the four cases
fat320-websearch{30,50}-5ms (DCQCN, run.py --cc dcqcn) and
fat320-websearch{30,50}-5ms-hpcc (run.py --cc hp), and, when given,
fat320-websearch{30,50}-5ms-pint (HPCC-PINT, run.py --cc hpccPint: HPCC
fed one sampled utilisation a packet instead of every hop's record). Per
load, control and
side: the slowdown p95 and p99 of short flows (< 10 KB and 10-100 KB, the
paper's point: HPCC keeps queues near empty, so short flows see the base
RTT), the long flows' p50 (what HPCC gives up for it, if anything), and
the time egresses spent paused, and the switch ports' queue length p95 and
p99 over the traffic (both monitors every 100 ns, bench/hpcc/qlen.py: the
summaries of runs with QLEN_MON=1, which bench/hpcc/hpcc_vs_dcqcn.sh sets;
a summary without them leaves the panel out).

  hpcc_vs_dcqcn.py OUT_PNG DCQCN30 HPCC30 DCQCN50 HPCC50 [PINT30 PINT50]
each argument after the figure a summary.json (or the OUT_DIR holding it).
Prints a table and, last, RESULT <side>_<cc>_<load>_<metric>=<x> ...
(cc dcqcn, hpcc, pint).
"""
import json
import os
import sys

BUCKETS = [("lt10k", "<10KB"), ("10k_100k", "10-100KB")]


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "summary.json")
    s = json.load(open(path))
    return s[0] if isinstance(s, list) else s


def main():
    out = sys.argv[1]
    if len(sys.argv) not in (6, 8):
        sys.exit("usage: hpcc_vs_dcqcn.py OUT_PNG DCQCN30 HPCC30 DCQCN50 HPCC50 [PINT30 PINT50]")
    order = [("dcqcn", 30), ("hpcc", 30), ("dcqcn", 50), ("hpcc", 50), ("pint", 30), ("pint", 50)]
    runs = {}
    for (cc, ld), p in zip(order, sys.argv[2:]):
        runs[(cc, ld)] = load(p)
    rows, result = [], []
    for (cc, ld), s in runs.items():
        b = {x["key"]: x for x in s["buckets"]}
        for side in ("sim", "emu"):
            m = {"p95_lt10k": b["lt10k"][f"{side}_sd_p95"], "p99_lt10k": b["lt10k"][f"{side}_sd_p99"],
                 "p95_10k_100k": b["10k_100k"][f"{side}_sd_p95"],
                 "p99_10k_100k": b["10k_100k"][f"{side}_sd_p99"],
                 "p50_gt1m": b["gt1m"][f"{side}_sd_p50"],
                 "paused_ms": s[f"{side}_pfc"]["paused_ms"]}
            q = (s.get("qlen") or {}).get(side)
            if q:
                m.update(qlen_p95_kb=q["p95_kb"], qlen_p99_kb=q["p99_kb"])
            rows.append((side, cc, ld, m))
            result += [f"{side}_{cc}_{ld}_{k}={v:.3g}" for k, v in m.items()]
    print(f"{'side':5} {'cc':6} {'load':>4}  {'<10KB p95':>9} {'p99':>6}  {'10-100KB p95':>12} {'p99':>6}"
          f"  {'>1MB p50':>8}  {'paused ms':>9}  {'queue p95 KB':>12} {'p99':>5}")
    for side, cc, ld, m in rows:
        print(f"{side:5} {cc:6} {ld:>3}%  {m['p95_lt10k']:9.2f} {m['p99_lt10k']:6.2f}  {m['p95_10k_100k']:12.2f} "
              f"{m['p99_10k_100k']:6.2f}  {m['p50_gt1m']:8.2f}  {m['paused_ms']:9.3f}  "
              f"{m.get('qlen_p95_kb', '-'):>12} {m.get('qlen_p99_kb', '-'):>5}")
    plot(rows, out)
    print(f"figure {out}")
    print("RESULT " + " ".join(result))


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    queues = all("qlen_p99_kb" in m for *_, m in rows)
    fig, axes = plt.subplots(1, 4 if queues else 3, figsize=(20 if queues else 15, 4.2))
    ccs = ["dcqcn", "hpcc"] + (["pint"] if any(c == "pint" for _, c, _, _ in rows) else [])
    shades = {"sim": {"dcqcn": "#9ecae1", "hpcc": "#08519c", "pint": "#4292c6"},
              "emu": {"dcqcn": "#fcae91", "hpcc": "#a50f15", "pint": "#ef3b2c"}}
    colors = {(side, cc): shades[side][cc] for side in ("sim", "emu") for cc in ccs}
    label = {"sim": "simulator", "emu": "pfcfabric"}
    name = {"dcqcn": "DCQCN", "hpcc": "HPCC", "pint": "HPCC-PINT"}
    width = 0.8 / len(colors)

    def offset(k):
        return (k - (len(colors) - 1) / 2) * width
    for ax, (key, title) in zip(axes, [("lt10k", "flows < 10 KB"), ("10k_100k", "flows 10-100 KB")]):
        groups = [(ld, pct) for ld in (30, 50) for pct in ("p95", "p99")]
        for k, (side, cc) in enumerate(colors):
            vals = [next(m[f"{pct}_{key}"] for s, c, l, m in rows if (s, c, l) == (side, cc, ld))
                    for ld, pct in groups]
            ax.bar([i + offset(k) for i in range(len(groups))], vals, width,
                   color=colors[(side, cc)], label=f"{label[side]} {name[cc]}")
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([f"{ld}% load\n{pct}" for ld, pct in groups])
        ax.set_ylabel("slowdown (FCT / standalone FCT)")
        ax.set_title(f"WebSearch, fat tree (320 hosts): {title}")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    ax = axes[2]
    for k, (side, cc) in enumerate(colors):
        vals = [next(m["p50_gt1m"] for s, c, l, m in rows if (s, c, l) == (side, cc, ld)) for ld in (30, 50)]
        ax.bar([i + offset(k) for i in range(2)], vals, width, color=colors[(side, cc)],
               label=f"{label[side]} {name[cc]}")
    ax.set_xticks(range(2))
    ax.set_xticklabels(["30% load", "50% load"])
    ax.set_ylabel("slowdown p50")
    paused = ", ".join(f"{label[s]} {name[c]} {l}%: {m['paused_ms']:.2f} ms" for s, c, l, m in rows
                       if m["paused_ms"] > 0) or "no egress paused in any run"
    ax.set_title("flows > 1 MB: slowdown p50", fontsize=10)
    ax.set_xlabel("pause time: " + paused, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_ylim(0, 1.3 * max(m["p50_gt1m"] for *_, m in rows))
    ax.legend(fontsize=8, loc="upper right", ncol=2)
    if queues:
        ax = axes[3]
        groups = [(ld, pct) for ld in (30, 50) for pct in ("p95", "p99")]
        for k, (side, cc) in enumerate(colors):
            vals = [next(m[f"qlen_{pct}_kb"] for s, c, l, m in rows if (s, c, l) == (side, cc, ld))
                    for ld, pct in groups]
            ax.bar([i + offset(k) for i in range(len(groups))], vals, width,
                   color=colors[(side, cc)], label=f"{label[side]} {name[cc]}")
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([f"{ld}% load\n{pct}" for ld, pct in groups])
        ax.set_ylabel("KB")
        ax.set_title("switch ports' queue length (every 100 ns, over the traffic)", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    main()
