#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/dcqcn/incast.sh, short (suite 'fabric', virtual clock): the
16-to-1 incast with a victim sharing its uplink, 16 ms instead of 30, PFC
alone against PFC + DCQCN. Checks what the bench reports at full length,
with margins for the shorter run: DCQCN pauses far less, shares the
bottleneck fairly, lets the victim near its share where PFC alone holds
it to the incast's, nothing lossless is dropped, and a rerun gives the same
results byte for byte.

  dcqcn_incast_test.py BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile

from dcqcn.incast import HOST_GBPS, WIRE, experiment  # noqa: E402
from pfclib.checks import check, finish  # noqa: E402

build = sys.argv[1]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
with tempfile.TemporaryDirectory(prefix="fabric-dcqcn-") as tmp:
    m = experiment(fabric, tmp, 16)
    first = open(os.path.join(tmp, "dcqcn", "results.json")).read()
    # The same file again: DCQCN's timers and CNPs are on the virtual clock too.
    experiment(fabric, tmp, 16)
    check("a rerun is byte-identical", open(os.path.join(tmp, "dcqcn", "results.json")).read() == first)
n, d = m["none"], m["dcqcn"]
fair = HOST_GBPS * WIRE
print(f"pause frames {n['pause_frames']} -> {d['pause_frames']}; Jain {d['jain']:.3f}; "
      f"victim {n['victim']:.2f} -> {d['victim']:.2f} Gb/s of {fair:.2f}")
check("DCQCN: at most 15% of PFC alone's pause frames", d["pause_frames"] <= 0.15 * n["pause_frames"],
      f"{d['pause_frames']} vs {n['pause_frames']}")
check("DCQCN: the incast shares the bottleneck fairly (Jain >= 0.95)", d["jain"] >= 0.95, f"{d['jain']:.3f}")
check("PFC alone: the victim is held near an incast flow's share", n["victim"] < 0.2 * fair, f"{n['victim']:.2f}")
check("DCQCN: the victim gets over half its share in the second half", d["victim"] > 0.5 * fair,
      f"{d['victim']:.2f}")
check("no lossless drop", all(x["lossless_drops"] == 0 for x in m.values()),
      str([x["lossless_drops"] for x in m.values()]))
finish()
