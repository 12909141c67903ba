#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""HotNets'16 §4 asks whether rate control rules deadlocks out: DCQCN
reacts to congestion a feedback loop later, and a cyclic buffer dependency
can close before it does. This runs the paper's CBD without a routing loop
(configs/fabric/hotnets-cbd.yaml: four switches in a ring, three flows
pinned the long way round, 40 Gb/s, as fast as they can) with PFC alone
and with PFC + DCQCN (ECN-capable flows, switch-lossless-ecn.yaml's marking
5K / 20K / 10%, CNPs every 4 us at most), for link delays of 1 to 20 us
(the feedback delay grows with them), and the rate-increase timer at 55 us
and at the simulator's 900 us. Virtual clock, 20 ms a run.

A run deadlocks when at its end the four ring egresses (A->B, B->C, C->D,
D->A) are paused and have sent nothing for 1 ms; its onset is the end of
the last bin in which any of them sent. Then the same three ways on
Tagger's Fig. 10 (the 1-bounce deadlock on the Clos testbed, 1 us links,
its loop L2 -> S1 -> L3 -> S2).

  cbd_dcqcn.py FABRIC_BIN OUT_DIR [DELAYS_US...]
Figure OUT_DIR/cbd_dcqcn.png; last line
  RESULT runs=<n> deadlocks_pfc=<n> deadlocks_dcqcn=<n> ... per delay
"""
import csv
import os
import re
import subprocess
import sys

from pfclib.fabric_results import prio_sum, results

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CFG = os.path.join(ROOT, "configs", "fabric")
RING = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")]
# Tagger Fig. 10's 1-bounce deadlock (configs/fabric/fig10-1bounce.yaml): the
# same question on the Clos testbed, its loop L2 -> S1 -> L3 -> S2 -> L2.
FIG10_RING = [("L2", "S1"), ("S1", "L3"), ("L3", "S2"), ("S2", "L2")]
MODES = {"pfc": ("none", None), "dcqcn-55us": ("dcqcn", "55us"), "dcqcn-900us": ("dcqcn", "900us")}
DURATION_MS, BIN_US = 20, 200


def fabric_files(out, delay_us, mode):
    cc, rp_timer = MODES[mode]
    text = open(os.path.join(CFG, "hotnets-cbd.yaml")).read()
    text = re.sub(r"(?m)^fabric:.*\n", "", text)
    text = re.sub(r"(?m)^links:.*$", f"links: {{ rate: 40G, delay: {delay_us}us }}", text)
    text = re.sub(r"(?m)^switch:.*$", f"switch: {{ config: {CFG}/switch-lossless-ecn.yaml }}", text)
    topo = os.path.join(out, f"cbd-{delay_us}us.yaml")
    with open(topo, "w") as f:
        f.write(text)
    lines = [f"fabric: {{ clock: virtual, duration: {DURATION_MS}ms, bin: {BIN_US}us, seed: 1 }}",
             f"include: {topo}"]
    if rp_timer:
        lines.append(f"dcqcn: {{ rp_timer: {rp_timer} }}")
    lines.append("flows:")
    for name, a, b in (("flow1", "HA", "HD"), ("flow2", "HC", "HB"), ("flow3", "HB3", "HC3")):
        lines.append(f"  - {{ name: {name}, from: {a}, to: {b}, dscp: 1, prio: 1, ecn: ect0, cc: {cc} }}")
    path = os.path.join(out, f"cbd-{delay_us}us-{mode}.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def fig10_file(out, delay_us, mode):
    cc, rp_timer = MODES[mode]
    lines = [f"fabric: {{ clock: virtual, duration: {DURATION_MS}ms, bin: {BIN_US}us, seed: 1 }}",
             f"include: [{CFG}/clos-fig2.topo.yaml, {CFG}/fig10-paths.yaml]",
             f"links: {{ rate: 40G, delay: {delay_us}us }}",
             f"switch: {{ config: {CFG}/switch-lossless-ecn.yaml }}"]
    if rp_timer:
        lines.append(f"dcqcn: {{ rp_timer: {rp_timer} }}")
    lines += ["flows:",
              f"  - {{ name: blue, from: H5, to: H13, dscp: 1, prio: 1, ecn: ect0, cc: {cc} }}",
              f"  - {{ name: green, from: H9, to: H1, dscp: 1, prio: 1, start: 2ms, ecn: ect0, cc: {cc} }}"]
    path = os.path.join(out, f"fig10-{delay_us}us-{mode}.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def run(fabric, out, delay_us, mode, fig10=False):
    d = os.path.join(out, f"{'fig10-' if fig10 else ''}{delay_us}us-{mode}")
    path = (fig10_file if fig10 else fabric_files)(out, delay_us, mode)
    p = subprocess.run([fabric, "--fabric", path, "--out", d],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"pfcfabric failed ({delay_us} us, {mode}):\n{p.stdout}{p.stderr}")
    return d


def measure(d, ring=RING):
    """(deadlocked, onset ms or None, goodput of the three flows in Gb/s
    over the whole run, pause frames sent)."""
    last_tx, paused_end = {}, {}
    for row in csv.DictReader(open(os.path.join(d, "ports.csv"))):
        key = (row["switch"], row["port"])
        if row["prio"] != "1" or key not in ring:
            continue
        t = float(row["t_ms"])
        if float(row["tx_gbps"]) > 0:
            last_tx[key] = max(last_tx.get(key, 0.0), t)
        paused_end[key] = float(row["paused"])
    r = results(d)
    quiet = all(DURATION_MS - last_tx.get(k, 0.0) >= 1.0 for k in ring)
    dead = quiet and all(paused_end.get(k, 0) > 0 for k in ring)
    onset = max(last_tx.get(k, 0.0) for k in ring) if dead else None
    gbps = sum(f["rx_bytes"] for f in r["flows"]) * 8 / (DURATION_MS * 1e6)
    frames = prio_sum(r, "pfc_xoff_tx", "pfc_refresh_tx")
    return dead, onset, gbps, frames, r["lossless_drops"]


def plot(res, delays, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    style = {"pfc": ("s", "black", "PFC alone"), "dcqcn-55us": ("o", "tab:blue", "DCQCN, RP timer 55 us"),
             "dcqcn-900us": ("^", "tab:orange", "DCQCN, RP timer 900 us")}
    for k, mode in enumerate(MODES):
        m, c, label = style[mode]
        xs = [i + (k - 1) * 0.2 for i in range(len(delays))]
        ax[0].bar(xs, [res[(dl, mode)][2] for dl in delays], width=0.2, color=c, label=label)
        for x, dl in zip(xs, delays):
            if res[(dl, mode)][0]:
                ax[0].text(x, 1, "X", ha="center", color="tab:red", fontsize=12, fontweight="bold")
        # Side by side: runs that deadlock at the same instant would hide each other.
        on = [(i + (k - 1) * 0.12, res[(dl, mode)][1]) for i, dl in enumerate(delays)
              if res[(dl, mode)][0]]
        ax[1].plot([i for i, _ in on], [t for _, t in on], marker=m, color=c, linestyle="", label=label,
                   markersize=8)
    for a in ax:
        a.set_xticks(range(len(delays)))
        a.set_xticklabels([f"{d} us" for d in delays])
        a.set_xlabel("link delay (each of the ring's links)")
    ax[0].set_ylabel("goodput of the three flows over 20 ms, Gb/s")
    ax[0].set_title("throughput; X = deadlocked at the end")
    ax[0].legend(fontsize=8)
    ax[1].set_ylabel("ms")
    ax[1].set_ylim(0, DURATION_MS)
    ax[1].set_title("deadlock onset (last bin any ring link sent)")
    ax[1].legend(fontsize=8)
    fig.suptitle("HotNets'16 CBD (4-switch ring, 3 flows, 40 Gb/s): PFC alone against PFC + DCQCN")
    fig.tight_layout()
    path = os.path.join(out, "cbd_dcqcn.png")
    fig.savefig(path, dpi=110)
    return path


def main():
    fabric, out = sys.argv[1], sys.argv[2]
    delays = [int(x) for x in sys.argv[3:]] or [1, 2, 5, 10, 20]
    os.makedirs(out, exist_ok=True)
    res = {}
    for dl in delays:
        for mode in MODES:
            res[(dl, mode)] = measure(run(fabric, out, dl, mode))
            dead, onset, gbps, frames, drops = res[(dl, mode)]
            print(f"delay {dl:2d} us {mode:12s}: {'DEADLOCK at %.1f ms' % onset if dead else 'no deadlock':20s} "
                  f"goodput {gbps:6.2f} Gb/s, pause frames {frames:5d}, lossless drops {drops}")
    print("figure:", plot(res, delays, out))
    # Tagger Fig. 10 (blue at 0, green at 2 ms) at the testbed's 1 us links.
    fig10 = {}
    for mode in MODES:
        fig10[mode] = measure(run(fabric, out, 1, mode, fig10=True), FIG10_RING)
        dead, onset, gbps, frames, drops = fig10[mode]
        print(f"Tagger Fig. 10, 1 us {mode:12s}: "
              f"{'DEADLOCK at %.1f ms' % onset if dead else 'no deadlock':20s} goodput {gbps:6.2f} Gb/s, "
              f"pause frames {frames:5d}, lossless drops {drops}")
    dl_pfc = sum(res[(d, "pfc")][0] for d in delays)
    dl_55 = sum(res[(d, "dcqcn-55us")][0] for d in delays)
    dl_900 = sum(res[(d, "dcqcn-900us")][0] for d in delays)
    first = next((d for d in delays if res[(d, "dcqcn-55us")][0]), None)
    drops = sum(v[4] for v in res.values()) + sum(v[4] for v in fig10.values())
    print(f"RESULT runs={len(res)} deadlocks_pfc={dl_pfc} deadlocks_dcqcn_55us={dl_55} "
          f"deadlocks_dcqcn_900us={dl_900} first_delay_us_dcqcn_deadlock={first} "
          f"fig10_deadlock_pfc={int(fig10['pfc'][0])} fig10_deadlock_dcqcn_55us={int(fig10['dcqcn-55us'][0])} "
          f"fig10_deadlock_dcqcn_900us={int(fig10['dcqcn-900us'][0])} lossless_drops={drops}")


if __name__ == "__main__":
    main()
