#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""PFC alone against PFC + DCQCN on a 16-to-1 incast with a victim flow,
on the fabric emulator's virtual clock (deterministic).

Fabric: three leaves (L1, L2, L3) under one spine S, 40 Gb/s host links,
800 Gb/s leaf-spine links (more than the 17 senders together: the only
bottleneck is R's link), 1 us each. Sixteen senders H1..H16 on L1 send to
R on L2 at line rate, lossless priority 1 (DSCP 1), ECN-capable; the
victim V on L1 sends to W on L3 in the same class, so it shares L1 -> S
and S with the incast but not its bottleneck (L2 -> R). Max-min fair
shares: the incast flows 40/16 = 2.5 Gb/s each, the victim its whole
link, less the 24 bytes of preamble, FCS and gap each frame costs on the
wire. The switches are
configs/fabric/switch-lossless-ecn.yaml: XOFF at 32 KiB of a port's
ingress, ECN marking 5K / 20K / 10% on priority 1, CNPs on priority 6.

Runs: `cc: none` (PFC alone: the bottleneck fills, L2 pauses S, S pauses
L1, the victim waits behind the incast at L1 -> S), `cc: dcqcn` (the
senders slow down on CNPs) with a 55 us rate-increase timer, and the same
with the simulator's 900 us (see RUNS). Measured over the run: pause frames sent
by the switches (XOFF and refreshes) and the time S was paused by L2;
over the second half: each flow's rate at its receiver, Jain's fairness
index of the 16 incast flows, the victim's rate. The figure: per-flow
rates over time for both runs, L2's bytes queued from S (the bottleneck
queue), the time each switch port is paused per bin.

  incast.py FABRIC_BIN OUT_DIR [DURATION_MS]
Last line: RESULT pause_frames_pfc=<n> pause_frames_dcqcn=<n> jain_dcqcn=<x>
  victim_gbps_pfc=<x> victim_gbps_dcqcn=<x> lossless_drops=<n> (and more)
"""
import csv
import json
import os
import subprocess
import sys

from pfclib.fabric_results import prio_sum, results

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CFG = os.path.join(ROOT, "configs", "fabric")
SENDERS = 16
HOST_GBPS, CORE_GBPS, FRAME = 40, 800, 1000
WIRE = FRAME / (FRAME + 24)  # goodput per line-rate bit, as flows.csv counts


# DCQCN's rate-increase timer here: 55 us, the period of DCQCN's alpha timer
# in its paper. The RDMA simulator's mix/config.txt (the emulator's
# defaults) has RP_TIMER 900 us: a victim whose rate was cut in the first
# milliseconds, while pauses spread, then climbs by 100 Mb/s per 900 us
# and stays far below its share for the whole run; it is run too and
# reported as victim_gbps_dcqcn_900us.
RUNS = {"none": ("none", None), "dcqcn": ("dcqcn", "55us"), "dcqcn-900us": ("dcqcn", None)}


def fabric_file(run_name, duration_ms):
    cc, rp_timer = RUNS[run_name]
    hosts = [f"H{i}" for i in range(1, SENDERS + 1)]
    links = [["L1", "S"], ["L2", "S"], ["L3", "S"]] + [["L1", h] for h in hosts]
    links += [["L1", "V"], ["L2", "R"], ["L3", "W"]]
    flows = [f"  - {{ name: {h}, from: {h}, to: R, dscp: 1, prio: 1, frame: {FRAME}, "
             f"ecn: ect0, cc: {cc} }}" for h in hosts]
    flows.append(f"  - {{ name: victim, from: V, to: W, dscp: 1, prio: 1, frame: {FRAME}, "
                 f"ecn: ect0, cc: {cc} }}")
    return "\n".join([
        f"fabric: {{ clock: virtual, duration: {duration_ms}ms, bin: 500us, seed: 1 }}",
        "topology:",
        "  switches: [L1, L2, L3, S]",
        f"  hosts: [{', '.join(hosts + ['V', 'R', 'W'])}]",
        f"  links: {json.dumps(links)}",
        f"links: {{ rate: {HOST_GBPS}G, delay: 1us, overrides: [ "
        + ", ".join(f"{{ between: [{a}, S], rate: {CORE_GBPS}G }}" for a in ("L1", "L2", "L3"))
        + " ] }",
        f"switch: {{ config: {CFG}/switch-lossless-ecn.yaml }}",
        f"dcqcn: {{ rp_timer: {rp_timer} }}" if rp_timer else "",
        "flows:", *flows, ""])


def run(fabric, out, name, duration_ms):
    d = os.path.join(out, name)
    path = os.path.join(out, f"incast-{name}.yaml")
    with open(path, "w") as f:
        f.write(fabric_file(name, duration_ms))
    p = subprocess.run([fabric, "--fabric", path, "--out", d], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"pfcfabric failed ({name}):\n{p.stdout}{p.stderr}")
    return d


def measure(d, duration_ms):
    r = results(d)
    half = duration_ms / 2
    acc, series = {}, {}
    for row in csv.DictReader(open(os.path.join(d, "flows.csv"))):
        t, g = float(row["t_ms"]), float(row["gbps"])
        series.setdefault(row["flow"], []).append((t, g))
        if t > half:
            acc.setdefault(row["flow"], []).append(g)
    rate = {k: sum(v) / len(v) for k, v in acc.items()}
    incast = [rate.get(f"H{i}", 0.0) for i in range(1, SENDERS + 1)]
    jain = sum(incast) ** 2 / (len(incast) * sum(x * x for x in incast)) if any(incast) else 0.0
    frames = prio_sum(r, "pfc_xoff_tx", "pfc_refresh_tx")
    s_to_l2 = next(p for p in r["switches"]["S"]["ports"] if p["name"] == "L2")["prio"][1]
    l1_to_s = next(p for p in r["switches"]["L1"]["ports"] if p["name"] == "S")["prio"][1]
    queue, paused = [], {}
    for row in csv.DictReader(open(os.path.join(d, "ports.csv"))):
        if row["prio"] != "1":
            continue
        t = float(row["t_ms"])
        if row["switch"] == "L2" and row["port"] == "S":
            queue.append((t, int(row["buffer_bytes"]) / 1024))
        key = f"{row['switch']}->{row['port']}"
        paused.setdefault(key, []).append((t, float(row["paused"])))
    cnps = r["hosts"]["R"]["cnp_tx"] + r["hosts"]["W"]["cnp_tx"]
    return {"rate": rate, "jain": jain, "pause_frames": frames,
            "s_paused_ms": s_to_l2["paused_ns"] / 1e6, "l1_paused_ms": l1_to_s["paused_ns"] / 1e6,
            "victim": rate.get("victim", 0.0), "incast_sum": sum(incast),
            "lossless_drops": r["lossless_drops"], "cnps": cnps, "series": series,
            "queue": queue, "paused": paused}


def plot(m, out, duration_ms):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(3, 2, figsize=(13, 10), sharex=True)
    for col, cc in enumerate(("none", "dcqcn")):
        name = "PFC alone" if cc == "none" else "PFC + DCQCN (RP timer 55 us)"
        a = ax[0][col]
        for k in range(1, SENDERS + 1):
            s = m[cc]["series"].get(f"H{k}", [])
            a.plot([t for t, _ in s], [g for _, g in s], color="tab:blue", alpha=0.35, linewidth=1,
                   label="incast flows (16)" if k == 1 else None)
        s = m[cc]["series"].get("victim", [])
        a.plot([t for t, _ in s], [g for _, g in s], color="tab:red", linewidth=2, label="victim")
        if cc == "dcqcn":
            s = m["dcqcn-900us"]["series"].get("victim", [])
            a.plot([t for t, _ in s], [g for _, g in s], color="tab:red", linewidth=1.5,
                   linestyle="--", label="victim, RP_TIMER 900 us")
        a.axhline(HOST_GBPS / SENDERS * WIRE, color="tab:blue", linestyle=":", linewidth=1,
                  label="incast fair share")
        a.axhline(HOST_GBPS * WIRE, color="tab:red", linestyle=":", linewidth=1,
                  label="victim fair share")
        a.set_title(f"{name}\nrate at the receiver (Jain {m[cc]['jain']:.3f} over the 2nd half)")
        a.set_ylabel("Gb/s")
        a.legend(fontsize=8, loc="center right")
        a = ax[1][col]
        q = m[cc]["queue"]
        a.plot([t for t, _ in q], [b for _, b in q], color="black", drawstyle="steps-post")
        a.axhline(32, color="tab:orange", linestyle="--", linewidth=1, label="XOFF (32 KiB)")
        a.axhline(20, color="tab:green", linestyle=":", linewidth=1, label="ECN max threshold (20K)")
        a.set_ylabel("KiB")
        a.set_title("bottleneck queue: L2's buffer for priority 1 from S")
        a.legend(fontsize=8)
        a = ax[2][col]
        for key, color in (("S->L2", "tab:purple"), ("L1->S", "tab:brown")):
            s = m[cc]["paused"].get(key, [])
            a.plot([t for t, _ in s], [v for _, v in s], color=color, drawstyle="steps-post",
                   label=f"{key} egress paused")
        a.set_ylim(-0.05, 1.05)
        a.set_ylabel("fraction of bin")
        a.set_xlabel("ms")
        a.set_title(f"pause: {m[cc]['pause_frames']} pause frames in all")
        a.legend(fontsize=8)
    fig.suptitle(f"16-to-1 incast at {HOST_GBPS} Gb/s with a victim sharing L1 -> S "
                 f"({duration_ms} ms, virtual clock)")
    fig.tight_layout()
    path = os.path.join(out, "dcqcn_incast.png")
    fig.savefig(path, dpi=110)
    return path


def experiment(fabric, out, duration_ms):
    """{run name: measurements} for every run of RUNS."""
    os.makedirs(out, exist_ok=True)
    return {name: measure(run(fabric, out, name, duration_ms), duration_ms) for name in RUNS}


def main():
    fabric, out = sys.argv[1], sys.argv[2]
    duration_ms = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    m = experiment(fabric, out, duration_ms)
    fair = HOST_GBPS * WIRE
    for cc in RUNS:
        x = m[cc]
        print(f"{cc:11s} pause frames {x['pause_frames']:6d}, S paused by L2 {x['s_paused_ms']:.2f} ms, "
              f"L1 paused by S {x['l1_paused_ms']:.2f} ms; 2nd half: incast {x['incast_sum']:.2f} Gb/s "
              f"(Jain {x['jain']:.3f}), victim {x['victim']:.2f} Gb/s of a {fair:.2f} fair share; "
              f"CNPs {x['cnps']}; lossless drops {x['lossless_drops']}")
    print("figure:", plot(m, out, duration_ms))
    json.dump({cc: {k: v for k, v in m[cc].items() if k not in ("series", "queue", "paused")}
               for cc in m}, open(os.path.join(out, "summary.json"), "w"), indent=1)
    n, d = m["none"], m["dcqcn"]
    print(f"RESULT pause_frames_pfc={n['pause_frames']} pause_frames_dcqcn={d['pause_frames']} "
          f"jain_dcqcn={d['jain']:.3f} victim_gbps_pfc={n['victim']:.2f} "
          f"victim_gbps_dcqcn={d['victim']:.2f} lossless_drops={n['lossless_drops'] + d['lossless_drops']} "
          f"pause_ratio={d['pause_frames'] / max(1, n['pause_frames']):.3f} "
          f"victim_share_dcqcn={d['victim'] / fair:.3f} victim_share_pfc={n['victim'] / fair:.3f} "
          f"victim_gbps_dcqcn_900us={m['dcqcn-900us']['victim']:.2f} "
          f"pause_frames_dcqcn_900us={m['dcqcn-900us']['pause_frames']}")


if __name__ == "__main__":
    main()
