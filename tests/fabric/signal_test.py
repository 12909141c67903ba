#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A virtual-clock run ended by a signal (suite 'fabric'): Ctrl-C on a run
of many minutes must stop it soon, with the results of the part that ran,
said to be that, and an exit status no script takes for a finished run.
A k=4 fat-tree under RC/DCQCN and raw flows, its duration made 60 s of
virtual time (hours here): SIGINT on one thread (one window to the next
sample: the clock looks between instants), SIGTERM on two threads (looked
at between windows), and SIGTERM to rank 1 of two MPI ranks (the ranks
agree on it: rank 0, which got no signal, writes the results). Each must
exit 128 + the signal within 30 s, results.json saying "interrupted" with
the signal and an end_ns short of the duration, flows.csv written; a
second SIGINT kills a run at once.

  signal_test.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from pfclib.checks import check, finish
from pfclib.split_cases import fattree4_file, split_setup

fabric, FAB, ENV = split_setup(sys.argv)
DURATION_NS = 60 * 10**9


def rank_pid(mpirun_pid, rank):
    """The pid of rank `rank` among mpirun's descendants (its environment)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"pfcfabric" in cmd and f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            return int(pid)
    return None


def interrupted_run(name, path, out, sig, threads=1, ranks=1, second=False):
    """Starts the run, signals it 2 s into its traffic; (exit status, log)."""
    cmd = [fabric, "--fabric", path, "--out", out, "--threads", str(threads)]
    if ranks > 1:
        cmd = ["mpirun", "-np", str(ranks), "--bind-to", "none", "--oversubscribe", *cmd]
    log_path = out + ".log"
    with open(log_path, "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=ENV)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if "running on the virtual clock" in open(log_path).read():
            break
        time.sleep(0.2)
    time.sleep(2)
    target = p.pid if ranks == 1 else rank_pid(p.pid, 1)
    running = p.poll() is None and target is not None
    check(f"{name}: running when signalled", running, "" if running else open(log_path).read()[-2000:])
    if target is not None:
        os.kill(target, sig)
        if second:
            time.sleep(0.05)
            os.kill(target, sig)
    try:
        rc = p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rc = None
    return rc, open(log_path).read()


def check_results(name, out, log, sig_name):
    m = re.search(r"stopped by (SIG\w+) at ([0-9.]+) of ([0-9.]+) ms", log)
    ok = m is not None and m.group(1) == sig_name and float(m.group(2)) < float(m.group(3))
    check(f"{name}: says it stopped by {sig_name} before its end", ok,
          m.group(0) if ok else log[-1500:])
    try:
        r = json.load(open(os.path.join(out, "results.json")))
    except (OSError, ValueError) as e:
        check(f"{name}: results.json written", False, str(e))
        return
    check(f"{name}: results.json says interrupted by {sig_name}",
          r.get("interrupted") == sig_name, str(r.get("interrupted")))
    check(f"{name}: end_ns short of the duration and past the traffic's start",
          0 < r["end_ns"] < DURATION_NS and r["duration_ns"] == DURATION_NS,
          f"{r['end_ns']} of {r['duration_ns']}")
    check(f"{name}: some frames were received before the signal",
          any(f.get("rx_frames", 0) > 0 for f in r["flows"]), "")
    check(f"{name}: flows.csv written", os.path.getsize(os.path.join(out, "flows.csv")) > 0)


with tempfile.TemporaryDirectory(prefix="fabric-signal-") as tmp:
    ft, log, ok = fattree4_file(fabric, FAB, tmp, ENV)
    check("the fat-tree file is valid", ok, log)
    long_file = os.path.join(tmp, "ft4-long.yaml")
    text = open(ft).read().replace("duration: 400us", "duration: 60s")
    # Not the queue monitor's 3,000 samples a switch port: not the point here.
    text = re.sub(r"^monitor:.*\n", "", text, flags=re.M)
    check("the duration made 60 s", "duration: 60s" in text)
    with open(long_file, "w") as f:
        f.write(text)

    for name, sig, threads, ranks in (("one thread, SIGINT", signal.SIGINT, 1, 1),
                                      ("two threads, SIGTERM", signal.SIGTERM, 2, 1),
                                      ("two MPI ranks, SIGTERM to rank 1", signal.SIGTERM, 1, 2)):
        out = os.path.join(tmp, f"out-{threads}-{ranks}")
        rc, log = interrupted_run(name, long_file, out, sig, threads, ranks)
        # Over ranks, rank 0 exits so and mpirun passes its status on.
        check(f"{name}: exit status 128 + {int(sig)} within 30 s", rc == 128 + sig,
              f"exit {rc}" if rc == 128 + sig else f"exit {rc}: {log[-1500:]}")
        check_results(name, out, log, sig.name)

    out = os.path.join(tmp, "out-twice")
    rc, log = interrupted_run("two SIGINTs", long_file, out, signal.SIGINT, second=True)
    check("a second SIGINT kills the run at once (killed by SIGINT, or stopped by the first)",
          rc in (-signal.SIGINT, 128 + signal.SIGINT), f"exit {rc}")

finish()
