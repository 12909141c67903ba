#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The pause-storm watchdog experiment (issue 9, "Watchdog"), run by
bench/rdma_at_scale/pfcwd_storm.sh; every run on pfcfabric's virtual clock, deterministic
given the seed.

Storm runs: ToRs T1 (H1, H2) and T2 (H3, H4), T1-T2 at 40 Gb/s, hosts at
10 Gb/s. H1 sends f_storm to H4 and f_v1 to H3, H2 sends f_v2 to H3 (4 Gb/s
each, priority 1). H4 storms (keeps T2's priority 1 paused, an XOFF of
65535 quanta every half pause) from a random start for a random duration.
Its queue at T2 fills T2's buffer from T1, T2 pauses T1, T1 pauses H1 and
H2: without the watchdog the victims f_v1 and f_v2 stop. Each storm is run
without the watchdog and with it for every (detect_time, restore_time) of
the sweep and both actions that protect the victims (drop, forward).
Measured from a capture of the T2-H4 link: time to detect, from the storm's
first XOFF starting on the wire to the watchdog's storm event; time to
restore, from the expiry at T2 of the pause the last XOFF asked for to the
restored event. Victim throughput: each victim's mean rate at its receiver
over the bins inside the storm (detection time included).

Congestion runs (no storm): 3 to 7 senders on switches A and B into one
host behind C (A-B-C at 40 Gb/s, hosts at 10 Gb/s, random frame sizes and
start times): C pauses B and B pauses A again and again. Any storm event
is a false alarm. The longest pause each switch received is measured from
captures of the A-B and B-C links.

  pfcwd_storm.py RUNS FABRIC OUT_DIR [--quick]

--quick: a short sweep for the fabric test suite (one detect and restore
pair per detect time). Writes OUT_DIR/runs.json, OUT_DIR/pfcwd_storm.png;
prints one line per run, a summary and the RESULT line.
"""
import csv
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pfclib.fabric_results import results  # noqa: E402
from pfclib.pfc_capture import pause_spans, pfc_frames  # noqa: E402

TEMPLATE = os.path.join(SRC, "configs/fabric/switch-lossless.yaml")
DETECT_US = [200, 500, 1000]
RESTORE_US = [1000, 5000]
DETECT_TARGET_US = 1000
# pfc_watchdog.detect_time's default (dataplane/pause/pfcwd.h): its runs leave
# detect_time out of the config, so they measure the default itself.
DEFAULT_DETECT_US = 500
HOST_BPS, CORE_BPS, DELAY_NS = 10e9, 40e9, 1000
VICTIMS = ["f_v1", "f_v2"]
VICTIM_OFFERED_GBPS = 4.0

STORM = """fabric: {{ clock: virtual, duration: {dur_us}us, bin: 100us, seed: {seed} }}
topology:
  switches: [T1, T2]
  hosts: [H1, H2, H3, H4]
  links: [[T1, T2], [T1, H1], [T1, H2], [T2, H3], [T2, H4]]
links: {{ rate: 10G, delay: 1us, overrides: [ {{ between: [T1, T2], rate: 40G }} ] }}
switch: {{ config: {tmpl} }}
flows:
  - {{ name: f_storm, from: H1, to: H4, dscp: 1, prio: 1, rate: 4G, frame: 1000 }}
  - {{ name: f_v1, from: H1, to: H3, dscp: 1, prio: 1, rate: 4G, frame: 1000 }}
  - {{ name: f_v2, from: H2, to: H3, dscp: 1, prio: 1, rate: 4G, frame: 1000 }}
events:
  - {{ at: {start_us}us, host: H4, storm: [1] }}
  - {{ at: {stop_us}us, host: H4, storm: [] }}
captures:
  - {{ link: [T2, H4], file: storm.pcapng }}
"""

INCAST = """fabric: {{ clock: virtual, duration: 10ms, bin: 100us, seed: {seed} }}
topology:
  switches: [A, B, C]
  hosts: [H1, H2, H3, H4, H5, H6, H7, R]
  links: [[A, B], [B, C], [A, H1], [A, H2], [A, H3], [A, H4], [B, H5], [B, H6], [B, H7], [C, R]]
links: {{ rate: 10G, delay: 1us, overrides: [ {{ between: [A, B], rate: 40G }}, {{ between: [B, C], rate: 40G }} ] }}
switch: {{ config: {tmpl} }}
flows:
{flows}captures:
  - {{ link: [A, B], file: ab.pcapng }}
  - {{ link: [B, C], file: bc.pcapng }}
"""

fabric = out = None  # set by main: the pfcfabric binary, the results directory


def template(name, watchdog):
    """A switch template: switch-lossless.yaml plus a pfc_watchdog section."""
    path = os.path.join(out, "templates", name + ".yaml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(open(TEMPLATE).read())
        if watchdog:
            f.write(f"pfc_watchdog: {{ {watchdog} }}\n")
    return path


def run_fabric(name, body):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "fabric.yaml")
    with open(path, "w") as f:
        f.write(body)
    p = subprocess.run([fabric, "--fabric", path, "--out", d], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"pfcwd_storm: {name}: pfcfabric failed:\n{p.stdout}{p.stderr}")
    return d, results(d)


def flow_series(d):
    """flow -> [(bin end ms, Gb/s)] at the receiver."""
    s = {}
    with open(os.path.join(d, "flows.csv")) as f:
        for row in csv.DictReader(f):
            s.setdefault(row["flow"], []).append((float(row["t_ms"]), float(row["gbps"])))
    return s


def mean_in(series, t0_ms, t1_ms, bin_ms=0.1):
    v = [g for t, g in series if t - bin_ms >= t0_ms - 1e-9 and t <= t1_ms + 1e-9]
    return sum(v) / len(v) if v else 0.0


def host_mac(d, host):
    with open(os.path.join(d, "hosts.json")) as f:
        return next(h["mac"] for h in json.load(f)["hosts"] if h["name"] == host)


def storm_run(case):
    """One storm, one watchdog setting; returns the run's record."""
    name, storm, wd = case["name"], case["storm"], case["wd"]
    tmpl = template(wd["tag"], wd["cfg"])
    d, r = run_fabric(name, STORM.format(tmpl=tmpl, seed=storm["seed"], **storm["times"]))
    rec = {"name": name, "kind": "storm", "action": wd["action"], "detect_us": wd.get("detect_us"),
           "restore_us": wd.get("restore_us"), "storm_id": storm["id"], "start_us": storm["times"]["start_us"],
           "stop_us": storm["times"]["stop_us"], "lossless_drops": r["lossless_drops"],
           "wd_drops": r["pfcwd_storm_drops"], "dir": d}
    # The storm on the wire: H4's XOFFs for priority 1 and the pause they held.
    xoffs = [f for f in pfc_frames(os.path.join(d, "storm.pcapng"))
             if f.src == host_mac(d, "H4") and f.quanta.get(1, 0) > 0]
    spans = pause_spans(xoffs, host_mac(d, "H4"), 1, HOST_BPS, DELAY_NS)
    rec["xoffs"] = len(xoffs)
    rec["pause_end_ns"] = spans[-1][1] if spans else None
    ev = r["pfcwd_events"]
    at_h4 = [e for e in ev if e["switch"] == "T2" and e["port"] == "H4" and e["prio"] == 1]
    storms = [e for e in at_h4 if e["kind"] == "storm"]
    restored = [e for e in at_h4 if e["kind"] == "restored"]
    rec["storms"], rec["restores"] = len(storms), len(restored)
    rec["other_events"] = [e for e in ev if e not in at_h4]
    rec["detect_meas_us"] = round((storms[0]["t_ns"] - xoffs[0].t_ns) / 1e3, 3) if storms and xoffs else None
    rec["restore_meas_us"] = round((restored[0]["t_ns"] - spans[-1][1]) / 1e3, 3) if restored and spans else None
    series = flow_series(d)
    t0, t1 = rec["start_us"] / 1e3, rec["stop_us"] / 1e3
    rec["victim_gbps"] = {v: mean_in(series.get(v, []), t0, t1) for v in VICTIMS}
    return rec


def incast_run(case):
    tmpl = template(case["wd"]["tag"], case["wd"]["cfg"])
    d, r = run_fabric(case["name"], INCAST.format(tmpl=tmpl, seed=case["seed"], flows=case["flows"]))
    rec = {"name": case["name"], "kind": "incast", "detect_us": case["wd"]["detect_us"],
           "senders": case["senders"], "lossless_drops": r["lossless_drops"],
           "false_alarms": sum(1 for e in r["pfcwd_events"] if e["kind"] == "storm"),
           "events": r["pfcwd_events"], "dir": d}
    # The pauses each downstream switch sent on the A-B and B-C links (the
    # only PFC there: data flows one way).
    longest, count = 0.0, 0
    for cap in ("ab.pcapng", "bc.pcapng"):
        frames = pfc_frames(os.path.join(d, cap))
        for src in {f.src for f in frames}:
            spans = pause_spans(frames, src, 1, CORE_BPS, DELAY_NS, r["duration_ns"])
            count += len(spans)
            longest = max([longest] + [(b - a) / 1e3 for a, b in spans])
    rec["pauses"], rec["longest_pause_us"] = count, longest
    for sw in ("A", "B"):
        port = "B" if sw == "A" else "C"
        p = next(p for p in r["switches"][sw]["ports"] if p["name"] == port)["prio"][1]
        rec[f"paused_frac_{sw}"] = p["paused_ns"] / r["duration_ns"]
    return rec


def watchdogs(quick):
    """(tag, action, detect_us, restore_us, config) of every watchdog setting."""
    pairs = [(d, RESTORE_US[i % len(RESTORE_US)]) for i, d in enumerate(DETECT_US)] if quick else \
        [(d, r) for d in DETECT_US for r in RESTORE_US]
    wds = [{"tag": "off", "action": "off", "cfg": None}]
    for action in ("drop", "forward"):
        for d, r in pairs:
            dt = "" if d == DEFAULT_DETECT_US else f"detect_time: {d}us, "
            wds.append({"tag": f"{action}-d{d}-r{r}", "action": action, "detect_us": d, "restore_us": r,
                        "cfg": f"enabled: true, {dt}restore_time: {r}us, action: {action}"})
    return wds


def cases(runs, quick, seed=9):
    rng = random.Random(seed)
    storms, incasts = [], []
    for i in range(runs):
        start = rng.randrange(1000, 3000)
        stop = start + rng.randrange(1000, 6000)
        # Long enough for the last pause (3.36 ms at 10 Gb/s) and the longest restore.
        dur = (stop + 3400 + max(RESTORE_US) + 1000 + 999) // 1000 * 1000
        storms.append({"id": i, "seed": i + 1, "times": {"start_us": start, "stop_us": stop, "dur_us": dur}})
    for i in range(runs):
        hosts = rng.sample(["H1", "H2", "H3", "H4", "H5", "H6", "H7"], rng.randrange(3, 8))
        flows = "".join(f"  - {{ name: f{h}, from: {h}, to: R, dscp: 1, prio: 1, frame: {rng.randrange(500, 1501)}, "
                        f"start: {rng.randrange(0, 1000)}us }}\n" for h in sorted(hosts))
        incasts.append({"id": i, "seed": i + 1, "senders": len(hosts), "flows": flows})
    wds = watchdogs(quick)
    jobs = [dict(name=f"storm{s['id']}-{w['tag']}", storm=s, wd=w, run=storm_run) for s in storms for w in wds]
    for c in incasts:
        # restore_time does not matter without a storm; in quick mode only
        # the shortest detect time, the one most prone to false alarms.
        for w in (w for w in wds if w["action"] == "drop" and w["restore_us"] == RESTORE_US[0]):
            if quick and w["detect_us"] != min(DETECT_US):
                continue
            jobs.append(dict(c, name=f"incast{c['id']}-{w['tag']}", wd=w, run=incast_run))
    return jobs


def describe(rec):
    if rec["kind"] == "incast":
        return (f"{rec['name']}: {rec['senders']} senders, {rec['pauses']} pauses, longest "
                f"{rec['longest_pause_us']:.1f} us, A paused {rec['paused_frac_A']:.0%} B paused "
                f"{rec['paused_frac_B']:.0%}; false alarms {rec['false_alarms']}; lossless drops {rec['lossless_drops']}")
    v = " ".join(f"{k} {g:.2f}" for k, g in rec["victim_gbps"].items())
    det = "-" if rec["detect_meas_us"] is None else f"{rec['detect_meas_us']:.1f}"
    res = "-" if rec["restore_meas_us"] is None else f"{rec['restore_meas_us']:.1f}"
    return (f"{rec['name']}: storm {rec['start_us']}-{rec['stop_us']} us, {rec['xoffs']} XOFF; storms "
            f"{rec['storms']} restores {rec['restores']}; detect {det} us, restore {res} us; victims (Gb/s) {v}; "
            f"watchdog drops {rec['wd_drops']}, other events {len(rec['other_events'])}, lossless drops "
            f"{rec['lossless_drops']}")


def summarize(recs):
    st = [r for r in recs if r["kind"] == "storm"]
    wd = [r for r in st if r["action"] != "off"]
    off = [r for r in st if r["action"] == "off"]
    inc = [r for r in recs if r["kind"] == "incast"]
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    s = {
        "runs": len(recs),
        "detect_us_max": max((r["detect_meas_us"] or 1e9) for r in wd),
        "detect_over_config_us_max": max((r["detect_meas_us"] or 1e9) - r["detect_us"] for r in wd),
        "detect_us_max_default": max(((r["detect_meas_us"] or 1e9) for r in wd if r["detect_us"] == DEFAULT_DETECT_US),
                                     default=0.0),
        "restore_us_max": max((r["restore_meas_us"] or 1e9) for r in wd),
        "restore_over_config_us_max": max((r["restore_meas_us"] or 1e9) - r["restore_us"] for r in wd),
        "missed": sum(1 for r in wd if r["storms"] != 1 or r["restores"] != 1),
        "spread_alarms": sum(len(r["other_events"]) for r in st),
        "false_alarms": sum(r["false_alarms"] for r in inc),
        "incast_longest_pause_us": max((r["longest_pause_us"] for r in inc), default=0.0),
        "lossless_drops": sum(r["lossless_drops"] for r in recs),
        "victim_gbps_with": {a: mean([mean(list(r["victim_gbps"].values())) for r in wd if r["action"] == a])
                             for a in ("drop", "forward")},
        "victim_gbps_without": mean([mean(list(r["victim_gbps"].values())) for r in off]),
    }
    s["victim_gbps_with_min"] = min(min(r["victim_gbps"].values()) for r in wd)
    return s


def main():
    global fabric, out
    args = [a for a in sys.argv[1:] if a != "--quick"]
    quick = "--quick" in sys.argv
    if len(args) != 3:
        raise SystemExit(__doc__)
    runs, fabric, out = int(args[0]), os.path.abspath(args[1]), os.path.abspath(args[2])
    os.makedirs(out, exist_ok=True)
    jobs = cases(runs, quick)
    with ThreadPoolExecutor(max_workers=2) as ex:
        recs = list(ex.map(lambda j: j["run"](j), jobs))
    for r in recs:
        print(describe(r))
    s = summarize(recs)
    with open(os.path.join(out, "runs.json"), "w") as f:
        json.dump({"summary": s, "runs": recs}, f, indent=1)
    from rdma_at_scale.pfcwd_storm_plot import plot
    plot(recs, DETECT_US, RESTORE_US, DETECT_TARGET_US, os.path.join(out, "pfcwd_storm.png"))
    print(f"summary: {s['runs']} runs; detection {s['detect_us_max']:.1f} us at most from the storm's first XOFF "
          f"(at most {s['detect_over_config_us_max']:.1f} us over detect_time); restore at most "
          f"{s['restore_over_config_us_max']:.1f} us over restore_time after the last pause expired; "
          f"missed {s['missed']}; alarms elsewhere during storms {s['spread_alarms']}; congestion runs: longest "
          f"pause {s['incast_longest_pause_us']:.1f} us, false alarms {s['false_alarms']}; victims with drop "
          f"{s['victim_gbps_with']['drop']:.2f}, forward {s['victim_gbps_with']['forward']:.2f}, without "
          f"{s['victim_gbps_without']:.2f} Gb/s of {VICTIM_OFFERED_GBPS}; lossless drops {s['lossless_drops']}")
    with_all = (s["victim_gbps_with"]["drop"] + s["victim_gbps_with"]["forward"]) / 2
    print(f"RESULT runs={s['runs']} detect_us_max={s['detect_us_max']:.1f} detect_target_us={DETECT_TARGET_US} "
          f"detect_late_us_max={s['detect_over_config_us_max']:.1f} "
          f"detect_us_max_default={s['detect_us_max_default']:.1f} restore_us_max={s['restore_us_max']:.1f} "
          f"restore_late_us_max={s['restore_over_config_us_max']:.1f} false_alarms={s['false_alarms']} "
          f"victim_gbps_with={with_all:.2f} victim_gbps_without={s['victim_gbps_without']:.2f}")


if __name__ == "__main__":
    main()
