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
than the machine has cores. --threads is refused, with the reason,
where it cannot keep that promise (DCFIT, the real clock).

  threads_test.py BUILD_DIR SOURCE_DIR
"""
import filecmp
import json
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish
from pfclib.dcfit_fabrics import fig10_with_dcfit
from pfclib.fabric_results import port_sum, results

build, src = sys.argv[1], os.path.abspath(sys.argv[2])
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
FAB = os.path.join(src, "configs/fabric")
ENV = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}


def run(path, out, threads, *extra):
    p = subprocess.run([fabric, "--fabric", path, "--out", out, "--threads", str(threads), *extra],
                       capture_output=True, text=True, env=ENV, timeout=300)
    return p.returncode, p.stdout + p.stderr


def files(d):
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs
                  if f != "timing.json")


def same_outputs(a, b):
    fa, fb = files(a), files(b)
    if fa != fb:
        return False, f"file lists differ: {set(fa) ^ set(fb)}"
    differ = [f for f in fa if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)]
    return not differ, ", ".join(differ)


with tempfile.TemporaryDirectory(prefix="fabric-threads-") as tmp:
    flap = os.path.join(tmp, "fig11-flap.yaml")
    with open(flap, "w") as f:
        f.write(f"include: {FAB}/fig11-scenario.yaml\nevents:\n")
        # Down and up every 20 us, shorter than a pause of 65535 quanta at
        # 40G (~840 us), on a leaf-spine link that carries the flows.
        for k in range(10):
            f.write(f"  - {{ at: {1000 + 20 * k}us, link: [L1, S1], state: {'down' if k % 2 == 0 else 'up'} }}\n")
    # A k=4 fat-tree under RC flows of the web search workload.
    ft = os.path.join(tmp, "ft4.yaml")
    head = ["fabric: { clock: virtual, duration: 400us, bin: 100us, seed: 1 }",
            "topology: { gen: 'fattree:4' }", "links: { rate: 40G, delay: 1us }",
            f"switch: {{ config: {FAB}/switch-lossless-ecn.yaml }}", "rc: { mtu: 1000 }",
            ]
    with open(ft, "w") as f:
        f.write("\n".join(head) + "\n")
    rc, log = run(ft, os.path.join(tmp, "ft4-check"), 1, "--check")
    check("the fat-tree file is valid", rc == 0, log)
    hosts = [h["name"] for h in json.load(open(os.path.join(tmp, "ft4-check/hosts.json")))["hosts"]]
    # Every host to one five along (most cross pods), half of them RC with
    # DCQCN over ECN, the rest raw at 10 Gb/s, starts staggered.
    with open(ft, "a") as f:
        f.write("flows:\n")
        for k, s in enumerate(hosts):
            d = hosts[(k + 5) % len(hosts)]
            kind = ("transport: rc, cc: dcqcn, ecn: ect0, bytes: 300000" if k % 2 == 0
                    else "rate: 10G")
            f.write(f"  - {{ name: f{k}, from: {s}, to: {d}, dscp: 1, prio: 1, {kind}, "
                    f"start: {10 * k}us }}\n")
    cases = [("fig12", f"{FAB}/fig12-scenario.yaml", [2]),
             ("fig10-capture", f"{FAB}/fig10-1bounce.yaml", [2]),
             ("mixed-storm", f"{FAB}/mixed-storm.yaml", [2]),
             ("fig11-flap", flap, [3]),
             ("fattree4", ft, [2, 5])]
    for name, path, counts in cases:
        one = os.path.join(tmp, name + "-1")
        rc, log = run(path, one, 1)
        check(f"{name}: one thread runs", rc == 0, log)
        for n in counts:
            many = os.path.join(tmp, f"{name}-{n}")
            rc, log = run(path, many, n)
            check(f"{name}: {n} threads run", rc == 0 and f"{n} threads, windows of" in log, log)
            ok, detail = same_outputs(one, many)
            check(f"{name}: {n} threads give every file byte for byte", ok, detail)
    hops = port_sum(results(os.path.join(tmp, "fattree4-1")), "rx_packets")
    check("the fat-tree carried traffic between pods", hops > 20000, f"{hops} switch-hops")
    check("the flap took the link down and up",
          sum(1 for e in results(os.path.join(tmp, "fig11-flap-1"))["events"]
              if "L1-S1" in e) == 10)
    check("fig10's capture was written", os.path.getsize(os.path.join(tmp, "fig10-capture-2/l2-s1.pcapng")) > 10000)

    # Refused where the partitions could not give the one-thread results.
    dcfit = fig10_with_dcfit(FAB, tmp, "detect", 6)
    rc, log = run(dcfit, os.path.join(tmp, "dcfit"), 2)
    check("--threads with DCFIT is refused before it starts, naming DCFIT",
          rc == 2 and "runs DCFIT" in log, log[-300:])
    real = os.path.join(tmp, "real.yaml")
    with open(real, "w") as f:
        text = open(f"{FAB}/fig11-scenario.yaml").read()
        f.write(text.replace("include: clos-fig2", f"include: {FAB}/clos-fig2")
                .replace("clock: virtual", "clock: real"))
    rc, log = run(real, os.path.join(tmp, "real"), 2)
    check("--threads on the real clock is refused", rc == 2 and "virtual clock" in log, log[-300:])
finish()
