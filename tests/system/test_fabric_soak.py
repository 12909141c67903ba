#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: a short fabric soak (bench/fabric/soak.py, 20 s by default,
FABRIC_SOAK_SECONDS to change): pfcfabric on the real clock with three
namespace hosts and two emulated hosts under paced lossless bursts, lossy
overload and emulated flows, then no crash, mbufs and buffers back to zero,
no lossless drop, every lossless frame accounted for, flat RSS. The soak
checks all of that itself; this test runs it and reads its RESULT line."""
import os
import re
import subprocess
import sys

from swlib import ROOT, Results

r = Results()
seconds = os.environ.get("FABRIC_SOAK_SECONDS", "20")
# bench/fabric/soak.py imports swlib, pfclib and bench/switch/soak.py (its traffic
# sources) from PYTHONPATH, as bench/fabric/soak.sh sets it.
env = dict(os.environ, PYTHONPATH=":".join(
    p for p in (os.path.join(ROOT, "tests/system"), os.path.join(ROOT, "tools"), os.path.join(ROOT, "bench"),
                os.environ.get("PYTHONPATH")) if p))
res = subprocess.run([sys.executable, os.path.join(ROOT, "bench/fabric/soak.py"), seconds],
                     capture_output=True, text=True, timeout=240, env=env)
print(res.stdout[-3000:], res.stderr[-3000:], flush=True)
m = re.search(r"^RESULT minutes=\S+ lossless_drops=(-?\d+) pool_ok=(\d) rss_growth_kb=(-?\d+) frames_lost=(-?\d+) eal_first_touch_kb=(-?\d+)$",
              res.stdout, re.M)
r.check(m is not None, "the fabric soak printed its RESULT line")
if m:
    r.eq(int(m.group(1)), 0, "no lossless drop in any switch")
    r.eq(int(m.group(2)), 1, "every switch's mbuf pool is full again after the traffic")
    limit = int(os.environ.get("FABRIC_SOAK_RSS_LIMIT_KB", "1024"))
    r.check(int(m.group(3)) <= limit,
            f"the process's own RSS flat after the warm-up: grew {m.group(3)} kB (limit {limit}); "
            f"EAL's pool memory touched for the first time meanwhile: {m.group(5)} kB")
    r.eq(int(m.group(4)), 0, "every lossless frame sent arrived (real hosts and emulated flow)")
r.eq(res.returncode, 0, "every fabric soak check passed (no crash, exit 0, buffers empty, RSS flat)")
r.done()
