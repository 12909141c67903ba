#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The virtual clock over MPI ranks (mpirun -np N pfcfabric, suite 'fabric'):
two and three processes on this machine, each running its partitions of
the fabric (with threads of its own too), exchanging the frames that cross
between them once a window; rank 0 gathers the results, which must be the
one-process run's, every file byte for byte (the ranks' own directory
apart): Fig. 12's deadlock (links down, routes changed on switches of
either rank), Fig. 10 with its capture (written by the rank that runs the
link, gathered by rank 0), the mixed experiment's storm and its watchdog's
events, a link flapping under traffic, and a k=4 fat-tree with RC flows
under DCQCN, also on a stepped clock (fabric.quantum). mpirun of what cannot keep that promise is refused with the
reason (DCFIT, the real clock, --here).

  mpi_test.py BUILD_DIR SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish
from pfclib.dcfit_fabrics import fig10_with_dcfit
from pfclib.fabric_results import results
from pfclib.split_cases import (fattree4_file, flap_file, real_clock_file, same_outputs,
                                 split_setup, stepped_file)

fabric, FAB, ENV = split_setup(sys.argv)


def run(path, out, ranks, threads=1, *extra):
    cmd = [fabric, "--fabric", path, "--out", out, "--threads", str(threads), *extra]
    if ranks > 1:
        cmd = ["mpirun", "-np", str(ranks), "--bind-to", "none", "--oversubscribe", *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    return p.returncode, p.stdout + p.stderr


with tempfile.TemporaryDirectory(prefix="fabric-mpi-") as tmp:
    flap = flap_file(FAB, tmp)
    ft, log, ok = fattree4_file(fabric, FAB, tmp, ENV)
    check("the fat-tree file is valid", ok, log)
    cases = [("fig12", f"{FAB}/fig12-scenario.yaml", [(2, 1)]),
             ("fig10-capture", f"{FAB}/fig10-1bounce.yaml", [(2, 1)]),
             ("mixed-storm", f"{FAB}/mixed-storm.yaml", [(2, 1)]),
             ("mixed-pfcwd", f"{FAB}/mixed-lossless-pfcwd.yaml", [(2, 1)]),
             ("fig11-flap", flap, [(2, 1)]),
             ("fattree4", ft, [(2, 1), (2, 2), (3, 1)]),
             ("fattree4-stepped", stepped_file(ft, tmp), [(2, 1)])]
    for name, path, splits in cases:
        one = os.path.join(tmp, name + "-1")
        rc, log = run(path, one, 1)
        check(f"{name}: one process runs", rc == 0, log)
        for ranks, threads in splits:
            many = os.path.join(tmp, f"{name}-{ranks}x{threads}")
            rc, log = run(path, many, ranks, threads)
            check(f"{name}: {ranks} ranks x {threads} threads run",
                  rc == 0 and f"{ranks} ranks x {threads} threads, windows of" in log, log[-2000:])
            ok, detail = same_outputs(one, many, skip_dirs=("ranks",))
            check(f"{name}: {ranks} ranks x {threads} threads give every file byte for byte",
                  ok, detail)
            check(f"{name}: each other rank kept its own lines apart",
                  all(os.path.exists(os.path.join(many, "ranks", str(r), "stdout.txt"))
                      for r in range(1, ranks)))
    r = results(os.path.join(tmp, "fattree4-2x1"))
    check("the fat-tree's flows all delivered over two ranks, RC ones completing",
          all(f["rx_frames"] > 0 for f in r["flows"]) and
          sum(f["fct"]["completed"] for f in r["flows"] if "fct" in f) >= 2,
          [(f["name"], f["rx_frames"]) for f in r["flows"]])
    check("the watchdog's events came back from the rank that saw them",
          len(results(os.path.join(tmp, "mixed-pfcwd-2x1"))["pfcwd_events"]) > 0)
    check("fig10's capture was gathered",
          os.path.getsize(os.path.join(tmp, "fig10-capture-2x1/l2-s1.pcapng")) > 10000)

    # Refused, with the reason, before anything runs.
    dcfit = fig10_with_dcfit(FAB, tmp, "detect", 6)
    rc, log = run(dcfit, os.path.join(tmp, "dcfit"), 2)
    check("mpirun with DCFIT is refused, naming DCFIT", rc != 0 and "runs DCFIT" in log, log[-600:])
    real = real_clock_file(FAB, tmp)
    rc, log = run(real, os.path.join(tmp, "real"), 2)
    check("mpirun on the real clock is refused", rc != 0 and "expected the virtual clock" in log,
          log[-600:])
    rc, log = run(f"{FAB}/fig12-scenario.yaml", os.path.join(tmp, "here"), 2, 1, "--here", "S1")
    check("mpirun with --here is refused", rc != 0 and "expected no --here" in log, log[-600:])
finish()
