# SPDX-License-Identifier: BSD-3-Clause
"""The figure of bench/rdma_at_scale/pfcwd_storm.py: measured detection and restore times
against the configured ones, the victims' throughput over time for one
storm without and with the watchdog, and the longest pause in each
congestion run against the detect times. Needs python3-matplotlib
(/usr/bin/python3)."""
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"drop": ("o", "tab:red"), "forward": ("^", "tab:blue"), "off": ("s", "black")}


def victims_over_time(d, victims):
    """(bin end ms, mean Gb/s of the victim flows) from a run's flows.csv."""
    acc = {}
    with open(os.path.join(d, "flows.csv")) as f:
        for row in csv.DictReader(f):
            if row["flow"] in victims:
                acc.setdefault(float(row["t_ms"]), []).append(float(row["gbps"]))
    ts = sorted(acc)
    return ts, [sum(acc[t]) / len(acc[t]) for t in ts]


def scatter(ax, wd, key_cfg, key_meas, title, target=None):
    xs = sorted({r[key_cfg] for r in wd})
    for action in ("drop", "forward"):
        pts = [(r[key_cfg], r[key_meas]) for r in wd if r["action"] == action and r[key_meas] is not None]
        # Side by side so the two actions do not hide each other.
        dx = -0.02 if action == "drop" else 0.02
        m, c = STYLE[action]
        ax.scatter([x + dx * xs[-1] for x, _ in pts], [y for _, y in pts], marker=m, color=c, label=action,
                   alpha=0.6, s=22)
    ax.plot([0, xs[-1] * 1.2], [0, xs[-1] * 1.2], "k:", linewidth=1, label="measured = configured")
    if target:
        ax.axhline(target, color="tab:green", linestyle="--", linewidth=1, label=f"target {target} us")
    ax.set_xticks(xs)
    ax.set_xlim(0, xs[-1] * 1.2)
    ax.set_ylim(0, xs[-1] * 1.25)
    ax.set_xlabel("configured (us)")
    ax.set_ylabel("measured (us)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)


def plot(recs, detect_us, restore_us, target_us, path, victims=("f_v1", "f_v2")):
    storms = [r for r in recs if r["kind"] == "storm"]
    wd = [r for r in storms if r["action"] != "off"]
    inc = [r for r in recs if r["kind"] == "incast"]
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5))
    scatter(ax[0][0], wd, "detect_us", "detect_meas_us",
            "time to detect, from the storm's first XOFF", target_us)
    scatter(ax[0][1], wd, "restore_us", "restore_meas_us",
            "time to restore, from the last XOFF's pause expiring")
    # One storm (the first), off and each action at one detect time.
    a = ax[1][0]
    first = [r for r in storms if r["storm_id"] == 0]
    d_pick = 500 if 500 in detect_us else detect_us[0]
    shown = [r for r in first if r["action"] == "off"]
    for action in ("drop", "forward"):
        shown += [r for r in first if r["action"] == action and r["detect_us"] == d_pick][:1]
    for r in shown:
        ts, g = victims_over_time(r["dir"], victims)
        lab = "no watchdog" if r["action"] == "off" else f"{r['action']} (detect {r['detect_us']} us)"
        # Each value is the bin that ends at its time.
        a.plot(ts, g, label=lab, color=STYLE[r["action"]][1], linewidth=1.4, drawstyle="steps-pre",
               linestyle="--" if r["action"] == "forward" else "-")
    if first:
        a.axvspan(first[0]["start_us"] / 1e3, first[0]["stop_us"] / 1e3, color="tab:orange", alpha=0.15,
                  label="H4 storming")
    a.set_xlabel("time (ms)")
    a.set_ylabel("victims' mean rate at receiver (Gb/s)")
    a.set_title("victims (f_v1, f_v2; 4 Gb/s offered) during one storm", fontsize=10)
    a.legend(fontsize=7, loc="lower left")
    a.grid(alpha=0.3)
    # Congestion: the longest pause per run vs the shortest detect time.
    a = ax[1][1]
    by_run = {}
    for r in inc:
        by_run.setdefault(r["name"].split("-")[0], []).append(r)
    names = sorted(by_run, key=lambda n: int(n[len("incast"):]))
    a.bar(range(len(names)), [max(r["longest_pause_us"] for r in by_run[n]) for n in names], color="tab:gray")
    for d in detect_us:
        a.axhline(d, color="tab:purple", linestyle="--", linewidth=0.8)
        a.text(len(names) - 0.5, d, f"detect {d} us", fontsize=7, va="bottom", ha="right")
    alarms = sum(r["false_alarms"] for r in inc)
    a.set_xticks(range(len(names)))
    a.set_xticklabels([f"{by_run[n][0]['senders']}" for n in names], fontsize=7)
    a.set_xlabel("congestion run (number of senders)")
    a.set_ylabel("longest continuous pause received (us)")
    a.set_yscale("log")
    a.set_title(f"incast without a storm: {len(inc)} runs, false alarms {alarms}", fontsize=10)
    a.grid(alpha=0.3, axis="y")
    fig.suptitle("PFC pause-storm watchdog on the fabric emulator (virtual clock, 10 Gb/s hosts)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"pfcwd_storm: wrote {path}")
