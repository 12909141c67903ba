#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The short version of bench/fabric/scale.sh (suite 'fabric', virtual
clock): a k=8 fat-tree (80 switches, 128 hosts) under 0.3 ms of the web
search workload at 30% load, and a 100-switch Jellyfish idle. Memory is
proportional to use (and a fabric that would not fit in --memory-limit
stops before it runs): peak RSS far below the 15 GB a k=8 fat-tree took when
every switch's whole buffer was an mbuf pool in 4 KiB pages; the pool grew
to a small part of its bound; the run is lossless, and rounds that visit
only the ports with something to do give the same results, byte for byte,
as rounds over every port, and so does the fabric split over two threads.

  scale_test.py BUILD_DIR SOURCE_DIR
"""
import filecmp
import json
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish
from pfclib.fabric_results import port_sum, results
from pfclib.workload import generate, load_cdf

build, src = sys.argv[1], os.path.abspath(sys.argv[2])
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
RSS_LIMIT_MB = 600


def write(path, gen, hosts, window_ms):
    cdf = load_cdf(os.path.join(src, "configs/workloads/websearch.cdf"))
    flows = generate(hosts, 40e9, 0.3, window_ms * 1e6, cdf, 1) if hosts else []
    lines = ["fabric: { clock: virtual, duration: 300us, bin: 100us, seed: 1 }",
             f"topology: {{ gen: '{gen}' }}", "links: { rate: 40G, delay: 1us }",
             f"switch: {{ config: {src}/configs/fabric/switch-lossless.yaml }}", "rc: { mtu: 1000 }"]
    lines += ["flows:"] if flows else []
    lines += [f"  - {{ name: w{k}, from: {s}, to: {d}, dscp: 1, prio: 1, transport: rc, bytes: {b}, "
              f"start: {t}ns }}" for k, (s, d, b, t) in enumerate(flows)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(flows)


# meson sets MALLOC_PERTURB_, which makes glibc fill every allocation: the
# rings, allocated large and touched only as used, would all be touched.
ENV = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}


def run(path, out, env=None, threads=1):
    p = subprocess.Popen([fabric, "--fabric", path, "--out", out, "--threads", str(threads)],
                         stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env or ENV)
    log = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), log, ru.ru_maxrss / 1024


with tempfile.TemporaryDirectory(prefix="fabric-scale-") as tmp:
    idle = os.path.join(tmp, "ft8-idle.yaml")
    write(idle, "fattree:8", [], 0)
    rc, log, _ = run(idle, os.path.join(tmp, "check"))
    check("a k=8 fat-tree runs idle", rc == 0, log)
    hosts = [h["name"] for h in json.load(open(os.path.join(tmp, "check/hosts.json")))["hosts"]]
    # Too little memory: stopped before it runs, with what it needs.
    p = subprocess.run([fabric, "--fabric", idle, "--out", os.path.join(tmp, "small"),
                        "--memory-limit", "150"], capture_output=True, text=True, env=ENV)
    check("a fabric that does not fit in --memory-limit stops before it runs",
          p.returncode == 1 and "needs about" in p.stderr and "150 MB available" in p.stderr
          and not os.path.exists(os.path.join(tmp, "small/results.json")), p.stderr)
    check("128 hosts", len(hosts) == 128, str(len(hosts)))
    # The test switch takes 0 or 1: another value is refused, not read as 1.
    p = subprocess.run([fabric, "--fabric", idle, "--out", os.path.join(tmp, "every-bad")],
                       capture_output=True, text=True, env=dict(ENV, PFCFABRIC_EVERY_PORT="yes"))
    check("PFCFABRIC_EVERY_PORT=yes is refused before the run",
          p.returncode == 2 and "PFCFABRIC_EVERY_PORT: expected 0" in p.stderr
          and not os.path.exists(os.path.join(tmp, "every-bad")), p.stderr)
    path = os.path.join(tmp, "ft8.yaml")
    flows = write(path, "fattree:8", hosts, 0.3)
    runs = []
    for k in range(3):
        out = os.path.join(tmp, f"run{k}")
        # The second run's rounds look at every port (PFCFABRIC_EVERY_PORT),
        # the first's at the ports with something to do (worker_ctx.h); the
        # third splits the fabric over two threads (--threads).
        rc, log, rss = run(path, out, dict(ENV, PFCFABRIC_EVERY_PORT="1") if k == 1 else ENV,
                           threads=2 if k == 2 else 1)
        check(f"run {k} succeeds", rc == 0, log)
        runs.append((out, rss))
    out, rss = runs[0]
    t = json.load(open(os.path.join(out, "timing.json")))
    r = results(out)
    hops = port_sum(r, "rx_packets")
    print(f"fattree:8, {flows} flows: {hops} switch-hops, peak RSS {rss:.0f} MB, "
          f"start-up {t['startup_seconds']:.2f} s, pool {t['pool_mbufs_populated']} mbufs")
    check("traffic crossed the fabric", flows > 20 and hops > 100000, f"{flows} flows, {hops} hops")
    check("no lossless drops", "lossless drops 0;" in log, log)
    # The run's CPU time (bench/fabric/scale.py's hop rate): one thread,
    # never more than its wall time (less when others share the machine).
    check("timing.json has the run's CPU seconds, at most its wall seconds",
          0 < t["cpu_seconds"] <= t["wall_seconds"] + 0.01,
          f"{t['cpu_seconds']} s CPU, {t['wall_seconds']} s wall")
    check(f"peak RSS below {RSS_LIMIT_MB} MB", rss < RSS_LIMIT_MB, f"{rss:.0f} MB")
    size = r["switches"]["c0"]["pool_size"]
    check("the pool holds a small part of its bound",
          0 < t["pool_mbufs_populated"] < size / 20, f"{t['pool_mbufs_populated']} of {size}")
    check("every switch's config is written",
          len(os.listdir(os.path.join(out, "switches"))) == 80)
    for name in ("results.json", "flows.csv", "ports.csv", "fct.csv"):
        check(f"{name} repeats byte for byte with rounds over every port",
              filecmp.cmp(os.path.join(runs[0][0], name), os.path.join(runs[1][0], name), shallow=False))
        check(f"{name} repeats byte for byte on two threads",
              filecmp.cmp(os.path.join(runs[0][0], name), os.path.join(runs[2][0], name), shallow=False))

    jf = os.path.join(tmp, "jf100.yaml")
    write(jf, "jellyfish:100:16:12", [], 0)
    rc, log, rss = run(jf, os.path.join(tmp, "jf"))
    check("a 100-switch Jellyfish starts and runs", rc == 0, log)
    check(f"its peak RSS is below {RSS_LIMIT_MB} MB", rss < RSS_LIMIT_MB, f"{rss:.0f} MB")
finish()
