#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A transmit FIFO shorter than a frame (suite 'fabric', virtual clock):
`links.fifo: 1ns` takes a frame only when the wire is free, as the HPCC
simulator's NIC dequeues a packet when its link frees. The case is
bench/hpcc/cases/fat320-websearch50-1ms-step converted by tools/hpcc_import.py
(1,125 flows on the simulator's 320-host fat-tree), with the FIFO set. Before
2026-12-01 a switch port stalled there: the link took the one frame it had
room for and started it at once, no frame waited whose start would wake the
switch, and the rest of the queue stayed until something else arrived. An
aggregation switch's port to a core kept an ACK that way and two flows never
completed. Checks: every flow completes, nothing is left in a switch, and
no frame is lost.

  fifo_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run
from pfclib.fabric_results import results

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
case = os.path.join(src, "bench/hpcc/cases/fat320-websearch50-1ms-step")
topo = os.path.join(src, "bench/hpcc/cases/fat320-websearch50-5ms/fat.txt")

with tempfile.TemporaryDirectory(prefix="fabric-fifo-") as tmp:
    conv = os.path.join(tmp, "fabric")
    subprocess.run([sys.executable, os.path.join(src, "tools/hpcc_import.py"), "--topology", topo,
                    "--flows", os.path.join(case, "websearch50_1ms.txt"),
                    "--config", os.path.join(case, "config.txt"), "--out", conv],
                   check=True, capture_output=True)
    path = os.path.join(conv, "fabric.yaml")
    with open(path) as f:
        text = f.read()
    head = "links: { rate: 100G, delay: 1000ns,"
    check("the converted file's links section is the one this test edits", head in text)
    with open(path, "w") as f:
        f.write(text.replace(head, head + " fifo: 1ns,", 1))
    out = os.path.join(tmp, "out")
    run([fabric, "--fabric", path, "--out", out])
    with open(os.path.join(out, "fct.csv")) as f:
        flows = list(csv.DictReader(f))
    left = [r["flow"] for r in flows if r["completed"] != "1"]
    check("every one of the 1,125 flows completes", len(flows) == 1125 and not left,
          f"{len(flows)} flows, not completed: {left[:5]}")
    with open(os.path.join(out, "ports.csv")) as f:
        rows = list(csv.DictReader(f))
    last = rows[-1]["t_ms"]
    held = [(x["switch"], x["port"], x["buffer_bytes"]) for x in rows
            if x["t_ms"] == last and x["buffer_bytes"] != "0"]
    check("nothing is left in a switch (every buffer empty at the end)", not held, str(held[:5]))
    r = results(out)
    check("no frame lost (the verdict's loss totals)",
          r["lossless_drops"] == 0 and not r["verdict"]["lost"]["lossless_prios"]
          and not r["verdict"]["lost"]["lossy_prios"], str(r["verdict"]["lost"]))
finish()
