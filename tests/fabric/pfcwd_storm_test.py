#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The watchdog experiment's short version (suite 'fabric'): one random storm
(bench/rdma_at_scale/pfcwd_storm.py --quick: no watchdog, then drop and forward at detect
times 200us, 500us, 1ms) and one heavy incast at detect 200us. Checks, from
the runs' record: each storm declared once at T2's port to H4, detect_time
after the storm's first XOFF (plus at most the XOFF's flight and one frame
of the stalled flow), within 1 ms for detect times under 1 ms; restored once,
restore_time after the last pause expired; no alarm anywhere else; the
victims stop without the watchdog and keep most of their rate with it; the
incast pauses over and over and raises no alarm; no lossless drop.

  pfcwd_storm_test.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import sys
import tempfile

from pfclib.checks import check, finish, run  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
# The stall is first seen when the XOFF has arrived (1.07 us at 10 Gb/s and
# 1 us of cable) and the stalled flow's next frame is queued (one frame
# every 2 us at 4 Gb/s).
DETECT_SLACK_US = 4.0
RESTORE_SLACK_US = 1.0

with tempfile.TemporaryDirectory(prefix="fabric-pfcwd-storm-") as tmp:
    p = run(["/usr/bin/python3", os.path.join(src, "bench/rdma_at_scale/pfcwd_storm.py"), "1", fabric, tmp, "--quick"])
    print(p.stdout)
    res = json.load(open(os.path.join(tmp, "runs.json")))
    runs = res["runs"]
    storm = [r for r in runs if r["kind"] == "storm"]
    wd = [r for r in storm if r["action"] != "off"]
    off = [r for r in storm if r["action"] == "off"]
    inc = [r for r in runs if r["kind"] == "incast"]
    check("runs: one storm without the watchdog, 6 with, one incast", (len(off), len(wd), len(inc)) == (1, 6, 1),
          str((len(off), len(wd), len(inc))))
    check("the PNG is written", os.path.getsize(os.path.join(tmp, "pfcwd_storm.png")) > 10_000)
    check("the storm is real: H4 sent XOFFs for priority 1", all(r["xoffs"] >= 2 for r in storm))
    check("no lossless drop in any run", all(r["lossless_drops"] == 0 for r in runs))
    check("without the watchdog: no event, no watchdog drop",
          all(r["storms"] == 0 and not r["other_events"] and r["wd_drops"] == 0 for r in off))
    v_off = [g for r in off for g in r["victim_gbps"].values()]
    check("without the watchdog the victims stop (< 0.5 Gb/s during the storm)", max(v_off) < 0.5, str(v_off))
    for r in wd:
        n = r["name"]
        check(f"{n}: one storm, one restore, at T2 -> H4 only",
              r["storms"] == 1 and r["restores"] == 1 and not r["other_events"], str(r["other_events"]))
        det, cfg = r["detect_meas_us"], r["detect_us"]
        check(f"{n}: detected detect_time after the first XOFF", det is not None and
              cfg <= det <= cfg + DETECT_SLACK_US, f"{det} for {cfg}")
        if cfg < 1000 and det is not None:
            check(f"{n}: within 1 ms of the storm's start", det <= 1000, str(det))
        rs, rcfg = r["restore_meas_us"], r["restore_us"]
        check(f"{n}: restored restore_time after the last pause expired", rs is not None and
              rcfg <= rs <= rcfg + RESTORE_SLACK_US, f"{rs} for {rcfg}")
        storm_us = r["stop_us"] - r["start_us"]
        # The victims lose at most the detection time of the storm's window.
        floor = 4.0 * (1 - (cfg + 100) / storm_us) - 0.2
        check(f"{n}: the victims keep moving (>= {floor:.2f} Gb/s)", min(r["victim_gbps"].values()) >= floor,
              str(r["victim_gbps"]))
        if r["action"] == "drop":
            check(f"{n}: the stalled flow's packets dropped", r["wd_drops"] > 0)
        else:
            check(f"{n}: forward drops nothing", r["wd_drops"] == 0)
    for r in inc:
        check(f"{r['name']}: real congestion (B and C pause 50+ times, A paused over half the run)",
              r["pauses"] >= 50 and r["paused_frac_A"] > 0.5, f"{r['pauses']} {r['paused_frac_A']:.2f}")
        check(f"{r['name']}: no false alarm", r["false_alarms"] == 0 and r["events"] == [], str(r["events"]))
    check("RESULT line last", p.stdout.strip().splitlines()[-1].startswith("RESULT runs=8 "))
finish()
