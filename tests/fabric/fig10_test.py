#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The fabric emulator end to end on the virtual clock (suite 'fabric'):
Tagger Fig. 10 (bench/tagger/fig10.sh, shortened) must deadlock without
Tagger and not with pfc-tagger's rules, with no lossless packet dropped in
either; and a virtual-time run repeated must give byte-identical results.

  fig10_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import filecmp
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tagger = os.path.join(build, "ctrl/tagger/pfc-tagger")
cfg = os.path.join(src, "configs/fabric")


def late_rates(d):
    r = results(d)
    rates = {}
    for row in csv.DictReader(open(os.path.join(d, "flows.csv"))):
        if float(row["t_ms"]) > r["duration_ns"] / 2e6:
            rates.setdefault(row["flow"], []).append(float(row["gbps"]))
    return {f: sum(v) / len(v) for f, v in rates.items()}, r


with tempfile.TemporaryDirectory(prefix="fabric-fig10-") as tmp:
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    for d in (a, b):
        run([fabric, "--fabric", os.path.join(cfg, "fig10-1bounce.yaml"), "--out", d])
    rates, r = late_rates(a)
    check("without Tagger both flows stop (deadlock)", all(g < 0.5 for g in rates.values()), str(rates))
    check("before the loop closes blue ran at line rate", r["flows"][0]["rx_bytes"] > 5_000_000,
          str(r["flows"][0]["rx_bytes"]))
    check("a deadlock is a stall, not a loss: no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    loop = [("L2", "S1"), ("S1", "L3"), ("L3", "S2"), ("S2", "L2")]
    paused = {(row["switch"], row["port"]) for row in csv.DictReader(open(os.path.join(a, "ports.csv")))
              if row["prio"] == "1" and row["paused"] == "1" and float(row["t_ms"]) == r["duration_ns"] / 1e6}
    check("every link of the cyclic buffer dependency is paused at the end", all(x in paused for x in loop),
          str(sorted(paused)))
    pfc = subprocess.run(["tshark", "-r", os.path.join(a, "l2-s1.pcapng"), "-Y", "macc.opcode == 0x0101",
                          "-T", "fields", "-e", "eth.src"], capture_output=True, text=True).stdout.split()
    s1 = "02:00:08:"  # S1 is topology node 8: its ports are 02:00:08:<port>:00:01
    check("tshark decodes S1's PFC frames in the L2-S1 capture", len(pfc) > 0 and all(m.startswith(s1) for m in pfc),
          f"{len(pfc)} frames")
    # The capture is taken at L2 (node 5): its frames outbound (2), S1's
    # inbound (1), as epb_flags say.
    dirs = subprocess.run(["tshark", "-r", os.path.join(a, "l2-s1.pcapng"), "-T", "fields", "-e",
                           "eth.src", "-e", "frame.packet_flags_direction"],
                          capture_output=True, text=True).stdout.split("\n")
    pairs = {tuple(x.split("\t")) for x in dirs if x}
    want = {m: ("0x00000002" if m.startswith("02:00:05:") else "0x00000001") for m, _ in pairs}
    check("each frame's direction is in the capture (L2's outbound, S1's inbound)",
          pairs and all(d == want[m] for m, d in pairs) and {d for _, d in pairs} == {"0x00000001", "0x00000002"},
          str(sorted(pairs)))
    for f in ("results.json", "flows.csv", "ports.csv", "l2-s1.pcapng"):
        check(f"virtual clock is deterministic: {f} identical", filecmp.cmp(os.path.join(a, f), os.path.join(b, f),
                                                                           shallow=False))
    rules = os.path.join(tmp, "rules")
    run([tagger, "tag", "--topo", os.path.join(a, "topology.json"), "--elp-gen", "clos", "--bounces", "1",
         "--algo", "clos", "-o", rules])
    t = os.path.join(tmp, "t")
    run([fabric, "--fabric", os.path.join(cfg, "fig10-tagger.yaml"), "--rules", rules, "--out", t])
    rates, r = late_rates(t)
    check("with Tagger both flows keep flowing", all(g > 10 for g in rates.values()), str(rates))
    check("with Tagger no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))

finish()
