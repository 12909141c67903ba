#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/dcqcn/fct_workload.sh, short (suite 'fabric', virtual clock): the web
search workload at 30% load on the k=4 fat-tree for 2 ms of arrivals, PFC
alone against PFC + DCQCN: every flow completes, none faster than alone,
DCQCN pauses far less, nothing lossless is dropped.

  fct_workload_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import os
import sys
import tempfile

from dcqcn.fct_workload import run  # noqa: E402
from pfclib.checks import check, finish  # noqa: E402

fabric = os.path.join(sys.argv[1], "dataplane/emulator/pfcfabric")
with tempfile.TemporaryDirectory(prefix="fabric-fct-") as tmp:
    res = {cc: run(fabric, tmp, 0.3, cc, 2, 12) for cc in ("none", "dcqcn")}
    rows = list(csv.DictReader(open(os.path.join(tmp, "web-30-dcqcn", "fct.csv"))))
for cc, x in res.items():
    print(f"{cc}: {x['completed']}/{x['flows']} completed, small p99 {x['small_p99']:.2f}, "
          f"paused {x['pause_ms']:.2f} ms")
check("a workload of tens of flows", res["none"]["flows"] >= 20, str(res["none"]["flows"]))
check("every flow completes, both ways", all(x["completed"] == x["flows"] for x in res.values()))
check("no flow faster than alone", all(float(r["slowdown"]) >= 0.999 for r in rows),
      str(min(float(r["slowdown"]) for r in rows)))
check("DCQCN pauses under a fifth as long", res["dcqcn"]["pause_ms"] < res["none"]["pause_ms"] / 5,
      f"{res['dcqcn']['pause_ms']:.2f} vs {res['none']['pause_ms']:.2f}")
check("no lossless drop", all(x["lossless_drops"] == 0 for x in res.values()))
finish()
