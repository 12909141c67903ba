#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The mixed experiment (suite 'fabric'): Tagger Fig. 10's 1-bounce CBD plus
H14 storming from 4 ms (configs/fabric/mixed-*.yaml, as bench/fabric/mixed.sh
runs them), {without, with Tagger} x {without, with the watchdog}. Checks:
without Tagger and the watchdog blue and green deadlock and gray stops; with
Tagger alone blue and green flow and gray stops (the storm spreads); with
both they flow, gray keeps moving and the only storm is at T4's port to
H14; without Tagger the watchdog takes the deadlock for storms on links
between switches and drops there. No lossless drop anywhere.

  mixed_test.py BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from pfclib.checks import check, finish, run  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
from fabric.mixed import outcome  # noqa: E402

fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tagger = os.path.join(build, "ctrl/tagger/pfc-tagger")
cfg = os.path.join(src, "configs/fabric")


def fabric_run(tmp, name, file, rules):
    extra = ["--rules", os.path.join(tmp, "rules")] if rules else []
    run([fabric, "--fabric", os.path.join(cfg, file + ".yaml"), "--out", os.path.join(tmp, name)] + extra)


with tempfile.TemporaryDirectory(prefix="fabric-mixed-") as tmp, ThreadPoolExecutor(max_workers=2) as ex:
    # Two runs at a time (one core each); pfc-tagger reads the topology the
    # first run wrote.
    pairs = [[("tagger0_wd0", "mixed-lossless", False), ("tagger0_wd1", "mixed-lossless-pfcwd", False)],
             [("tagger1_wd0", "mixed-tagger", True), ("tagger1_wd1", "mixed-tagger-pfcwd", True)]]
    for i, pair in enumerate(pairs):
        if i == 1:
            run([tagger, "tag", "--topo", os.path.join(tmp, "tagger0_wd0/topology.json"), "--elp-gen", "clos",
                 "--bounces", "1", "--algo", "clos", "-o", os.path.join(tmp, "rules")])
        list(ex.map(lambda r: fabric_run(tmp, *r), pair))
    o = {}
    for name, _, _ in pairs[0] + pairs[1]:
        o[name] = outcome(os.path.join(tmp, name))
        print(name, o[name]["label"], {f: round(g, 2) for f, g in o[name]["rates"].items()},
              o[name]["storm_ports"], o[name]["wd_drops"])
        check(f"{name}: no lossless drop", o[name]["lossless_drops"] == 0, str(o[name]["lossless_drops"]))
    x = o["tagger0_wd0"]
    check("no Tagger, no watchdog: deadlock, gray stopped", x["label"] == "deadlock,gray_stopped", x["label"])
    check("no Tagger, no watchdog: the loop's links paused and idle",
          {"L2->S1", "S1->L3", "L3->S2", "S2->L2"} <= set(x["stuck"]), str(x["stuck"]))
    x = o["tagger0_wd1"]
    check("no Tagger, watchdog: storms declared on the loop's links and at T4 -> H14",
          x["inner_storm_ports"] != [] and "T4->H14" in x["storm_ports"], str(x["storm_ports"]))
    x = o["tagger1_wd0"]
    check("Tagger, no watchdog: no deadlock, the storm stops gray", x["label"] == "flowing,gray_stopped", x["label"])
    check("Tagger, no watchdog: blue and green at 15+ Gb/s", min(x["rates"]["blue"], x["rates"]["green"]) > 15,
          str(x["rates"]))
    x = o["tagger1_wd1"]
    check("Tagger and watchdog: no deadlock, gray moving", x["label"] == "flowing,gray_moving", x["label"])
    check("Tagger and watchdog: one storm, at T4 -> H14", x["storm_ports"] == ["T4->H14"] and x["storm_events"] == 1,
          str(x["storm_ports"]))
    check("Tagger and watchdog: gray keeps 9+ of its 10 Gb/s, blue and green 15+",
          x["rates"]["gray"] >= 9 and min(x["rates"]["blue"], x["rates"]["green"]) > 15, str(x["rates"]))
finish()
