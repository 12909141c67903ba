#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The short versions of bench/dcfit/fattree8.sh and
bench/fabric/tagger_loop.sh (suite 'fabric', virtual clock): on k=8
fat-trees, two links fail at random and stale routes close a loop through
two cores (tools/pfclib/fattree_loop.py).
  * DCFIT, six draws: every run that deadlocks (per the data plane: a
    cycle of links held paused and idle at the end) is declared, no run
    that does not is, within 50 us of the loop forming, and nothing
    lossless is dropped; some draws deadlock, some do not.
  * Tagger, one draw: without Tagger the loop deadlocks; with the rules
    pfc-tagger computes (--algo clos, two bounces) it does not, the loop
    flows keep moving at the shared links' rate, nothing lossless is lost.

  fattree_loops_test.py BUILD_DIR SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish

build, src = sys.argv[1], os.path.abspath(sys.argv[2])
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tagger = os.path.join(build, "ctrl/tagger/pfc-tagger")


def result(out):
    line = [x for x in out.splitlines() if x.startswith("RESULT ")]
    return dict(kv.split("=") for kv in line[-1].split()[1:]) if line else {}


env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
with tempfile.TemporaryDirectory(prefix="fabric-loops-") as tmp:
    p = subprocess.run(["/usr/bin/python3", os.path.join(src, "bench/dcfit/fattree8.py"), "6", fabric,
                        os.path.join(tmp, "dcfit")], capture_output=True, text=True, env=env, timeout=300)
    print(p.stdout[-3000:], p.stderr[-2000:])
    r = result(p.stdout)
    check("DCFIT at k=8: the runs complete", p.returncode == 0 and r.get("runs") == "6")
    check("some draws deadlock and some do not", 0 < int(r.get("deadlocked", 0)) < 6, r.get("deadlocked"))
    check("no false positive, no false negative", r.get("false_pos") == "0" and r.get("false_neg") == "0")
    check("no lossless drop", r.get("lossless_drops") == "0")
    times = [float(x) for x in (r.get("on_loop_us_max"), r.get("off_loop_us_max")) if x and x != "nan"]
    check("every deadlock declared within 50 us of the loop forming", times and max(times) < 50, str(times))
    check("the figure is written", os.path.getsize(os.path.join(tmp, "dcfit/dcfit_fattree8.png")) > 10000)

    p = subprocess.run(["/usr/bin/python3", os.path.join(src, "bench/fabric/tagger_loop.py"), fabric, tagger,
                        os.path.join(tmp, "tagger")], capture_output=True, text=True,
                       env=dict(env, K="8", RUNS="1", DURATION_MS="3"), timeout=300)
    print(p.stdout[-3000:], p.stderr[-2000:])
    r = result(p.stdout)
    check("Tagger at k=8: the pair runs", p.returncode == 0 and r.get("runs") == "1")
    check("pfc-tagger's rules verify", re.search(r"verified=yes", p.stdout) is not None)
    check("without Tagger the loop deadlocks", r.get("deadlocked_without") == "1")
    check("with Tagger it does not", r.get("deadlocked_with") == "0")
    check("with Tagger nothing lossless is dropped", r.get("lossless_drops_with") == "0")
    check("with Tagger the loop flows share the loop links' 40 Gb/s",
          float(r.get("loop_gbps_with_min", 0)) > 35, r.get("loop_gbps_with_min"))
finish()
