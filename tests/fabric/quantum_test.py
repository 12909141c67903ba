#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""fabric.quantum (suite 'fabric', virtual clock): a stepped clock batches a
switch's rounds without adding latency to a hop.

On the 3-to-1 incast topology (1 us links):
  * one RC flow alone (H1 -> H4, 200 KB): with quantum 500ns its fct.csv is
    byte-identical to the exact clock's. A frame landing within a step
    leaves as from its landing, and hosts run at their own times, so on an
    idle path nothing moves. (Before, each hop gained up to a step.)
  * three RC flows into H4 (PFC on): with quantum 500ns every flow
    completes with no lossless drop, in fewer switch rounds than exact, and
    each flow's completion time is within 10% of the exact clock's; and
    its rounds run one entity at a time (in windows of the delay and a
    nanosecond less a step: a frame may leave from its landing, up to a
    step before the round) give time order's files byte for byte.

  quantum_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish  # noqa: E402
from pfclib.fabric_files import flow, incast_3to1, write  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))


def run(tmp, name, flows, env=None, **extra):
    spec = incast_3to1(cfg, {"clock": "virtual", "duration": "3ms", "bin": "100us", **extra}, flows,
                       switch=os.path.join(cfg, "switch-lossless.yaml"), rc={"mtu": 1024})
    path = write(os.path.join(tmp, f"{name}.yaml"), spec)
    out = os.path.join(tmp, name)
    p = subprocess.run([fabric, "--fabric", path, "--out", out], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, **(env or {})))
    check(f"{name}: the run succeeds", p.returncode == 0, p.stderr[-400:])
    with open(os.path.join(out, "results.json")) as f:
        r = json.load(f)
    with open(os.path.join(out, "fct.csv")) as f:
        text = f.read()
    with open(os.path.join(out, "fct.csv")) as f:
        fct = {row["flow"]: int(row["fct_ns"]) for row in csv.DictReader(f)}
    with open(os.path.join(out, "timing.json")) as f:
        r["timing"] = json.load(f)
    return r, text, fct


def rc(name, src_host, size):
    return flow(name, src_host, "H4", dscp=1, prio=1, transport="rc", bytes=size)


with tempfile.TemporaryDirectory(prefix="fabric-quantum-") as tmp:
    alone = [rc("f1", "H1", 200_000)]
    _, exact_text, exact_fct = run(tmp, "alone-exact", alone)
    _, step_text, step_fct = run(tmp, "alone-step", alone, quantum="500ns")
    check("a lone flow: fct.csv byte-identical with quantum 500ns",
          exact_text == step_text and len(exact_fct) == 1, f"{exact_fct} against {step_fct}")

    incast = [rc(f"f{i}", f"H{i}", 300_000) for i in (1, 2, 3)]
    r0, _, f0 = run(tmp, "incast-exact", incast)
    r1, _, f1 = run(tmp, "incast-step", incast, quantum="500ns")
    r2, _, f2 = run(tmp, "incast-step-time-order", incast, {"PFCFABRIC_TIME_ORDER": "1"},
                    quantum="500ns")
    check("incast with quantum: windows of 1 us + 1 ns less a step, one entity at a time",
          r1["timing"]["entity_window_ns"] == 501 and r2["timing"]["entity_window_ns"] is None,
          f"{r1['timing']['entity_window_ns']}, {r2['timing']['entity_window_ns']}")
    for r in (r1, r2):  # wall time, and the fabric file's name
        r.pop("timing"), r.pop("fabric")
    check("incast with quantum: one entity at a time gives time order's results",
          r1 == r2 and f1 == f2,
          [k for k in sorted(set(r1) | set(r2)) if r1.get(k) != r2.get(k)] or f"{f1} against {f2}")
    v = r1["verdict"]
    check("incast with quantum: every flow completes", v["incomplete_flows"] == 0, v)
    check("incast with quantum: no lossless drop", r1["lossless_drops"] == 0, r1["lossless_drops"])
    check("incast with quantum: fewer switch rounds",
          r1["switch_rounds"] < r0["switch_rounds"], f"{r1['switch_rounds']} against {r0['switch_rounds']}")
    for name, t in sorted(f0.items()):
        check(f"incast {name}: FCT within 10% of the exact clock's ({f1.get(name)} against {t} ns)",
              name in f1 and abs(f1[name] - t) <= 0.1 * t)
finish()
