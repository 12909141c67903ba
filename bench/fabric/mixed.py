#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Outcomes of bench/fabric/mixed.sh's four runs (OUT/tagger{0,1}_wd{0,1}):
for each, whether blue and green deadlocked (both under 0.5 Gb/s over the
last 4 ms, tools/fabric_summary.py: "deadlock"), kept going only because
the watchdog declared storms on links between switches and dropped there
("wd_breaks_loop"), or flowed ("flowing"); whether gray keeps moving (at least
half its 10 Gb/s over the same window), the watchdog's storms by switch and
port, its drops, the links paused and idle at the end. Prints one line per
run and the RESULT line; writes OUT/outcomes.json.

  mixed.py OUT_DIR
"""
import json
import os
import sys

from pfclib.fabric_results import STOPPED_GBPS, results, summary  # noqa: E402

RUNS = ["tagger0_wd0", "tagger0_wd1", "tagger1_wd0", "tagger1_wd1"]
WINDOW_FROM_MS = 6.0  # the storm starts at 4 ms; 2 ms to settle
GRAY_GBPS = 10.0


def outcome(d):
    s = summary(d, WINDOW_FROM_MS)
    r = results(d)
    with open(os.path.join(d, "topology.json")) as f:
        switches = {n["name"] for n in json.load(f)["nodes"] if n["kind"] == "switch"}
    rates = s["rates"]
    dead = all(rates.get(f, 0.0) < STOPPED_GBPS for f in ("blue", "green"))
    moving = rates.get("gray", 0.0) >= GRAY_GBPS / 2
    storms = [e for e in r["pfcwd_events"] if e["kind"] == "storm"]
    # A storm declared on a link between two switches is the watchdog
    # taking a deadlock's (or starvation's) long pause for a storm.
    inner = sorted({f"{e['switch']}->{e['port']}" for e in storms if e["port"] in switches})
    cbd = "deadlock" if dead else ("wd_breaks_loop" if inner else "flowing")
    return {
        "deadlock": int(dead), "gray_moving": int(moving), "rates": rates,
        "stuck": [f"{a}->{b}" for a, b in s["stuck"]],
        "storm_ports": sorted({f"{e['switch']}->{e['port']}" for e in storms}), "inner_storm_ports": inner,
        "storm_events": len(storms), "wd_drops": r["pfcwd_storm_drops"], "lossless_drops": r["lossless_drops"],
        "label": cbd + "," + ("gray_moving" if moving else "gray_stopped"),
    }


def main():
    out = sys.argv[1]
    o = {run: outcome(os.path.join(out, run)) for run in RUNS}
    for run, x in o.items():
        rs = ", ".join(f"{f} {g:.2f}" for f, g in sorted(x["rates"].items()))
        print(f"{run}: {x['label']}; rates from {WINDOW_FROM_MS:.0f} ms (Gb/s) {rs}; watchdog storms "
              f"{x['storm_events']} at {' '.join(x['storm_ports']) or 'none'}, drops {x['wd_drops']}; paused and "
              f"idle at the end: {' '.join(x['stuck']) or 'none'}; lossless drops {x['lossless_drops']}")
    with open(os.path.join(out, "outcomes.json"), "w") as f:
        json.dump(o, f, indent=1)
    print("RESULT " + " ".join(f"{run}={x['label']}" for run, x in o.items()) +
          f" gray_gbps_wd0={o['tagger1_wd0']['rates'].get('gray', 0):.2f}"
          f" gray_gbps_wd1={o['tagger1_wd1']['rates'].get('gray', 0):.2f}"
          f" lossless_drops={sum(x['lossless_drops'] for x in o.values())}")


if __name__ == "__main__":
    main()
