#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ECN marking in the fabric emulator (suite 'fabric', virtual clock). The
3-to-1 incast of configs/fabric/incast-3to1.yaml (B's port to H4 is the
bottleneck): f1 and f2 send ECT(0), f3 Not-ECT, priority 1 lossless, with
configs/fabric/switch-lossless-ecn.yaml's WRED profile (KMIN 5K, KMAX 20K,
PMAX 10%) on priority 1 of every port. Checks: B marks at its port to H4 and nowhere else needs to;
every mark reaches its receiver (the flows' CE frames sum to the switches'
ecn_marked); the Not-ECT flow is never marked and is counted as ecn_not_ect;
tshark reads as many CE frames in the B-H4 capture; no lossless drop; each
switch's generated config has its own seed from the fabric's, and a rerun
gives the same results byte for byte.

  ecn_test.py BUILD_DIR SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))

INCAST = """fabric: {{ clock: virtual, duration: 5ms, bin: 250us, seed: {seed} }}
include: {cfg}/incast-3to1.yaml
switch: {{ config: {cfg}/switch-lossless-ecn.yaml }}
flows:
  - {{ name: f1, from: H1, to: H4, dscp: 1, prio: 1, frame: 1000, ecn: ect0 }}
  - {{ name: f2, from: H2, to: H4, dscp: 1, prio: 1, frame: 1000, ecn: ect0 }}
  - {{ name: f3, from: H3, to: H4, dscp: 1, prio: 1, frame: 1000 }}
captures:
  - {{ link: [B, H4], file: b-h4.pcapng }}
"""


def fabric_run(tmp, tag, seed):
    path = os.path.join(tmp, f"fabric-seed{seed}.yaml")  # results.json names it
    with open(path, "w") as f:
        f.write(INCAST.format(cfg=cfg, seed=seed))
    out = os.path.join(tmp, tag)
    run([fabric, "--fabric", path, "--out", out])
    return out, results(out)


def marks(r, counter):
    return {(s, p["name"], q["prio"]): q[counter] for s, sw in r["switches"].items()
            for p in sw["ports"] for q in p["prio"] if q[counter]}


with tempfile.TemporaryDirectory(prefix="fabric-ecn-") as tmp:
    out, r = fabric_run(tmp, "a", 1)
    flows = {f["name"]: f for f in r["flows"]}
    marked, not_ect = marks(r, "ecn_marked"), marks(r, "ecn_not_ect")
    print(f"ecn_marked {marked}; ecn_not_ect {not_ect}; "
          f"ce_frames f1 {flows['f1']['ce_frames']} f2 {flows['f2']['ce_frames']} "
          f"of {flows['f1']['rx_frames']} and {flows['f2']['rx_frames']}")
    check("B marks at its port to H4, priority 1", marked.get(("B", "H4", 1), 0) > 0, str(marked))
    # Marked frames still on a link or in a queue at the end have not
    # arrived; a frame A marked is not B's mark again.
    ce = flows["f1"]["ce_frames"] + flows["f2"]["ce_frames"]
    flight = sum(flows[f]["tx_frames"] - flows[f]["rx_frames"] - flows[f]["lost"] for f in ("f1", "f2"))
    check("every mark reaches its receiver but those in flight at the end",
          ce <= sum(marked.values()) <= ce + flight, f"{sum(marked.values())} marked, {ce} CE, {flight} in flight")
    check("some ECT frames pass unmarked (the curve, not a wall)",
          0 < flows["f1"]["ce_frames"] < flows["f1"]["rx_frames"], str(flows["f1"]))
    check("the Not-ECT flow is never marked, and counted", flows["f3"]["ce_frames"] == 0
          and not_ect.get(("B", "H4", 1), 0) > 0, f"{flows['f3']['ce_frames']} {not_ect}")
    check("no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    wire = subprocess.run(["tshark", "-r", os.path.join(out, "b-h4.pcapng"), "-Y",
                         "ip.dsfield.ecn == 3", "-T", "fields", "-e", "ip.dsfield.ecn"],
                        capture_output=True, text=True).stdout.split()
    check("tshark reads every CE frame in the B-H4 capture (and those on the wire at the end)",
          ce <= len(wire) <= ce + flight, str(len(wire)))
    seeds = {}
    for name in ("A", "B"):
        text = open(os.path.join(out, "switches", name + ".yaml")).read()
        seeds[name] = [ln for ln in text.splitlines() if "seed:" in ln]
    check("each switch has its own ECN seed from the fabric's", seeds["A"] != seeds["B"]
          and all(len(v) == 1 for v in seeds.values()), str(seeds))
    out2, _ = fabric_run(tmp, "b", 1)
    same = open(os.path.join(out, "results.json")).read() == open(os.path.join(out2, "results.json")).read()
    check("a rerun is byte-identical", same)
    _, r3 = fabric_run(tmp, "c", 2)
    check("another fabric seed, other draws", marks(r3, "ecn_marked") != marked
          or [f["ce_frames"] for f in r3["flows"]] != [f["ce_frames"] for f in r["flows"]])
finish()
