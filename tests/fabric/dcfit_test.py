#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""DCFIT in the fabric emulator (suite 'fabric', virtual clock): Tagger
Fig. 10's deadlock without Tagger (configs/fabric/fig10-1bounce.yaml, every
switch with dcfit on) is declared on priority 1, on the loop
S2-L2-S1-L3, within 50 us of emulated time after every loop link was paused;
with recovery: break the flows run again after it; with Tagger's rules
(fig10-tagger.yaml) nothing is detected at all; no lossless drop anywhere.

  dcfit_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import os
import sys
import tempfile

from pfclib.checks import check, finish, run  # noqa: E402
from pfclib.dcfit_fabrics import fig10_with_dcfit  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tagger = os.path.join(build, "ctrl/tagger/pfc-tagger")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))

# The loop's links as sender:port (a port is named after its neighbour).
LOOP = {"S2:L2", "L2:S1", "S1:L3", "L3:S2"}
DURATION_MS = 4


def rx_gbps_after(d, t_ms):
    """Mean receive rate per flow over the bins after t_ms."""
    rates = {}
    for row in csv.DictReader(open(os.path.join(d, "flows.csv"))):
        if float(row["t_ms"]) > t_ms:
            rates.setdefault(row["flow"], []).append(float(row["gbps"]))
    return {f: sum(v) / len(v) for f, v in rates.items()}


with tempfile.TemporaryDirectory(prefix="fabric-dcfit-") as tmp:
    # 1. Detect only.
    out = os.path.join(tmp, "detect")
    run([fabric, "--fabric", fig10_with_dcfit(cfg, tmp, "detect", DURATION_MS), "--out", out])
    r = results(out)
    dl = [e for e in r["dcfit_events"] if e["kind"] == "deadlock"]
    check("deadlock declared", len(dl) >= 1, str(len(dl)))
    check("a lossless stall, not a loss: no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    for e in dl:
        sw = e["switch"]
        check(f"{sw}: on priority 1", e["prio"] == 1, str(e["prio"]))
        check(f"{sw}: its loop ports are on the loop S2-L2-S1-L3",
              f"{sw}:{e['in_port']}" in LOOP and f"{e['out_port']}:{sw}" in LOOP,
              f"in={e['in_port']} out={e['out_port']}")
        check(f"{sw}: the loop the fabric follows is S2-L2-S1-L3", set(e["loop"]) == LOOP and e["loop_closed"],
              str(e["loop"]))
        check(f"{sw}: declared within 50 us of the loop forming", e.get("detect_ns", 1 << 62) <= 50_000,
              f"{e.get('detect_ns')} ns (formed {e.get('loop_formed_ns')} ns, declared {e['t_ns']} ns)")
        check(f"{sw}: detect only: nothing discarded", not e["break"] and e["break_drops"] == 0)
    check("detect only: the flows stay stopped", all(g < 0.5 for g in rx_gbps_after(out, 3).values()),
          str(rx_gbps_after(out, 3)))
    sws = r["switches"]
    check("checking messages travelled (dcfit_msg_tx, dcfit_msg_rx)",
          sum(p["dcfit_msg_tx"] for s in sws.values() for p in s["ports"]) > 0 and
          sum(p["dcfit_msg_rx"] for s in sws.values() for p in s["ports"]) > 0)
    check("no message refused", sum(p["dcfit_msg_dropped"] for s in sws.values() for p in s["ports"]) == 0)
    first_ms = min(e["t_ns"] for e in dl) / 1e6 if dl else DURATION_MS

    # 2. Detect and break.
    out = os.path.join(tmp, "break")
    run([fabric, "--fabric", fig10_with_dcfit(cfg, tmp, "break", DURATION_MS), "--out", out])
    r = results(out)
    dl = [e for e in r["dcfit_events"] if e["kind"] == "deadlock"]
    check("break: deadlock declared and broken", len(dl) >= 1 and all(e["break"] for e in dl), str(len(dl)))
    check("break: the discards are counted as dcfit_break", r["dcfit_break_drops"] > 0 and
          r["dcfit_break_drops"] == sum(e["break_drops"] for e in dl), str(r["dcfit_break_drops"]))
    check("break: no lossless drop besides", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    after = rx_gbps_after(out, first_ms + 0.5)
    check("break: both flows run again after the first deadlock", len(after) == 2 and all(g > 1 for g in after.values()),
          str(after))

    # 3. Tagger's rules: no CBD, so nothing to detect.
    rules = os.path.join(tmp, "rules")
    run([tagger, "tag", "--topo", os.path.join(tmp, "detect", "topology.json"), "--elp-gen", "clos", "--bounces",
         "1", "--algo", "clos", "-o", rules])
    out = os.path.join(tmp, "tagger")
    run([fabric, "--fabric", fig10_with_dcfit(cfg, tmp, "detect", DURATION_MS, tagger=True), "--rules", rules,
         "--out", out])
    r = results(out)
    kinds = [e["kind"] for e in r["dcfit_events"]]
    check("Tagger: no loop found, no deadlock (no false positive)", kinds == [], str(kinds))
    check("Tagger: the flows keep flowing", all(g > 10 for g in rx_gbps_after(out, 3).values()),
          str(rx_gbps_after(out, 3)))
    check("Tagger: no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))

finish()
