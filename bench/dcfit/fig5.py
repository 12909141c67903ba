#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""DCFIT Fig. 5 (§5, "benefits of resolving the initial trigger out of the
loop") on the fabric emulator, run by bench/dcfit/fig5.sh and the fabric
test tests/fabric/dcfit_trigger_test.py. Virtual clock, deterministic.

Setting: bench/dcfit/detect.py's k=4 fat-tree loop a0_0 -> c0 -> a1_0 ->
c1 -> a0_0 (links a0_0-t0_0 and a1_0-t1_0 failed, green and blue at
15 Gb/s round it) and f5 (h3_1_0 -> h0_1_0, unlimited) entering the loop at
c1 -> a0_0. From STORM_US on, h0_1_0 misbehaves: a NIC with a flow-control
bug that sends an XOFF of STORM_QUANTA quanta every STORM_INTERVAL_US, so
t0_1's port to it is paused most of the time. t0_1 pauses a0_0, the pause
climbs into the loop from outside, and the loop deadlocks: the initial
trigger is the host behind t0_1 (off the loop), a0_0 the middle switch that
declares it. Two runs, every switch with dcfit on and recovery: break:
  baseline  without trigger handling: the deadlock is broken, and the host
            keeps pausing, so it comes back again and again;
  handled   dcfit.trigger_handling: a0_0's notice reaches t0_1, whose port
            to the host stops honouring its pause for hold_time: broken
            once, it does not come back.
The fabric test also runs a switch trigger in the same place (trigger=
"switch": an incast into h0_1_0 from STORM_US instead of the storm):
t0_1 itself is the initial trigger, and with trigger handling it
rate-limits the heavy hitters into its port to h0_1_0.
Throughput is each flow's receive rate per bin over its mean before the
storm (normalised, as in the paper's figure).

  dcfit_fig5.py FABRIC OUT_DIR [DURATION_MS]
"""
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from dcfit import detect as D  # noqa: E402
from pfclib.dcfit_fabrics import with_dcfit  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402

STORM_US, STORM_QUANTA, STORM_INTERVAL_US = 500, 1500, 20
HOLD = "50ms"
FLOWS = ("green", "blue", "f5")
CASES = (("baseline", "break"), ("handled", f"break, trigger_handling: true, hold_time: {HOLD}"))


def fabric_file(out, tag, dcfit, dur_ms, trigger="host"):
    f, e = D.fat_tree_loop(150, 15, 15, 0)
    f += D.flow("f5", "h3_1_0", "h0_1_0")
    e += D.pin("h0_1_0", ["t3_1", "a3_0", "c1", "a0_0", "t0_1"])
    if trigger == "host":
        e += f"  - {{ at: {STORM_US}us, host: h0_1_0, storm: [1] }}\n"
        hosts = (f"hosts:\n  - {{ name: h0_1_0, storm_quanta: {STORM_QUANTA}, "
                 f"storm_interval: {STORM_INTERVAL_US}us }}\n")
    else:
        # A switch trigger instead: from STORM_US, an incast (h0_1_1, behind
        # t0_1 too, and h2_0_0) joins f5 into h0_1_0, so t0_1's port to it
        # is congested (not paused) and t0_1 pauses a0_0 itself.
        f += "".join(D.flow(f"inc{i}", h, "h0_1_0", D.UNLIMITED, STORM_US)
                     for i, h in enumerate(("h0_1_1", "h2_0_0", "h1_1_0")))
        hosts = ""
    D.out = out
    return with_dcfit(D.CFG, out, "dcfit-fattree.yaml", "switch-lossless.yaml", dcfit, dur_ms, tag,
                      hosts + "flows:\n" + f + "events:\n" + e)


def run(fabric, out, tag, dcfit, dur_ms, trigger="host"):
    d = os.path.join(out, tag)
    p = subprocess.run([fabric, "--fabric", fabric_file(out, tag, dcfit, dur_ms, trigger), "--out", d],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{tag}: pfcfabric failed:\n{p.stdout}{p.stderr}")
    r = results(d)
    series = {}
    for row in csv.DictReader(open(os.path.join(d, "flows.csv"))):
        series.setdefault(row["flow"], []).append((float(row["t_ms"]), float(row["gbps"])))
    norm = {}
    for fl, pts in series.items():
        before = [g for t, g in pts if 0.2 <= t < STORM_US / 1000]
        ref = sum(before) / len(before) if before and sum(before) > 0 else 1.0
        norm[fl] = [(t, g / ref) for t, g in pts]
    after = [g for fl in ("green", "blue") for t, g in norm.get(fl, []) if t >= STORM_US / 1000]
    ev = r["dcfit_events"]
    return {"tag": tag, "dir": d, "events": ev, "norm": norm,
            "deadlocks": sum(e["kind"] == "deadlock" for e in ev),
            "holds": [e for e in ev if e["kind"] in ("host_lossy", "rate_limit")],
            "notices": [e for e in ev if e["kind"].startswith("notice")],
            "tput": sum(after) / len(after) if after else 0.0,
            "lossless_drops": r["lossless_drops"], "break_drops": r["dcfit_break_drops"],
            "rate_limit_drops": r["dcfit_rate_limit_drops"]}


def run_both(fabric, out, dur_ms, trigger="host"):
    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(lambda c: run(fabric, out, c[0], c[1], dur_ms, trigger), CASES))


def plot(recs, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    titles = {"baseline": "(a) Without resolving the initial trigger",
              "handled": "(b) Resolving the initial trigger"}
    for ax, r in zip(axes, recs):
        for fl in FLOWS:
            pts = r["norm"].get(fl, [])
            ax.plot([t for t, _ in pts], [g for _, g in pts], label=fl, lw=1.2)
        for e in r["events"]:
            if e["kind"] == "deadlock":
                ax.axvline(e["t_ns"] / 1e6, color="red", ls=":", lw=0.8)
        ax.axvline(STORM_US / 1000, color="grey", ls="--", lw=0.8)
        ax.set_title(f"{titles[r['tag']]}: {r['deadlocks']} deadlock(s)")
        ax.set_xlabel("time (ms, emulated)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("normalised throughput")
    axes[0].legend(loc="upper right")
    fig.text(0.5, 0.005, "grey: the host's pause storm starts; red: a deadlock declared (and broken)",
             ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(png, dpi=120)


def main():
    fabric, out = sys.argv[1], os.path.abspath(sys.argv[2])
    dur = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    os.makedirs(out, exist_ok=True)
    recs = run_both(fabric, out, dur)
    for r in recs:
        times = " ".join(f"{e['t_ns'] / 1e6:.2f}" for e in r["events"] if e["kind"] == "deadlock")
        print(f"{r['tag']:9} deadlocks={r['deadlocks']} at_ms=[{times}] holds={len(r['holds'])} "
              f"notices={len(r['notices'])} loop_flows_tput={r['tput']:.3f} "
              f"break_drops={r['break_drops']} lossless_drops={r['lossless_drops']}")
        for e in r["holds"]:
            print(f"          {e['kind']} at {e['switch']}:{e['port']} t_ms={e['t_ns'] / 1e6:.3f} "
                  f"until_ms={e['until_ns'] / 1e6:.3f}")
    json.dump([{k: v for k, v in r.items() if k != "norm"} for r in recs],
              open(os.path.join(out, "fig5.json"), "w"), indent=1)
    plot(recs, os.path.join(out, "dcfit_fig5.png"))
    b, h = recs
    print(f"RESULT deadlocks_baseline={b['deadlocks']} deadlocks_handled={h['deadlocks']} "
          f"tput_baseline={b['tput']:.3f} tput_handled={h['tput']:.3f}")


if __name__ == "__main__":
    main()
