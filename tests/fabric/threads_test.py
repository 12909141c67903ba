#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The virtual clock split over threads (pfcfabric --threads, suite
'fabric'): every output file byte-identical to the one-thread run, on
fabrics whose partitions meet over many links and see every kind of event
while traffic crosses them: Fig. 12's deadlock (links down, routes changed
at 2 ms), Fig. 10 with its capture (a captured link's ends stay together),
the storm of the mixed experiment (a host turned into a pause storm), a
link flapping under traffic faster than a pause lasts, and a k=4 fat-tree
with RC flows under DCQCN and raw flows between pods, also on more threads
than the machine has cores, and on a stepped clock (fabric.quantum), and
under taskset (on the CPU it was given). --threads is refused, with the reason,
where it cannot keep that promise (DCFIT, the real clock). The same for
a window's rounds run one entity at a time (each runs every round it has
in a window before the next starts: VirtualClock::RunWindowByEntity)
against time order (PFCFABRIC_TIME_ORDER=1), on one thread.

  threads_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, tshark
from pfclib.dcfit_fabrics import fig10_with_dcfit
from pfclib.fabric_results import port_sum, results
from pfclib.split_cases import (fattree4_file, flap_file, real_clock_file, same_outputs,
                                 stepped_file)

build, src = sys.argv[1], os.path.abspath(sys.argv[2])
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
FAB = os.path.join(src, "configs/fabric")
ENV = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}


def run(path, out, threads, *extra, env=ENV):
    p = subprocess.run([fabric, "--fabric", path, "--out", out, "--threads", str(threads), *extra],
                       capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout + p.stderr


def entity_window(out):
    with open(os.path.join(out, "timing.json")) as f:
        return json.load(f)["entity_window_ns"]


with tempfile.TemporaryDirectory(prefix="fabric-threads-") as tmp:
    flap = flap_file(FAB, tmp)
    ft, log, ok = fattree4_file(fabric, FAB, tmp, ENV)
    check("the fat-tree file is valid", ok, log)
    # Stepped, with captures on a busy uplink and a host link: a switch
    # sends a frame on from its landing, up to a step before the round, so
    # frames come to a capture out of start order; it writes them in order.
    stepped = stepped_file(ft, tmp)
    with open(stepped, "a") as f:
        f.write("captures:\n  - { link: [t0_0, a0_0], file: t0a0.pcapng }\n"
                "  - { link: [t0_0, h0_0_0], file: h000.pcapng }\n")
    cases = [("fig12", f"{FAB}/fig12-scenario.yaml", [2]),
             ("fig10-capture", f"{FAB}/fig10-1bounce.yaml", [2]),
             ("mixed-storm", f"{FAB}/mixed-storm.yaml", [2]),
             ("fig11-flap", flap, [3]),
             ("fattree4", ft, [2, 5]),
             # A stepped clock: a window a step shorter, and a receiver fed
             # across partitions due at the end of the step its frame lands in.
             ("fattree4-stepped", stepped, [2])]
    for name, path, counts in cases:
        one = os.path.join(tmp, name + "-1")
        rc, log = run(path, one, 1)
        check(f"{name}: one thread runs", rc == 0, log)
        timed = os.path.join(tmp, name + "-time-order")
        rc, log = run(path, timed, 1, env=dict(ENV, PFCFABRIC_TIME_ORDER="1"))
        check(f"{name}: one thread in time order runs", rc == 0 and entity_window(timed) is None, log)
        # A capture too: its frames wait for the window's end and go to the
        # file in the order they started (the same file as time order's).
        check(f"{name}: one thread runs one entity at a time", entity_window(one) is not None,
              entity_window(one))
        ok, detail = same_outputs(one, timed)
        check(f"{name}: time order and one entity at a time give every file byte for byte",
              ok, detail)
        for n in counts:
            many = os.path.join(tmp, f"{name}-{n}")
            rc, log = run(path, many, n)
            check(f"{name}: {n} threads run", rc == 0 and f"{n} threads, windows of" in log, log)
            ok, detail = same_outputs(one, many)
            check(f"{name}: {n} threads give every file byte for byte", ok, detail)
    # Where the threads' time went (timing.json's "threads"): a thread's
    # windows and waits fit in the run's wall time, the slowest thread's
    # window summed over windows is at least any thread's, and one thread
    # has none of it.
    for n in (2, 5):
        with open(os.path.join(tmp, f"fattree4-{n}", "timing.json")) as f:
            timing = json.load(f)
        th, wall = timing["threads"], timing["wall_seconds"]
        busy, wait = th["busy_seconds"], th["wait_seconds"]
        check(f"fattree4, {n} threads: timing.json has each thread's busy and waiting seconds",
              len(busy) == n and len(wait) == n and min(busy) > 0 and th["windows"] > 100, th)
        check(f"fattree4, {n} threads: each thread's busy and waiting seconds fit in the wall time",
              all(b + w <= wall + 0.001 for b, w in zip(busy, wait)), (wall, th))
        check(f"fattree4, {n} threads: the critical path is at least each thread's busy time, and "
              "balance its mean over it",
              max(busy) <= th["critical_seconds"] + 1e-6 <= wall + 0.001 and
              abs(th["balance"] - sum(busy) / n / th["critical_seconds"]) < 1e-9 and
              0 < th["balance"] <= 1, (wall, th))
    with open(os.path.join(tmp, "fattree4-1", "timing.json")) as f:
        check("one thread: timing.json's threads is null", json.load(f)["threads"] is None)
    # Partitions in time order on a stepped clock: their windows alone
    # (the lookahead across partitions) are a step shorter.
    stepped_timed = os.path.join(tmp, "fattree4-stepped-2-time-order")
    rc, log = run(stepped, stepped_timed, 2, env=dict(ENV, PFCFABRIC_TIME_ORDER="1"))
    check("fattree4-stepped: 2 threads in time order run",
          rc == 0 and entity_window(stepped_timed) is None, log)
    ok, detail = same_outputs(os.path.join(tmp, "fattree4-stepped-1"), stepped_timed)
    check("fattree4-stepped: 2 threads in time order give every file byte for byte", ok, detail)
    # Links shorter than 100 ns: windows that short cost more than they
    # save, so the rounds run in time order.
    short = os.path.join(tmp, "fattree4-short.yaml")
    with open(ft) as f, open(short, "w") as g:
        text = f.read()
        check("the fat-tree's links are 1 us", "delay: 1us" in text)
        g.write(text.replace("delay: 1us", "delay: 50ns"))
    rc, log = run(short, os.path.join(tmp, "short"), 1)
    check("50 ns links: one thread runs in time order",
          rc == 0 and entity_window(os.path.join(tmp, "short")) is None, log)
    check("the fat-tree's windows are its links' delay and a nanosecond",
          entity_window(os.path.join(tmp, "fattree4-1")) == 1001)
    rc, log = run(ft, os.path.join(tmp, "order-0"), 1, env=dict(ENV, PFCFABRIC_TIME_ORDER="0"))
    check("PFCFABRIC_TIME_ORDER=0: one entity at a time, as unset",
          rc == 0 and entity_window(os.path.join(tmp, "order-0")) == 1001, log)
    rc, log = run(ft, os.path.join(tmp, "order-bad"), 1, env=dict(ENV, PFCFABRIC_TIME_ORDER="yes"))
    check("PFCFABRIC_TIME_ORDER=yes: refused (exit 2), naming it and what it takes",
          rc == 2 and "PFCFABRIC_TIME_ORDER: expected 0" in log and "(got 'yes')" in log, log[-300:])
    # The queue monitor: every switch port sampled at each of the 3,001
    # instants from 50 to 350 us (every 100 ns), some of them queued.
    qlen = {}
    with open(os.path.join(tmp, "fattree4-1", "qlen.csv")) as f:
        for r in csv.DictReader(f):
            k = (r["switch"], r["port"])
            qlen.setdefault(k, {})[int(r["kb"])] = int(r["samples"])
    check("the queue monitor sampled every switch port 3,001 times",
          len(qlen) == 20 * 4 and all(sum(h.values()) == 3001 for h in qlen.values()),
          {k: sum(h.values()) for k, h in list(qlen.items())[:4]})
    check("the queue monitor saw queues build", any(kb >= 10 for h in qlen.values() for kb in h),
          max(max(h) for h in qlen.values()))
    hops = port_sum(results(os.path.join(tmp, "fattree4-1")), "rx_packets")
    check("the fat-tree carried traffic between pods", hops > 20000, f"{hops} switch-hops")
    check("the flap took the link down and up",
          sum(1 for e in results(os.path.join(tmp, "fig11-flap-1"))["events"]
              if "L1-S1" in e) == 10)
    for cap in ("t0a0", "h000"):
        times = [float(r[0]) for r in tshark(os.path.join(tmp, "fattree4-stepped-1", cap + ".pcapng"),
                                             ["frame.time_epoch"], "frame")]
        check(f"the stepped fat-tree's {cap} capture is in start order ({len(times)} frames)",
              len(times) > 500 and all(a <= b for a, b in zip(times, times[1:])),
              sum(1 for a, b in zip(times, times[1:]) if b < a))
    check("fig10's capture was written", os.path.getsize(os.path.join(tmp, "fig10-capture-2/l2-s1.pcapng")) > 10000)

    # On the CPUs it was given (spec/cpu_plan.h): under taskset the clock's
    # lcore is the given CPU (the last this test may use), not CPU 0, and
    # the threads stay in the set; the results are the same.
    cpu = sorted(os.sched_getaffinity(0))[-1]
    for n in (1, 2):
        pinned = os.path.join(tmp, f"fig12-cpu{cpu}-{n}")
        p = subprocess.run(["taskset", "-c", str(cpu), fabric, "--fabric", f"{FAB}/fig12-scenario.yaml",
                            "--out", pinned, "--threads", str(n)], capture_output=True, text=True,
                           env=dict(ENV, PFCFABRIC_SHOW_EAL="1"), timeout=300)
        check(f"taskset -c {cpu}, {n} thread(s): EAL's lcore 0 is CPU {cpu}",
              p.returncode == 0 and f"--lcores 0@{cpu} " in p.stdout, (p.stdout + p.stderr)[-400:])
        ok, detail = same_outputs(os.path.join(tmp, "fig12-1"), pinned)
        check(f"taskset -c {cpu}, {n} thread(s): every file byte for byte", ok, detail)

    # Refused where the partitions could not give the one-thread results.
    dcfit = fig10_with_dcfit(FAB, tmp, "detect", 6)
    # DCFIT reads every switch's state at one instant: time order.
    rc, log = run(dcfit, os.path.join(tmp, "dcfit-1"), 1)
    check("DCFIT on one thread runs in time order",
          rc == 0 and entity_window(os.path.join(tmp, "dcfit-1")) is None, log[-300:])
    rc, log = run(dcfit, os.path.join(tmp, "dcfit"), 2)
    check("--threads with DCFIT is refused before it starts, naming DCFIT",
          rc == 2 and "runs DCFIT" in log, log[-300:])
    real = real_clock_file(FAB, tmp)
    rc, log = run(real, os.path.join(tmp, "real"), 2)
    check("--threads on the real clock is refused", rc == 2 and "virtual clock" in log, log[-300:])
finish()
