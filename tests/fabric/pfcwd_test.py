#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The pause-storm watchdog in the fabric emulator (suite 'fabric', virtual
clock). Storm: switch T with hosts H1, H3, H4; H1 sends two lossless flows
(priority 1), f_victim to H4 and f_other to H3; from 2 ms to 5 ms H4 keeps
pausing T (`storm: [1]`). Without the watchdog (and with action alert) the
stalled queue to H4 fills H1's ingress at T, T pauses H1 and f_other stops
too; with action drop or forward the watchdog (detect_time 500us) declares
the storm within 1 ms of its start and f_other keeps moving; the storm is
restored after the host goes quiet. Congestion: a 3-to-1 incast through
two switches (B, whose port to H4 is the bottleneck, pauses A over and
over while A's queue to B holds packets): no alarm.
No lossless drop anywhere (the watchdog's own are reported apart).

  pfcwd_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import os
import sys
import tempfile

from pfclib.checks import check, finish, run  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))
STORM_START_NS, STORM_STOP_NS = 2_000_000, 5_000_000

STORM = """fabric: {{ clock: virtual, duration: 20ms, bin: 250us, seed: 1 }}
topology:
  switches: [T]
  hosts: [H1, H3, H4]
  links: [[T, H1], [T, H3], [T, H4]]
links: {{ rate: 10G, delay: 1us }}
switch: {{ config: {tmpl} }}
flows:
  - {{ name: f_victim, from: H1, to: H4, dscp: 1, prio: 1, rate: 4G, frame: 1000 }}
  - {{ name: f_other, from: H1, to: H3, dscp: 1, prio: 1, rate: 4G, frame: 1000 }}
events:
  - {{ at: 2ms, host: H4, storm: [1] }}
  - {{ at: 5ms, host: H4, storm: [] }}
"""

INCAST = """fabric: {{ clock: virtual, duration: 10ms, bin: 250us, seed: 1 }}
include: {cfg}/incast-3to1.yaml
switch: {{ config: {tmpl} }}
flows:
  - {{ name: f1, from: H1, to: H4, dscp: 1, prio: 1, frame: 1000 }}
  - {{ name: f2, from: H2, to: H4, dscp: 1, prio: 1, frame: 1000 }}
  - {{ name: f3, from: H3, to: H4, dscp: 1, prio: 1, frame: 1000 }}
"""


def fabric_run(tmp, tag, body, watchdog):
    tmpl = os.path.join(tmp, f"switch-{tag}.yaml")
    with open(tmpl, "w") as f:
        f.write(open(os.path.join(cfg, "switch-lossless.yaml")).read())
        if watchdog:
            f.write(f"pfc_watchdog: {{ {watchdog} }}\n")
    path = os.path.join(tmp, f"fabric-{tag}.yaml")
    with open(path, "w") as f:
        f.write(body.format(tmpl=tmpl, cfg=cfg))
    out = os.path.join(tmp, tag)
    run([fabric, "--fabric", path, "--out", out])
    r = results(out)
    gbps = {}
    for row in csv.DictReader(open(os.path.join(out, "flows.csv"))):
        t_ns = float(row["t_ms"]) * 1e6
        # Bins wholly inside the storm, after the detection has had 1.5 ms.
        if STORM_START_NS + 1_500_000 < t_ns <= STORM_STOP_NS:
            gbps.setdefault(row["flow"], []).append(float(row["gbps"]))
    return r, {k: sum(v) / len(v) for k, v in gbps.items()}


with tempfile.TemporaryDirectory(prefix="fabric-pfcwd-") as tmp:
    wd = "enabled: true, detect_time: 500us, restore_time: 5ms, action: "
    for action in ["off", "alert", "drop", "forward"]:
        r, during = fabric_run(tmp, action, STORM, None if action == "off" else wd + action)
        ev = r["pfcwd_events"]
        storms = [e for e in ev if e["kind"] == "storm"]
        other = during.get("f_other", 0.0)
        print(f"{action}: f_other during the storm {other:.2f} Gb/s, "
              f"f_victim {during.get('f_victim', 0.0):.2f} Gb/s")
        check(f"{action}: no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
        if action == "off":
            check("off: no watchdog event", ev == [], str(ev))
            check("off: the storm spreads, f_other stalls with the victim", other < 1.0, f"{other:.2f}")
            continue
        check(f"{action}: one storm, at T's port to H4, priority 1",
              len(storms) == 1 and storms[0]["switch"] == "T" and storms[0]["port"] == "H4"
              and storms[0]["prio"] == 1, str(storms))
        if not storms:
            continue
        detect_ns = storms[0]["t_ns"] - STORM_START_NS
        print(f"RESULT action={action} detect_ns={detect_ns} "
              f"stall_to_detect_ns={storms[0]['t_ns'] - storms[0]['since_ns']}")
        check(f"{action}: detected within 1 ms of the storm's start", 500_000 <= detect_ns <= 1_000_000,
              str(detect_ns))
        restored = [e for e in ev if e["kind"] == "restored"]
        check(f"{action}: restored once, restore_time after the host's last pause",
              len(restored) == 1 and STORM_STOP_NS + 5_000_000 <= restored[0]["t_ns"]
              <= STORM_STOP_NS + 3_400_000 + 5_000_000 + 10_000, str(restored))
        if action == "alert":
            check("alert: nothing dropped by the watchdog", r["pfcwd_storm_drops"] == 0,
                  str(r["pfcwd_storm_drops"]))
            check("alert: the storm still spreads", other < 1.0, f"{other:.2f}")
        else:
            check(f"{action}: f_other keeps moving (>= 3.6 of 4 Gb/s)", other >= 3.6, f"{other:.2f}")
        if action == "drop":
            check("drop: the victim's packets dropped as pfcwd_storm", r["pfcwd_storm_drops"] > 0,
                  str(r["pfcwd_storm_drops"]))
        if action == "forward":
            check("forward: nothing dropped, the victim sent through the pause",
                  r["pfcwd_storm_drops"] == 0 and during.get("f_victim", 0) >= 3.6,
                  f"{r['pfcwd_storm_drops']} {during.get('f_victim', 0):.2f}")

    # Heavy incast without a storm: B pauses A again and again, never an alarm.
    r, _ = fabric_run(tmp, "incast", INCAST, wd + "drop")
    a_to_b = next(p for p in r["switches"]["A"]["ports"] if p["name"] == "B")["prio"][1]
    print(f"incast: A's egress to B paused {a_to_b['paused_ns']} ns by "
          f"{a_to_b['pfc_xoff_rx']} XOFF from B")
    check("incast: the congestion is real, B pauses A for over 10% of the run",
          a_to_b["paused_ns"] > 1_000_000 and a_to_b["pfc_xoff_rx"] > 10, str(a_to_b["paused_ns"]))
    check("incast: no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    check("incast: no watchdog event", r["pfcwd_events"] == [], str(r["pfcwd_events"]))
finish()
