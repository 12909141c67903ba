#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: a short soak (bench/switch/soak.py, 20 s by default, SOAK_SECONDS to
change): mixed lossless incast, lossy overload, malformed frames, a pause
storm and rule swaps, then no crash, mbufs and buffers back to zero, no
lossless drop beyond lossless_headroom_exceeded, flat RSS. The soak checks
all of that itself; this test runs it and reads its RESULT line."""
import os
import re
import subprocess
import sys

from swlib import ROOT, Results

r = Results()
seconds = os.environ.get("SOAK_SECONDS", "20")
# soak.py drives the switch with swlib, found on PYTHONPATH (as bench/switch/soak.sh sets it).
env = dict(os.environ, PYTHONPATH=":".join(
    p for p in (os.path.join(ROOT, "tests/system"), os.environ.get("PYTHONPATH")) if p))
res = subprocess.run([sys.executable, os.path.join(ROOT, "bench/switch/soak.py"), seconds],
                     capture_output=True, text=True, timeout=300, env=env)
print(res.stdout[-3000:], res.stderr[-3000:], flush=True)
m = re.search(r"^RESULT minutes=\S+ lossless_drops=(-?\d+) pool_ok=(\d) rss_growth_kb=(-?\d+) swaps=(\d+)$",
              res.stdout, re.M)
r.check(m is not None, "the soak printed its RESULT line")
if m:
    r.eq(int(m.group(1)), 0, "no lossless drop beyond lossless_headroom_exceeded")
    r.eq(int(m.group(2)), 1, "the mbuf pool is full again after the traffic")
    r.check(int(m.group(4)) >= 3, f"rules swapped under traffic ({m.group(4)} times)")
r.eq(res.returncode, 0, "every soak check passed (no crash, buffers empty, RSS flat)")
r.done()
