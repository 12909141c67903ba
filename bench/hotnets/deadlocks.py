# SPDX-License-Identifier: BSD-3-Clause
"""HotNets'16 §3 on the fabric emulator (bench/hotnets/deadlocks.sh): the
fabric files of its runs, and what the runs say.

  python3 -m hotnets.deadlocks files FAB_DIR FILES_DIR LOOP_RATES CBD_RATES
      FILES_DIR/loop-R.yaml a rate each, FILES_DIR/cbd-R.yaml a limit each
  python3 -m hotnets.deadlocks summary OUT LOOP_RATES CBD_RATES
      the runs OUT/loop-R and OUT/cbd-R: a line per run, OUT/hotnets.png,
      OUT/loop.png and OUT/cbd.png (tools/fabric_plot.py), the RESULT line

(rates as one space-separated argument, "unlimited" for no CBD limit;
bench/ and tools/ on PYTHONPATH). bench/fabric/identical.sh makes its
HotNets cases with loop_file and cbd_file."""
import os
import subprocess
import sys

from pfclib.fabric_files import flow, write
from pfclib.fabric_results import results, summary

B, TTL, N = 40.0, 16, 2
ANALYTIC, PAPER = N * B / (TTL - 1), N * B / TTL
LOOP_RING = {("A", "B"), ("B", "A")}
CBD_RING = {("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")}


def loop_file(fab_dir, path, rate):
    """§3.1: one flow trapped in hotnets-loop.yaml's 2-switch loop at rate
    (Gb/s, as text), TTL 16."""
    return write(path, {"include": os.path.join(fab_dir, "hotnets-loop.yaml"),
                        "flows": [flow("loop", "H1", "H2", dscp=1, prio=1, rate=f"{rate}G", ttl=TTL)]})


def cbd_file(fab_dir, path, limit="unlimited"):
    """§3.2-3.3: three flows on hotnets-cbd.yaml's 4-switch ring, each
    limited to limit Gb/s (as text), or not at all."""
    lim = {} if limit == "unlimited" else {"rate": f"{limit}G"}
    return write(path, {"include": os.path.join(fab_dir, "hotnets-cbd.yaml"),
                        "flows": [flow("flow1", "HA", "HD", dscp=1, prio=1, **lim),
                                  flow("flow2", "HC", "HB", dscp=1, prio=1, **lim),
                                  flow("flow3", "HB3", "HC3", dscp=1, prio=1, **lim)]})


def files(fab_dir, files_dir, loop_rates, cbd_rates):
    os.makedirs(files_dir, exist_ok=True)
    for r in loop_rates:
        loop_file(fab_dir, os.path.join(files_dir, f"loop-{r}.yaml"), r)
    for r in cbd_rates:
        cbd_file(fab_dir, os.path.join(files_dir, f"cbd-{r}.yaml"), r)


def plot(out, loop, limited, cbd_unlimited):
    """OUT/hotnets.png: deadlock against rate, (a) the loop, (b) the CBD."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.2))
    a = ax[0]
    a.step([r for r, *_ in loop], [d for _, d, _, _ in loop], where="mid", color="tab:red",
           label="deadlock (1) or not (0)")
    a.axvline(ANALYTIC, color="k", ls="--", label=f"n B / (TTL-1) = {ANALYTIC:.2f} Gb/s")
    a.axvline(PAPER, color="gray", ls=":", label=f"paper: n B / TTL = {PAPER:.2f} Gb/s")
    a2 = a.twinx()
    a2.plot([r for r, *_ in loop], [t / 1e3 for _, _, t, _ in loop], "o-", color="tab:blue", ms=3)
    a2.set_ylabel("ttl_expired drops (thousands)", color="tab:blue")
    a.set_xlabel("injection rate (Gb/s)")
    a.set_ylabel("deadlock at the end of 20 ms")
    a.set_title(f"(a) routing loop of 2 switches, {B:g} Gb/s, TTL {TTL}")
    a.legend(loc="center left", fontsize=8)
    a = ax[1]
    xs = [r for r, _ in limited] + [30]
    a.step(xs, [d for _, d in limited] + [cbd_unlimited], where="mid", color="tab:red")
    a.set_xticks(xs)
    a.set_xticklabels([f"{r:g}" for r, _ in limited] + ["none"])
    a.axvline(B / 2, color="k", ls="--", label="B / 2: two flows share a link")
    a.set_xlabel("rate limit of each flow (Gb/s)")
    a.set_ylabel("deadlock at the end of 20 ms")
    a.set_title("(b) CBD of 3 flows on a 4-switch ring, 40 Gb/s")
    a.legend(loc="center left", fontsize=8)
    fig.suptitle("HotNets'16 §3: CBD is not sufficient for deadlock; rate decides")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "hotnets.png"), dpi=110)


def fabric_plot(out, runs, png, labels):
    """Two runs side by side with tools/fabric_plot.py (run from the source root)."""
    subprocess.run(["/usr/bin/python3", "tools/fabric_plot.py", *[os.path.join(out, x) for x in runs], "-o",
                    os.path.join(out, png), "--labels", labels], check=True)


def summarize(out, loop_rates, cbd_rates):
    drops = 0

    def run(name, ring):
        nonlocal drops
        s = summary(os.path.join(out, name))
        drops += s["lossless_drops"]
        return int(ring <= set(s["stuck"])), s

    print(f"(a) routing loop A <-> B, B = {B:g} Gb/s, TTL {TTL}: rate, deadlock, ttl_expired drops, injected Gb/s")
    loop = []
    for r in loop_rates:
        dead, s = run(f"loop-{r}", LOOP_RING)
        res = results(os.path.join(out, f"loop-{r}"))
        sent = res["flows"][0]["tx_bytes"] * 8 / res["duration_ns"]
        loop.append((float(r), dead, s["ttl_expired"], sent))
        print(f"  {float(r):5.2f} Gb/s  deadlock={dead}  ttl_expired={s['ttl_expired']:6d}  injected {sent:5.2f}")
    # Where it turns: the lowest swept rate from which every higher rate deadlocks.
    turn = next((r for i, (r, _, _, _) in enumerate(loop) if all(d for _, d, _, _ in loop[i:])), None)
    below = max((r for r, d, _, _ in loop if not d and (turn is None or r < turn)), default=None)
    print(f"  deadlock from {turn} Gb/s (none at {below}); analytic: the loop's links are oversubscribed when "
          f"r > n B / (TTL - 1) = {ANALYTIC:.2f} Gb/s (a packet is forwarded TTL - 1 times); "
          f"the paper's n B / TTL = {PAPER:.2f} Gb/s")
    print("(b) CBD on a 4-switch ring, three flows, each limited to: deadlock, flow rates (Gb/s)")
    cbd = []
    for r in cbd_rates:
        dead, s = run(f"cbd-{r}", CBD_RING)
        cbd.append((r, dead))
        print(f"  {r:>9s}: deadlock={dead}  " + ", ".join(f"{f} {g:.2f}" for f, g in sorted(s["rates"].items())))
    limited = [(float(r), d) for r, d in cbd if r != "unlimited"]
    # The highest limit up to which no swept rate deadlocks (above it a run may
    # still escape within 20 ms: whether a CBD locks depends on the bursts).
    cbd_ok = max((r for r, _ in limited if not any(d for x, d in limited if x <= r)), default=0)
    cbd_unlimited = dict(cbd)["unlimited"]
    print(f"  no deadlock up to {cbd_ok:g} Gb/s a flow (two flows share A->B, B->C, C->D: 2 r <= B = {B:g} "
          f"wire Gb/s); deadlock without rate limits: {cbd_unlimited}")
    print(f"  deadlocks are stalls, not losses: lossless drops over all {len(loop) + len(cbd)} runs: {drops}")
    plot(out, loop, limited, cbd_unlimited)
    if turn is not None and below is not None:
        fabric_plot(out, [f"loop-{below:g}", f"loop-{turn:g}"], "loop.png",
                    f"Loop: {below:g} Gb/s (no deadlock),Loop: {turn:g} Gb/s (deadlock)")
    fabric_plot(out, [f"cbd-{cbd_ok:g}", "cbd-unlimited"], "cbd.png",
                f"CBD: flows limited to {cbd_ok:g} Gb/s,CBD: no rate limit")
    print(f"RESULT loop_deadlock_from_gbps={turn} loop_no_deadlock_at_gbps={below} analytic_gbps={ANALYTIC:.2f} "
          f"paper_formula_gbps={PAPER:.2f} cbd_unlimited_deadlock={cbd_unlimited} cbd_max_ok_rate_gbps={cbd_ok:g} "
          f"lossless_drops={drops}")


def main(argv):
    if len(argv) == 6 and argv[1] == "files":
        files(argv[2], argv[3], argv[4].split(), argv[5].split())
    elif len(argv) == 5 and argv[1] == "summary":
        summarize(argv[2], argv[3].split(), argv[4].split())
    else:
        sys.exit("usage: python3 -m hotnets.deadlocks files FAB_DIR FILES_DIR LOOP_RATES CBD_RATES"
                 " | summary OUT LOOP_RATES CBD_RATES")


if __name__ == "__main__":
    main(sys.argv)
