# SPDX-License-Identifier: BSD-3-Clause
"""The points and the figure of bench/cost/table_scale.sh:

  python3 -m cost.table_scale point CALLGRIND_OUT BENCHMARK_JSON PORTS/RULES/ROUTES
      prints the point's CSV row: ports, rules, routes, instructions per packet
  python3 -m cost.table_scale plot OUT
      OUT/table_scale.png from OUT/points.csv, and the RESULT line

(bench/ and tools/ on PYTHONPATH, as bench/lib.sh sets it)."""
import csv
import os
import sys

from pfclib.bench_output import benchmark, callgrind_total


def point(cg, bm_json, pt):
    bm = benchmark(bm_json, what="BM_Scale")
    ports, rules, routes = pt.split("/")
    print(f"{ports},{rules},{routes},{callgrind_total(cg) / bm['tx_total']:.1f}")


def plot(out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(os.path.join(out, "points.csv")) as f:
        rows = [tuple(int(x) for x in r[:3]) + (float(r[3]),) for r in csv.reader(f)]
    cost = {r[:3]: r[3] for r in rows}
    series = {
        "ports (no extra rules or routes)": [(p, c) for (p, ru, rt), c in cost.items() if ru == 0 and rt == 0],
        "extra rules (32 ports)": [(max(ru, 1), c) for (p, ru, rt), c in cost.items() if p == 32 and rt == 0],
        "extra routes (4 ports)": [(max(rt, 1), c) for (p, ru, rt), c in cost.items() if p == 4 and ru == 0],
    }
    fig, axes = plt.subplots(1, 3, figsize=(14, 4), sharey=True)
    for ax, (name, pts) in zip(axes, series.items()):
        pts.sort()
        ax.plot([x for x, _ in pts], [c for _, c in pts], marker="o")
        ax.set_xscale("log")
        ax.set_xlabel(name + (" (0 drawn at 1)" if name.startswith("extra") else ""))
        ax.grid(True, alpha=0.3)
        for x, c in pts:
            ax.annotate(f"{c:.0f}", (x, c), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    axes[0].set_ylabel("instructions per packet (WorkerRound)")
    axes[0].set_ylim(bottom=0)
    fig.suptitle("pfcswitch per-packet cost vs table sizes (callgrind, 4 busy ports, 64 B)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "table_scale.png"), dpi=100)

    def ratio(a, b):
        return cost[a] / cost[b]
    print(f"RESULT ports_ratio={ratio((32, 0, 0), (4, 0, 0)):.2f} "
          f"rules_ratio={ratio((32, 10000, 0), (32, 0, 0)):.2f} "
          f"routes_ratio={ratio((4, 0, 1000000), (4, 0, 0)):.2f}")


def main(argv):
    if len(argv) == 5 and argv[1] == "point":
        point(argv[2], argv[3], argv[4])
    elif len(argv) == 3 and argv[1] == "plot":
        plot(argv[2])
    else:
        sys.exit("usage: python3 -m cost.table_scale point CALLGRIND_OUT BENCHMARK_JSON PT | plot OUT")


if __name__ == "__main__":
    main(sys.argv)
